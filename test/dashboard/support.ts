/**
 * Helpers for the dashboard tests: a cookie-keeping form client for HTTP-level tests, the codes the
 * sandbox mailbox holds, and one headless Chromium per test file.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import type { TestServer } from '../support/server.ts';

/** A browser-like client: keeps cookies, reads the CSRF token of the last page, sends forms. */
export class FormClient {
  private readonly cookies = new Map<string, string>();
  csrf = '';

  constructor(private readonly t: TestServer) {}

  /** Keeps the cookies an answer sets (public for tests that send their own requests). */
  remember(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq);
      const value = pair.slice(eq + 1);
      if (/max-age=0|expires=thu, 01 jan 1970/i.test(line) || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  cookie(name: string): string | undefined {
    return this.cookies.get(name);
  }

  async get(path: string): Promise<{ status: number; text: string; res: Response }> {
    const res = await fetch(this.t.url + path, {
      headers: { cookie: this.cookieHeader() },
      redirect: 'manual',
    });
    this.remember(res);
    const text = await res.text();
    const token = /name="_csrf" value="([^"]+)"/.exec(text)?.[1];
    if (token !== undefined) this.csrf = token;
    return { status: res.status, text, res };
  }

  /** Posts a form with this browser's CSRF token unless `_csrf` is given; a list is a field sent repeatedly (checkboxes). */
  async post(
    path: string,
    fields: Record<string, string | readonly string[]>,
    headers: Record<string, string> = {},
  ): Promise<{ status: number; text: string; res: Response }> {
    const res = await fetch(this.t.url + path, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        cookie: this.cookieHeader(),
        'content-type': 'application/x-www-form-urlencoded',
        ...headers,
      },
      body: formBody({ _csrf: this.csrf, ...fields }),
    });
    this.remember(res);
    const text = await res.text();
    const token = /name="_csrf" value="([^"]+)"/.exec(text)?.[1];
    if (token !== undefined) this.csrf = token;
    return { status: res.status, text, res };
  }

  /**
   * Posts a form as a browser does and follows its 303 (Post/Redirect/Get), carried out or refused:
   * answers the page it ends on (status, text, response), with the POST's own status and Location.
   */
  async send(
    path: string,
    fields: Record<string, string | readonly string[]>,
    headers: Record<string, string> = {},
  ): Promise<{ posted: number; location: string; status: number; text: string; res: Response }> {
    const posted = await this.post(path, fields, headers);
    const location = posted.res.headers.get('location') ?? '';
    if (posted.status !== 303) return { posted: posted.status, location, ...posted };
    const page = await this.get(location);
    return { posted: posted.status, location, ...page };
  }

  /** Posts a form that must be carried out: a 303 (Post/Redirect/Get), then the page it leads to. */
  async submit(
    path: string,
    fields: Record<string, string | readonly string[]>,
  ): Promise<{ location: string; status: number; text: string }> {
    const posted = await this.post(path, fields);
    const location = posted.res.headers.get('location');
    if (posted.status !== 303 || location === null)
      throw new Error(`${path}: ${posted.status}, not a redirect: ${posted.text.slice(0, 300)}`);
    const page = await this.get(location);
    if (refusedTo(location)) throw new Error(`${path}: refused (${page.status}): ${page.text.slice(0, 600)}`);
    return { location, status: page.status, text: page.text };
  }

  async logIn(email: string, password: string): Promise<void> {
    await this.get('/dashboard/login');
    const { status, res } = await this.post('/dashboard/login', { email, password });
    if (status !== 303 || refusedTo(res.headers.get('location')))
      throw new Error(`login of ${email} refused: ${status} ${res.headers.get('location')}`);
    await this.get(res.headers.get('location') ?? '/dashboard/locks');
  }
}

/** A form body as a browser sends it: a field of several values (ticked checkboxes) once per value. */
function formBody(fields: Record<string, string | readonly string[]>): URLSearchParams {
  const body = new URLSearchParams();
  for (const [name, value] of Object.entries(fields))
    for (const one of typeof value === 'string' ? [value] : value) body.append(name, one);
  return body;
}

/**
 * Whether a form's redirect leads to the page of its refusal (`?refused=<handle>`) rather than to
 * the outcome of a change: both answer 303, since a refused form redirects too.
 */
export function refusedTo(location: string | null): boolean {
  return location !== null && /[?&]refused=/.test(location);
}

/** A form that was carried out: 303, and not to the page of a refusal. */
export function carriedOut(res: { status: number; res: Response }): boolean {
  return res.status === 303 && !refusedTo(res.res.headers.get('location'));
}

export interface MailView {
  readonly to: string;
  readonly subject: string;
  readonly text: string;
}

export async function mails(t: TestServer, email: string): Promise<MailView[]> {
  const res = await t.request(`/_sim/mailbox?to=${encodeURIComponent(email)}`);
  return (await res.json()) as MailView[];
}

/** The code of the newest mail to the address, whose subject matches. */
export async function latestCode(t: TestServer, email: string, subject: RegExp): Promise<string> {
  const mail = (await mails(t, email)).find((m) => subject.test(m.subject));
  const code = mail && /\b(\d{6})\b/.exec(mail.text)?.[1];
  if (!code) throw new Error(`no mail matching ${subject} to ${email}`);
  return code;
}

export const CHROMIUM = '/usr/bin/chromium';

export function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM))
    return Promise.reject(new Error(`no Chromium at ${CHROMIUM}: apt-get install chromium (.ci/run does)`));
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}

const SCREENSHOTS = new URL('../../docs/screenshots/', import.meta.url).pathname;

/**
 * Renders the page as a PNG (so a page that cannot be drawn fails the test). With
 * LOCKCLOUD_SCREENSHOTS=1 it is saved for the README as docs/screenshots/<name>.png, a fixed size so
 * diffs stay small; otherwise nothing is written: a test run leaves the working tree as it found it.
 */
export async function screenshot(page: Page, name: string): Promise<void> {
  if (process.env.LOCKCLOUD_SCREENSHOTS !== '1') {
    await page.screenshot({ fullPage: true });
    return;
  }
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

/** Fails the page on any CSP violation or script error: the dashboard must run under its own policy. */
export function watchForErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('console', (msg) => {
    if (msg.type() === 'error' && !/status of 4\d\d/.test(msg.text())) errors.push(msg.text());
  });
  return errors;
}
