/**
 * Issue 20, points 2 and 3, over plain HTTP as a browser sends them: every form that is carried out
 * answers 303 (Post/Redirect/Get) and its page says how it went once; a new secret is shown once
 * through a one-time handle (wrong, old, reused or another browser's: 410 and a clear page, never a
 * 500); every field error of a form at once; the delivery log as JSON; an unverified login's way on;
 * and where the sandbox's mail is read.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { BetterSqlite3 } from '../../src/adapters/stores/sqlite/better-sqlite3.ts';
import { eventually } from '../support/eventually.ts';
import {
  advanceClock,
  LOCK_A,
  LOCK_B,
  OTHER,
  OWNER,
  OWNER_KEY,
  sendCommand,
  startServer,
  type TestServer,
} from '../support/server.ts';
import { type Receiver, startReceiver } from '../support/webhook-receiver.ts';
import { FormClient, latestCode } from './support.ts';

const noticeOf = (page: string) => /data-testid="notice">([^<]*)</.exec(page)?.[1];
const keyCount = (page: string) => (page.match(/data-key-id="/g) ?? []).length;
const KEY = /lck_[A-Za-z0-9_-]{32}/;

async function unlocked(t: TestServer, email: string, password: string): Promise<FormClient> {
  const c = new FormClient(t);
  await c.logIn(email, password);
  await c.get('/dashboard/api-settings');
  await c.submit('/dashboard/api-settings/code', {});
  const confirmed = await c.submit('/dashboard/api-settings/confirm', {
    code: await latestCode(t, email, /API Settings code/),
  });
  assert.equal(noticeOf(confirmed.text), 'Confirmed. You can now add keys and change the webhook.');
  return c;
}

describe('dashboard forms redirect after a POST; new secrets through a one-time handle', () => {
  let t: TestServer;
  let receiver: Receiver;
  let owner: FormClient;
  before(async () => {
    receiver = await startReceiver();
    t = await startServer({ flags: ['--no-rate-limit'] });
    owner = await unlocked(t, OWNER, 'owner-password');
  });
  after(async () => {
    await t?.close();
    await receiver?.close();
  });

  it('"Add a key": 303 to a handle that shows the key once; a reload is 410 and makes no key', async () => {
    const before = keyCount((await owner.get('/dashboard/api-settings')).text);
    const posted = await owner.post('/dashboard/api-settings/keys', {});
    assert.equal(posted.status, 303);
    const location = posted.res.headers.get('location') ?? '';
    assert.match(location, /^\/dashboard\/api-settings\/secret\/[A-Za-z0-9_-]{22}$/);
    assert.doesNotMatch(posted.text, KEY, 'the redirect carries no key');

    const shown = await owner.get(location);
    assert.equal(shown.status, 200);
    assert.equal(shown.res.headers.get('cache-control'), 'no-store');
    const key = /data-testid="revealed-key">([^<]+)</.exec(shown.text)?.[1] ?? '';
    assert.match(key, KEY);
    assert.equal(noticeOf(shown.text), 'A new key is ready.');
    assert.equal(keyCount(shown.text), before + 1);
    assert.equal((await t.request('/public/locks', { key })).status, 200, 'the key works');

    // The reload: the handle is spent, the key is not shown again, and no second key is made.
    const again = await owner.get(location);
    assert.equal(again.status, 410);
    assert.match(noticeOf(again.text) ?? '', /cannot show it again/);
    assert.ok(!again.text.includes(key), 'the key is not in the page');
    assert.equal(keyCount(again.text), before + 1);

    // Kept only as a hash: the database holds no key in clear.
    const db = new BetterSqlite3(join(t.dataDir, 'lockcloud.sqlite'), { readonly: true });
    try {
      assert.ok(!JSON.stringify(db.prepare('SELECT * FROM api_keys').all()).includes(key));
    } finally {
      db.close();
    }
  });

  it('a handle that is malformed, unknown, too old or another browser’s: 410 and a clear page', async () => {
    for (const bad of ['x', 'A'.repeat(22), `${'A'.repeat(21)}!`, 'A'.repeat(200)]) {
      const res = await owner.get(`/dashboard/api-settings/secret/${encodeURIComponent(bad)}`);
      assert.equal(res.status, 410, bad);
      assert.match(noticeOf(res.text) ?? '', /cannot show it again/, bad);
    }

    // Another browser (another session of the same account, and another account) gets 410, and the
    // handle stays for the browser that made it.
    const posted = await owner.post('/dashboard/api-settings/keys', {});
    const location = posted.res.headers.get('location') ?? '';
    const sameAccount = new FormClient(t);
    await sameAccount.logIn(OWNER, 'owner-password');
    const stranger = new FormClient(t);
    await stranger.logIn(OTHER, 'other-password');
    for (const c of [sameAccount, stranger]) {
      const res = await c.get(location);
      assert.equal(res.status, 410);
      assert.doesNotMatch(res.text, KEY);
    }
    const anonymous = await fetch(t.url + location, { redirect: 'manual' });
    assert.equal(anonymous.status, 303, 'without a session: to the login page');
    assert.match((await owner.get(location)).text, /data-testid="revealed-key">lck_/);

    // Two minutes on the server's clock: gone unseen.
    const late = (await owner.post('/dashboard/api-settings/keys', {})).res.headers.get('location') ?? '';
    await advanceClock(t, 121);
    const expired = await owner.get(late);
    assert.equal(expired.status, 410);
    assert.doesNotMatch(expired.text, KEY);
  });

  it('the webhook: saving it the first time and rotating show the secret once; "Send test" sends once', async () => {
    await t.request('/_sim/reset', { method: 'POST' });
    const c = await unlocked(t, OWNER, 'owner-password');
    const saved = await c.post('/dashboard/api-settings/webhook', {
      url: `${receiver.url}/hook/{device_id}/{state}`,
      method: 'POST',
    });
    assert.equal(saved.status, 303);
    const first = await c.get(saved.res.headers.get('location') ?? '');
    assert.match(first.text, /data-testid="revealed-webhook-secret">whsec_/);
    assert.equal((await c.get(saved.res.headers.get('location') ?? '')).status, 410);

    const rotated = await c.post('/dashboard/api-settings/webhook/rotate', {});
    assert.match(rotated.res.headers.get('location') ?? '', /^\/dashboard\/api-settings\/secret\//);

    const test = await c.post('/dashboard/api-settings/webhook/test', {});
    assert.equal(test.status, 303);
    const location = test.res.headers.get('location') ?? '';
    assert.match(location, /^\/dashboard\/api-settings\?note=[A-Za-z0-9_-]{22}$/);
    const page = await c.get(location);
    assert.equal(noticeOf(page.text), 'A test message is on its way; see the delivery log.');
    // The reload shows the page without the notice, and sends nothing.
    const reload = await c.get(location);
    assert.equal(reload.status, 200);
    assert.equal(noticeOf(reload.text), undefined);
    await receiver.waitFor(1);
    const log = await c.get('/dashboard/api/deliveries');
    const { deliveries } = JSON.parse(log.text) as { deliveries: { event: string; lock: string }[] };
    assert.equal(deliveries.length, 1, 'one test message');
    assert.equal(deliveries[0]?.event, 'test');
    // The test message reports one of the account's locks by its nickname, and its state.
    assert.match(deliveries[0]?.lock ?? '', /^(Front|Back) door — locked$/);
  });

  it('the delivery log as JSON names the lock and its new state; 403 while API Settings are locked, 401 without a session', async () => {
    const c = await unlocked(t, OWNER, 'owner-password');
    const unlocking = await sendCommand(t, LOCK_A, 'unlock', OWNER_KEY);
    assert.equal(unlocking.status, 200);
    const lock = await eventually('the state change in the delivery log', async () => {
      const { deliveries } = JSON.parse((await c.get('/dashboard/api/deliveries')).text) as {
        deliveries: { event: string; lock: string }[];
      };
      return deliveries.find((d) => d.event === 'state changed')?.lock;
    });
    assert.equal(lock, 'Front door — unlocked');
    const page = await c.get('/dashboard/api-settings');
    assert.match(page.text, /<td>Front door — unlocked<\/td>/);

    await c.submit('/dashboard/api-settings/lock', {});
    const locked = await c.get('/dashboard/api/deliveries');
    assert.equal(locked.status, 403);
    assert.equal((JSON.parse(locked.text) as { error: string }).error, 'FORBIDDEN');
    const anonymous = await fetch(`${t.url}/dashboard/api/deliveries`);
    assert.equal(anonymous.status, 401);
    assert.deepEqual(await anonymous.json(), { error: 'UNAUTHORIZED', message: 'Log in again.' });
  });

  it('every other change redirects, and its page says how it went once', async () => {
    const c = new FormClient(t);
    await c.logIn(OWNER, 'owner-password');
    const steps: [string, Record<string, string>, RegExp, string][] = [
      [
        `/dashboard/locks/${LOCK_B}/integration`,
        { enabled: 'off' },
        /^\/dashboard\/locks\?note=/,
        'Cloud integration is off for Back door.',
      ],
      [
        `/dashboard/locks/${LOCK_B}/integration`,
        { enabled: 'on' },
        /^\/dashboard\/locks\?note=/,
        'Cloud integration is on for Back door.',
      ],
      [
        `/dashboard/locks/${LOCK_B}/app`,
        { open: 'yes' },
        /^\/dashboard\/locks\?note=/,
        'The mobile app is open: it holds Back door.',
      ],
      [
        `/dashboard/locks/${LOCK_B}/app`,
        { open: 'no' },
        /^\/dashboard\/locks\?note=/,
        'The mobile app is closed: it released Back door.',
      ],
      [
        `/dashboard/locks/${LOCK_B}/grants`,
        { email: OTHER, role: 'view' },
        /^\/dashboard\/locks\?note=/,
        `${OTHER} is invited to Back door: the lock is theirs to use once they accept.`,
      ],
      [
        `/dashboard/locks/${LOCK_B}/command`,
        { command: 'unlock' },
        /^\/dashboard\/locks\?note=/,
        'Unlocked.',
      ],
      [`/dashboard/locks/${LOCK_B}/command`, { command: 'lock' }, /^\/dashboard\/locks\?note=/, 'Locked.'],
    ];
    for (const [path, fields, location, text] of steps) {
      const page = await c.submit(path, fields);
      assert.match(page.location, location, path);
      assert.equal(page.status, 200, path);
      assert.equal(noticeOf(page.text), text, path);
      assert.equal(noticeOf((await c.get(page.location)).text), undefined, `${path}: once`);
    }
    const changed = await c.submit('/dashboard/account/password', {
      current_password: 'owner-password',
      new_password: 'owner-password-2',
    });
    assert.match(changed.location, /^\/dashboard\/account\?note=/);
    assert.equal(
      noticeOf(changed.text),
      'Your password is changed. Other browsers and v1 logins are signed out.',
    );
  });

  it('a refused change redirects too; its page shows it with its status, and nothing was done', async () => {
    const c = new FormClient(t);
    await c.logIn(OWNER, 'owner-password-2');
    const refused = await c.send(`/dashboard/locks/${LOCK_B}/grants`, {
      email: 'not-an-address',
      role: 'view',
    });
    assert.equal(refused.posted, 303);
    assert.match(refused.location, /^\/dashboard\/locks\?refused=[A-Za-z0-9_-]{22}$/);
    assert.equal(refused.status, 400);
    assert.match(refused.text, /<details class="lock-more" open>/, 'the fold with the error is open');
    assert.match(refused.text, /class="field-error" id="inv-[^"]+-email-error">/);
  });
});

describe('dashboard forms show every field error at once', () => {
  let t: TestServer;
  before(async () => {
    t = await startServer({ flags: ['--no-rate-limit'] });
  });
  after(() => t.close());

  const fieldError = (page: string, name: string) =>
    new RegExp(`<p class="field-error" id="f-${name}-error">[^<]+</p>`).exec(page)?.[0];

  it('sign-up: the e-mail and the password error together', async () => {
    const c = new FormClient(t);
    await c.get('/dashboard/signup');
    const res = await c.send('/dashboard/signup', { email: 'not-an-address', password: 'short' });
    assert.equal(res.posted, 303);
    assert.equal(res.status, 400);
    assert.equal(noticeOf(res.text), 'Check the form.');
    assert.match(fieldError(res.text, 'email') ?? '', /is not an e-mail address/);
    assert.match(fieldError(res.text, 'password') ?? '', /password/i);
    // One wrong field: only that one.
    const one = await c.send('/dashboard/signup', { email: 'fine@example.com', password: 'short' });
    assert.equal(fieldError(one.text, 'email'), undefined);
    assert.ok(fieldError(one.text, 'password'));
  });

  it('verify, reset and the password change: every wrong field', async () => {
    const c = new FormClient(t);
    await c.get('/dashboard/verify');
    const verify = await c.send('/dashboard/verify', { email: '', code: 'abc' });
    assert.equal(verify.status, 400);
    assert.ok(fieldError(verify.text, 'email') && fieldError(verify.text, 'code'));
    const reset = await c.send('/dashboard/reset', { email: 'x', code: '1', password: '' });
    assert.equal(reset.status, 400);
    for (const name of ['email', 'code', 'password']) assert.ok(fieldError(reset.text, name), name);

    await c.logIn(OWNER, 'owner-password');
    await c.get('/dashboard/account');
    const change = await c.send('/dashboard/account/password', { current_password: '', new_password: 'x' });
    assert.equal(change.status, 400);
    assert.ok(fieldError(change.text, 'current_password') && fieldError(change.text, 'new_password'));
  });
});

describe('an unverified login and the sandbox mailbox', () => {
  let t: TestServer;
  before(async () => {
    t = await startServer({ flags: ['--no-rate-limit'] });
  });
  after(() => t.close());

  it('login says to verify first, links to the verify page and offers a new code (a redirect, once)', async () => {
    const email = 'waiting@example.com';
    const c = new FormClient(t);
    await c.get('/dashboard/signup');
    await c.post('/dashboard/signup', { email, password: 'waiting-password' });
    await latestCode(t, email, /verification code/);
    await c.get('/dashboard/login');
    const res = await c.send('/dashboard/login', { email, password: 'waiting-password' });
    assert.equal(res.posted, 303);
    assert.doesNotMatch(res.location, /waiting/, 'the address is not in the URL');
    assert.equal(res.status, 403);
    assert.match(res.text, /Verify your e-mail address first/);
    assert.match(
      res.text,
      /<a href="\/dashboard\/verify\?email=waiting%40example\.com">Enter the code from the mail<\/a>/,
    );
    assert.match(
      res.text,
      /<form method="post" action="\/dashboard\/verify\/resend"><input type="hidden" name="_csrf" value="[^"]+"><input type="hidden" name="email" value="waiting@example.com">/,
    );
    const resent = await c.submit('/dashboard/verify/resend', { email });
    assert.equal(resent.location, '/dashboard/verify?ok=resent&email=waiting%40example.com');
    assert.equal(noticeOf(resent.text), 'If this address waits for verification, a new code is on its way.');
    assert.match(resent.text, /name="email" type="email" value="waiting@example.com"/);
    // A wrong password for the same address says nothing of verification.
    const wrong = await c.send('/dashboard/login', { email, password: 'not-the-password' });
    assert.doesNotMatch(wrong.text, /data-testid="unverified"/);
  });

  it('login, verify, forgot and reset say where the sandbox’s mail is read, linked for a known address', async () => {
    const c = new FormClient(t);
    for (const path of ['/dashboard/login', '/dashboard/verify', '/dashboard/forgot', '/dashboard/reset']) {
      const page = await c.get(path);
      assert.match(
        page.text,
        /data-testid="sandbox-mail">Sandbox mode: no mail leaves this server\. Read it at <code>\/_sim\/mailbox\?to=&lt;address&gt;<\/code>/,
        path,
      );
    }
    const known = await c.get('/dashboard/verify?email=a%40example.com');
    assert.match(
      known.text,
      /<a href="\/_sim\/mailbox\?to=a%40example\.com">\/_sim\/mailbox\?to=a@example\.com<\/a>/,
    );
    const link = /<a href="(\/_sim\/mailbox\?to=[^"]+)">/.exec(known.text)?.[1] ?? '';
    assert.equal((await t.request(link)).status, 200, 'the link answers');
  });
});

describe('production mode: no sandbox mailbox to point at', () => {
  let t: TestServer;
  before(async () => {
    t = await startServer({ flags: ['--production'] });
  });
  after(() => t.close());

  it('the pages say nothing of /_sim/mailbox', async () => {
    const c = new FormClient(t);
    for (const path of ['/dashboard/login', '/dashboard/verify?email=a%40example.com', '/dashboard/forgot'])
      assert.doesNotMatch((await c.get(path)).text, /_sim\/mailbox/, path);
  });
});
