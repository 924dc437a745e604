/**
 * Issue 20, point 2: "Redirect after every POST", refusals included. A refused form answers 303 to
 * its page with a one-time handle (`?refused=<handle>`, nothing else in the URL); that page shows
 * every error and the refilled values with the refusal's status (and Retry-After), once; a reload
 * shows the plain form and sends nothing, so it spends no second code attempt. A handle of another
 * browser, or older than two minutes on the server's clock, shows the plain form.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { BetterSqlite3 } from '../../src/adapters/stores/sqlite/better-sqlite3.ts';
import { advanceClock, LOCK_B, OTHER, OWNER, startServer, type TestServer } from '../support/server.ts';
import { FormClient, latestCode } from './support.ts';

const noticeOf = (page: string) => /data-testid="notice">([^<]*)</.exec(page)?.[1];
const fieldErrors = (page: string) =>
  [...page.matchAll(/<p class="field-error" id="([^"]+)-error">/g)].map((m) => m[1]).sort();
const HANDLE = /^[A-Za-z0-9_-]{22}$/;
/** Typed into refused forms: none of it may reach a URL, and a password or a code no page. */
const TYPED_PASSWORD = 'Typed-Pa55word-9c';
const TYPED_CODE = '98765';

interface Refusal {
  readonly path: string;
  readonly fields: Record<string, string>;
  /** The page the refusal redirects to. */
  readonly page: string;
  readonly status: number;
  readonly notice: RegExp;
  /** The ids of the fields shown with an error. */
  readonly errors: readonly string[];
  /** What the page refills (the e-mail field's value attribute, a webhook URL, a nickname). */
  readonly refilled?: RegExp;
}

/** Posts, checks the redirect and the page it leads to, then that a reload shows the plain form. */
async function refusedOnce(c: FormClient, r: Refusal): Promise<void> {
  const what = `${r.path} ${JSON.stringify(r.fields)}`;
  const posted = await c.post(r.path, r.fields);
  assert.equal(posted.status, 303, `${what}: ${posted.text.slice(0, 200)}`);
  assert.equal(posted.text, '', `${what}: the redirect carries no page`);
  const location = posted.res.headers.get('location') ?? '';
  const [page, query = ''] = location.split('?');
  assert.equal(page, r.page, what);
  const params = new URLSearchParams(query);
  assert.deepEqual([...params.keys()], ['refused'], `${what}: only the handle in ${location}`);
  assert.match(params.get('refused') ?? '', HANDLE, what);
  for (const value of Object.values(r.fields))
    if (value.length > 2)
      assert.ok(!decodeURIComponent(location).includes(value), `${what}: ${value} in the URL`);

  const shown = await c.get(location);
  assert.equal(shown.status, r.status, `${what}: ${shown.text.slice(0, 300)}`);
  assert.equal(shown.res.headers.get('cache-control'), 'no-store', what);
  assert.match(noticeOf(shown.text) ?? '', r.notice, what);
  assert.deepEqual(fieldErrors(shown.text), [...r.errors].sort(), what);
  if (r.refilled) assert.match(shown.text, r.refilled, `${what}: refilled`);
  assert.ok(!shown.text.includes(TYPED_PASSWORD), `${what}: the password is not in the page`);
  assert.ok(!shown.text.includes(TYPED_CODE), `${what}: the code is not in the page`);

  const reload = await c.get(location);
  assert.equal(reload.status, 200, `${what}: reload`);
  assert.equal(reload.res.headers.get('retry-after'), null, `${what}: reload`);
  assert.equal(noticeOf(reload.text), undefined, `${what}: the reload shows the plain form`);
  assert.deepEqual(fieldErrors(reload.text), [], `${what}: reload`);
  if (r.refilled) assert.doesNotMatch(reload.text, r.refilled, `${what}: reload refills nothing`);
}

