/**
 * An HTTP client for the secrets tests that keeps every answer (status, headers, body), and a
 * browser-like form client over it for the dashboard: cookies and the page's CSRF token.
 */
import assert from 'node:assert/strict';
import type { Plaintexts } from './plaintexts.ts';

export interface Answer {
  readonly what: string;
  readonly status: number;
  /** Every header but Set-Cookie, which hands a browser its own cookie (checked on its own). */
  readonly headers: string;
  readonly setCookies: readonly string[];
  readonly body: string;
}

export class Recorder {
  readonly answers: Answer[] = [];

  constructor(readonly url: string) {}

  async call(
    method: string,
    path: string,
    options: { headers?: Record<string, string>; json?: unknown; raw?: string; form?: URLSearchParams } = {},
  ): Promise<Answer> {
    const headers = new Headers(options.headers);
    let body: string | undefined;
    if (options.json !== undefined) {
      headers.set('content-type', 'application/json');
      body = JSON.stringify(options.json);
    } else if (options.raw !== undefined) {
      if (!headers.has('content-type')) headers.set('content-type', 'application/json');
      body = options.raw;
    } else if (options.form !== undefined) {
      headers.set('content-type', 'application/x-www-form-urlencoded');
      body = options.form.toString();
    }
    const res = await fetch(this.url + path, { method, headers, body, redirect: 'manual' });
    const text = await res.text();
    const shown = [...res.headers].filter(([name]) => name !== 'set-cookie');
    const answer: Answer = {
      what: `${method} ${path.split('?')[0]}`,
      status: res.status,
      headers: shown.map(([k, v]) => `${k}: ${v}`).join('\n'),
      setCookies: res.headers.getSetCookie(),
      body: text,
    };
    this.answers.push(answer);
    return answer;
  }

  /** Calls and insists on the status: a refusal here is a broken setup, not a finding. */
  async expect(
    status: number,
    method: string,
    path: string,
    options: Parameters<Recorder['call']>[2] = {},
  ): Promise<Answer> {
    const answer = await this.call(method, path, options);
    assert.equal(answer.status, status, `${method} ${path}: ${answer.body.slice(0, 500)}`);
    return answer;
  }
}

const INTERACTION_IDS = new Set(['_interaction', '_interaction_resume']);

/** A browser on the dashboard: it keeps its cookies and sends the last page's CSRF token. */
export class Browser {
  private readonly cookies = new Map<string, string>();
  private csrf = '';

  constructor(
    private readonly http: Recorder,
    private readonly secrets: Plaintexts,
  ) {}

  private take(answer: Answer): Answer {
    for (const line of answer.setCookies) {
      const [pair = ''] = line.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq);
      const value = pair.slice(eq + 1);
      if (value === '' || /max-age=0|expires=thu, 01 jan 1970/i.test(line)) this.cookies.delete(name);
      else {
        this.cookies.set(name, value);
        // oidc-provider's interaction cookies hold the interaction's id, which is in its URL by
        // design: what makes them unforgeable is their signature (the .sig cookie), a secret.
        if (!INTERACTION_IDS.has(name)) this.secrets.add('session', `cookie ${name}`, value);
      }
    }
    const token = /name="_csrf" value="([^"]+)"/.exec(answer.body)?.[1];
    if (token !== undefined) this.csrf = this.secrets.add('csrf', 'CSRF token', token);
    return answer;
  }

  private get cookieHeader(): Record<string, string> {
    return { cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ') };
  }

  async get(path: string, status = 200): Promise<Answer> {
    return this.take(await this.http.expect(status, 'GET', path, { headers: this.cookieHeader }));
  }

  async post(path: string, fields: Record<string, string>, status: number): Promise<Answer> {
    const form = new URLSearchParams({ _csrf: this.csrf, ...fields });
    return this.take(await this.http.expect(status, 'POST', path, { headers: this.cookieHeader, form }));
  }

  /**
   * Posts a form, which answers 303 carried out or refused (Post/Redirect/Get), and reads the page it
   * leads to, insisting on that page's status (a refusal's page keeps the refusal's).
   */
  async submit(path: string, fields: Record<string, string>, pageStatus: number): Promise<Answer> {
    await this.post(path, fields, 303);
    const location = this.http.answers.at(-1)?.headers.match(/^location: (.+)$/m)?.[1];
    if (location === undefined) throw new Error(`POST ${path}: a 303 without a Location`);
    return this.get(location, pageStatus);
  }
}

/** The newest code mailed to `email` under a subject matching `subject` (the sandbox's mailbox). */
export async function mailedCode(http: Recorder, email: string, subject: RegExp): Promise<string> {
  const res = await fetch(`${http.url}/_sim/mailbox?to=${encodeURIComponent(email)}`);
  const mails = (await res.json()) as { subject: string; text: string }[];
  const code = /\b(\d{6})\b/.exec(mails.find((m) => subject.test(m.subject))?.text ?? '')?.[1];
  if (code === undefined) throw new Error(`no mail matching ${subject} to ${email}`);
  return code;
}

/** A six-digit code that is not `code`. */
export const wrongCode = (code: string): string =>
  code.slice(0, 5) + String((Number(code.slice(5)) + 1) % 10);
