/**
 * Commands to one lock through each surface that sends them (v3, the partner endpoint, v1 control,
 * the dashboard's JSON API and its form), for the command budget's tests. Each waits for its task to
 * end, so no command meets a running one (DEVICE_IS_BUSY) and every answer is the budget's or the
 * lock's.
 */
import assert from 'node:assert/strict';
import { FormClient, refusedTo } from '../../dashboard/support.ts';
import { eventually } from '../../support/eventually.ts';
import { OWNER, OWNER_KEY, type TestServer } from '../../support/server.ts';
import { call, type Reply } from './helpers.ts';

export type Surface = 'v3' | 'partner' | 'v1' | 'dashboard-api' | 'dashboard-form';
export const SURFACES: readonly Surface[] = ['v3', 'partner', 'v1', 'dashboard-api', 'dashboard-form'];

/** A surface's answer: `carried` when the command was accepted and ran to its end. */
export interface Sent {
  readonly surface: Surface;
  readonly reply: Reply;
  readonly carried: boolean;
}

/** The v1 token of an account (the v1 login limits allow far more than a test needs). */
export async function v1Token(t: TestServer, email = OWNER, password = 'owner-password'): Promise<string> {
  const reply = await call(t, '/v1/accounts/login', { method: 'POST', json: { email, password } });
  const token = (reply.body as { authorization?: unknown }).authorization;
  assert.equal(typeof token, 'string', `v1 login: ${reply.status} ${JSON.stringify(reply.body)}`);
  return token as string;
}

/** Polls the task until it has ended (the simulated lock answers at once; the deadline ends the rest). */
export async function waitEnded(t: TestServer, taskId: string, key = OWNER_KEY): Promise<void> {
  await eventually(`task ${taskId} to end`, async () => {
    const reply = await call(t, `/public/action-result?task_id=${taskId}`, { key });
    assert.equal(reply.status, 200, `action-result: ${JSON.stringify(reply.body)}`);
    return (reply.body as { status: string }).status === 'terminated';
  });
}

/** One account's ways to command its locks: its API key, its v1 token, a dashboard session. */
export class Commander {
  private constructor(
    private readonly t: TestServer,
    readonly key: string,
    readonly token: string,
    readonly browser: FormClient,
  ) {}

  static async start(
    t: TestServer,
    email = OWNER,
    password = 'owner-password',
    key = OWNER_KEY,
  ): Promise<Commander> {
    const browser = new FormClient(t);
    await browser.logIn(email, password);
    return new Commander(t, key, await v1Token(t, email, password), browser);
  }

  /** `command` to `lock` through `surface`; for the asynchronous surfaces, waits for the task to end. */
  async send(surface: Surface, lock: string, command: 'lock' | 'unlock'): Promise<Sent> {
    const { t } = this;
    let reply: Reply;
    let taskId: string | undefined;
    let formCarried = false;
    switch (surface) {
      case 'v3':
        reply = await call(t, `/public/lock/${lock}`, { method: 'POST', key: this.key, json: { command } });
        taskId = reply.status === 200 ? (reply.body as { task_id: string }).task_id : undefined;
        break;
      case 'partner':
        reply = await call(t, '/public/partners/automation', {
          method: 'POST',
          json: { apikey: this.key, command, device_id: lock },
        });
        taskId = reply.status === 200 ? (reply.body as { task_id: string }).task_id : undefined;
        break;
      case 'v1':
        reply = await call(t, `/v1/locks/${lock}/control`, {
          method: 'POST',
          json: { type: command },
          headers: { 'x-authorization': this.token },
        });
        break;
      case 'dashboard-api':
        reply = await call(t, `/dashboard/api/locks/${lock}/commands`, {
          method: 'POST',
          json: { command },
          headers: { cookie: this.browser.cookieHeader(), 'x-csrf-token': this.browser.csrf },
        });
        taskId = reply.status === 202 ? (reply.body as { task_id: string }).task_id : undefined;
        break;
      case 'dashboard-form': {
        // The form waits for the task to end, as v1 does, then redirects to the page (303), carried
        // out or refused; the reply is the page the redirect leads to (a refusal's status and wait).
        const page = await this.browser.send(`/dashboard/locks/${lock}/command`, { command });
        formCarried = page.posted === 303 && !refusedTo(page.location);
        reply = {
          status: page.status,
          headers: Object.fromEntries(page.res.headers),
          body: page.text,
        };
        break;
      }
    }
    if (taskId !== undefined) await waitEnded(t, taskId, this.key);
    const carried = (surface === 'v1' && reply.status === 204) || formCarried || taskId !== undefined;
    return { surface, reply, carried };
  }
}

/** The text of the page's notice, without its markup. */
export function pageText(html: string): string {
  return html
    .replace(/<[^>]+>/g, ' ')
    .replace(/&#39;|&rsquo;|&#x27;/g, "'")
    .replace(/\s+/g, ' ');
}