/** The attempts spent on the account's live codes, as the store counts them. */
function codeAttempts(t: TestServer, email: string): number {
  const db = new BetterSqlite3(join(t.dataDir, 'lockcloud.sqlite'), { readonly: true });
  try {
    const row = db
      .prepare(
        'SELECT coalesce(sum(c.attempts), 0) AS n FROM one_time_codes c JOIN accounts a ON a.id = c.account_id WHERE a.email = ?',
      )
      .get(email) as { n: number };
    return row.n;
  } finally {
    db.close();
  }
}

describe('every refused dashboard form redirects; its page shows the refusal once', () => {
  let t: TestServer;
  before(async () => {
    t = await startServer({ flags: ['--no-rate-limit'] });
  });
  after(() => t.close());

  it('log in, sign up, verify, resend, forgot and reset: 303 with a handle, every error, the address refilled, once', async () => {
    const c = new FormClient(t);
    await c.get('/dashboard/login');
    const refusals: Refusal[] = [
      {
        path: '/dashboard/login',
        fields: { email: OWNER, password: TYPED_PASSWORD, next: '/dashboard/account' },
        page: '/dashboard/login',
        status: 400,
        notice: /^Wrong e-mail or password\./,
        errors: [],
        refilled:
          /name="next" value="\/dashboard\/account">[\s\S]*name="email" type="email" value="owner@example\.com"/,
      },
      {
        path: '/dashboard/signup',
        fields: { email: 'not-an-address', password: 'short' },
        page: '/dashboard/signup',
        status: 400,
        notice: /^Check the form\.$/,
        errors: ['f-email', 'f-password'],
        refilled: /name="email" type="email" value="not-an-address"/,
      },
      {
        path: '/dashboard/verify',
        fields: { email: 'someone@', code: TYPED_CODE },
        page: '/dashboard/verify',
        status: 400,
        notice: /^Check the form\.$/,
        errors: ['f-code', 'f-email'],
        refilled: /name="email" type="email" value="someone@"/,
      },
      {
        path: '/dashboard/verify/resend',
        fields: { email: 'resend-nowhere' },
        page: '/dashboard/verify',
        status: 400,
        notice: /^Check the form\.$/,
        errors: ['f-email'],
        refilled: /name="email" type="email" value="resend-nowhere"/,
      },
      {
        path: '/dashboard/forgot',
        fields: { email: 'forgot-nowhere' },
        page: '/dashboard/forgot',
        status: 400,
        notice: /^Check the form\.$/,
        errors: ['f-email'],
        refilled: /name="email" type="email" value="forgot-nowhere"/,
      },
      {
        path: '/dashboard/reset',
        fields: { email: 'reset-nowhere', code: TYPED_CODE, password: 'short' },
        page: '/dashboard/reset',
        status: 400,
        notice: /^Check the form\.$/,
        errors: ['f-code', 'f-email', 'f-password'],
        refilled: /name="email" type="email" value="reset-nowhere"/,
      },
    ];
    for (const r of refusals) await refusedOnce(c, r);
  });

  it('an unverified login: 403 on its page, with the way to the code; the address in no URL', async () => {
    const email = 'waiting-prg@example.com';
    const c = new FormClient(t);
    await c.get('/dashboard/signup');
    await c.submit('/dashboard/signup', { email, password: 'waiting-password' });
    await refusedOnce(c, {
      path: '/dashboard/login',
      fields: { email, password: 'waiting-password' },
      page: '/dashboard/login',
      status: 403,
      notice: /^Verify your e-mail address first/,
      errors: [],
      refilled: /data-testid="unverified"[\s\S]*name="email" value="waiting-prg@example\.com"/,
    });
  });

  it('the signed-in forms: password, delete, API Settings, webhook, invitation, lock settings and commands, a simulated lock', async () => {
    const c = new FormClient(t);
    await c.logIn(OTHER, 'other-password');
    const settings = '/dashboard/api-settings';
    const locked = /^Confirm the API Settings code first/i;
    const refusals: Refusal[] = [
      {
        path: '/dashboard/account/password',
        fields: { current_password: TYPED_PASSWORD, new_password: 'x' },
        page: '/dashboard/account',
        status: 400,
        notice: /^Check the form\.$/,
        errors: ['f-new_password'],
      },
      {
        path: '/dashboard/account/password',
        fields: { current_password: TYPED_PASSWORD, new_password: 'a-long-new-password' },
        page: '/dashboard/account',
        status: 400,
        notice: /^Check the form\.$/,
        errors: ['f-current_password'],
      },
      {
        path: '/dashboard/account/delete',
        fields: { password: TYPED_PASSWORD },
        page: '/dashboard/account',
        status: 400,
        notice: /^Check the form\.$/,
        errors: ['f-password'],
      },
      {
        path: `${settings}/confirm`,
        fields: { code: TYPED_CODE },
        page: settings,
        status: 400,
        notice: /^Check the form\.$/,
        errors: ['f-code'],
      },
      { path: `${settings}/keys`, fields: {}, page: settings, status: 403, notice: locked, errors: [] },
      {
        path: `${settings}/webhook/test`,
        fields: {},
        page: settings,
        status: 403,
        notice: locked,
        errors: [],
      },
      {
        path: `${settings}/webhook/rotate`,
        fields: {},
        page: settings,
        status: 403,
        notice: locked,
        errors: [],
      },
      {
        path: `/dashboard/locks/${LOCK_B}/integration`,
        fields: { enabled: 'on' },
        page: '/dashboard/locks',
        status: 404,
        notice: /^No such lock or task in this account\.$/,
        errors: [],
      },
      {
        path: `/dashboard/locks/${LOCK_B}/command`,
        fields: { command: 'unlock' },
        page: '/dashboard/locks',
        status: 404,
        notice: /^No such lock or task in this account\.$/,
        errors: [],
      },
      {
        path: '/dashboard/locks/simulated',
        fields: { nickname: 'n'.repeat(129) },
        page: '/dashboard/locks',
        status: 400,
        notice: /^Check the form\.$/,
        errors: ['f-nickname'],
        refilled: new RegExp(`name="nickname" type="text" value="${'n'.repeat(129)}"`),
      },
    ];
    for (const r of refusals) await refusedOnce(c, r);
    // The owner's invitation form: its errors next to the lock's fields, in the fold left open, the
    // address refilled.
    const owner = new FormClient(t);
    await owner.logIn(OWNER, 'owner-password');
    await refusedOnce(owner, {
      path: `/dashboard/locks/${LOCK_B}/grants`,
      fields: { email: 'share-nowhere', role: 'visit' },
      page: '/dashboard/locks',
      status: 400,
      notice: /^Check the form\.$/,
      errors: [`inv-${LOCK_B}-role`],
      refilled: /<details class="lock-more" open>[\s\S]*name="email" type="email" value="share-nowhere"/,
    });
    await refusedOnce(owner, {
      path: `/dashboard/locks/${LOCK_B}/grants`,
      fields: { email: 'share-nowhere', role: 'view' },
      page: '/dashboard/locks',
      status: 400,
      notice: /^Check the form\.$/,
      errors: [`inv-${LOCK_B}-email`],
      refilled: /<details class="lock-more" open>/,
    });

    // Unlocked: the webhook form is refilled as sent, its URL's error next to it.
    await c.submit(`${settings}/code`, {});
    await c.submit(`${settings}/confirm`, { code: await latestCode(t, OTHER, /API Settings code/) });
    await refusedOnce(c, {
      path: `${settings}/webhook`,
      fields: { url: 'ftp://hooks.example/x', method: 'GET' },
      page: settings,
      status: 400,
      notice: /^Check the form\.$/,
      errors: ['f-url'],
      refilled:
        /name="url" type="url" value="ftp:\/\/hooks\.example\/x"[\s\S]*<option selected>GET<\/option>/,
    });
  });

  it('a reload of a wrong code’s page spends no attempt: the store counts one', async () => {
    const email = 'codes-prg@example.com';
    const c = new FormClient(t);
    await c.get('/dashboard/signup');
    await c.submit('/dashboard/signup', { email, password: 'codes-password' });
    const code = await latestCode(t, email, /verification code/);
    const wrong = code.slice(0, 5) + String((Number(code[5]) + 1) % 10);
    assert.equal(codeAttempts(t, email), 0);
    const posted = await c.post('/dashboard/verify', { email, code: wrong });
    const location = posted.res.headers.get('location') ?? '';
    assert.equal(codeAttempts(t, email), 1);
    assert.equal((await c.get(location)).status, 400);
    for (let i = 0; i < 3; i++) assert.equal((await c.get(location)).status, 200);
    assert.equal(codeAttempts(t, email), 1, 'the reloads spent nothing');

    // API Settings likewise: one wrong code, then reloads; the page still offers 4 attempts.
    const owner = new FormClient(t);
    await owner.logIn(OWNER, 'owner-password');
    await owner.submit('/dashboard/api-settings/code', {});
    const before = codeAttempts(t, OWNER);
    const confirm = await owner.post('/dashboard/api-settings/confirm', { code: '000000' });
    const page = confirm.res.headers.get('location') ?? '';
    assert.match((await owner.get(page)).text, /4 attempts left/);
    for (let i = 0; i < 3; i++) await owner.get(page);
    assert.equal(codeAttempts(t, OWNER), before + 1);
    const next = await owner.send('/dashboard/api-settings/confirm', { code: '000000' });
    assert.match(next.text, /3 attempts left/, 'the next wrong code is the second');
  });

  it('a handle of another browser, or two minutes old on the server’s clock, shows the plain form', async () => {
    const mine = new FormClient(t);
    await mine.get('/dashboard/signup');
    const other = new FormClient(t);
    await other.get('/dashboard/signup');
    const posted = await mine.post('/dashboard/signup', { email: 'theirs-nowhere', password: 'short' });
    const location = posted.res.headers.get('location') ?? '';
    const stranger = await other.get(location);
    assert.equal(stranger.status, 200);
    assert.equal(noticeOf(stranger.text), undefined);
    assert.doesNotMatch(stranger.text, /theirs-nowhere/);
    const anonymous = await fetch(t.url + location, { redirect: 'manual' });
    assert.equal(anonymous.status, 200);
    assert.doesNotMatch(await anonymous.text(), /theirs-nowhere|field-error/);
    // Left in place for the browser that made it.
    const shown = await mine.get(location);
    assert.equal(shown.status, 400);
    assert.match(shown.text, /value="theirs-nowhere"/);

    const late = (
      await mine.post('/dashboard/signup', { email: 'late-nowhere', password: 'short' })
    ).res.headers.get('location');
    await advanceClock(t, 121);
    const expired = await mine.get(late ?? '');
    assert.equal(expired.status, 200);
    assert.equal(noticeOf(expired.text), undefined);
    assert.doesNotMatch(expired.text, /late-nowhere/);
  });
});

describe('a throttled form: its page keeps the 429 and Retry-After, once', () => {
  let t: TestServer;
  before(async () => {
    t = await startServer();
  });
  after(() => t.close());

  it('too many logins: 303, then 429 with Retry-After and the wait in words; the reload is the plain form', async () => {
    const c = new FormClient(t);
    await c.get('/dashboard/login');
    let res = await c.send('/dashboard/login', { email: OWNER, password: TYPED_PASSWORD });
    for (let i = 0; i < 12 && res.status === 400; i++)
      res = await c.send('/dashboard/login', { email: OWNER, password: TYPED_PASSWORD });
    assert.equal(res.posted, 303);
    assert.match(res.location, /^\/dashboard\/login\?refused=[A-Za-z0-9_-]{22}$/);
    assert.equal(res.status, 429);
    const wait = Number(res.res.headers.get('retry-after'));
    assert.ok(wait >= 1, `Retry-After ${wait}`);
    assert.equal(noticeOf(res.text), `Too many attempts. Try again in ${wait} s.`);
    assert.match(res.text, /name="email" type="email" value="owner@example\.com"/);
    const reload = await c.get(res.location);
    assert.equal(reload.status, 200);
    assert.equal(reload.res.headers.get('retry-after'), null);
    assert.equal(noticeOf(reload.text), undefined);
  });
});
