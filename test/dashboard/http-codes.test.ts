/**
 * Codes and attempts over plain HTTP: unverified login, wrong / expired / spent / reused codes (the
 * clock moved through /_sim/clock, never slept), throttled login and code attempts, the answer for
 * an address that is taken, and what is stored: hashes, never a code or a session token.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { BetterSqlite3 } from '../../src/adapters/stores/sqlite/better-sqlite3.ts';
import { advanceClock, OTHER, OWNER, startServer, type TestServer } from '../support/server.ts';
import { carriedOut, FormClient, latestCode, mails } from './support.ts';

const PASSWORD = 'long-enough-password';

async function signUp(t: TestServer, email: string): Promise<FormClient> {
  const c = new FormClient(t);
  await c.get('/dashboard/signup');
  const res = await c.post('/dashboard/signup', { email, password: PASSWORD });
  assert.equal(res.status, 303);
  await c.get(res.res.headers.get('location') ?? '');
  return c;
}

/** A wrong code: the right one with its last digit changed. */
const wrong = (code: string) => code.slice(0, 5) + String((Number(code[5]) + 1) % 10);

describe('dashboard codes and attempts', () => {
  let t: TestServer;
  before(async () => {
    t = await startServer();
  });
  after(() => t.close());

  it('an unverified account cannot log in: 403 and a readable message', async () => {
    const c = await signUp(t, 'unverified@example.com');
    await c.get('/dashboard/login');
    const res = await c.send('/dashboard/login', { email: 'unverified@example.com', password: PASSWORD });
    assert.equal(res.posted, 303);
    assert.equal(res.status, 403);
    assert.match(res.text, /Verify your e-mail address first/);
    assert.equal(c.cookie('lc_session'), undefined);
  });

  it('counts wrong codes: 5 attempts, then even the right code is refused; the verify form says one sentence for each', async () => {
    const email = 'guesser@example.com';
    const c = await signUp(t, email);
    const code = await latestCode(t, email, /verification code/);
    for (let i = 0; i < 5; i++) {
      const res = await c.send('/dashboard/verify', { email, code: wrong(code) });
      assert.equal(res.status, 400);
      assert.match(res.text, /This code does not work for this address/);
    }
    const right = await c.send('/dashboard/verify', { email, code });
    assert.equal(right.status, 400);
    assert.match(right.text, /This code does not work for this address/);
    // A new code starts afresh.
    await c.post('/dashboard/verify/resend', { email });
    const fresh = await latestCode(t, email, /verification code/);
    assert.ok(carriedOut(await c.post('/dashboard/verify', { email, code: fresh })));
  });

  it('API Settings, signed in, say why a code is refused: attempts left, the last one, used up', async () => {
    const c = new FormClient(t);
    await c.logIn(OTHER, 'other-password');
    await c.get('/dashboard/api-settings');
    await c.post('/dashboard/api-settings/code', {});
    const code = await latestCode(t, OTHER, /API Settings code/);
    for (let left = 4; left >= 1; left--) {
      const res = await c.send('/dashboard/api-settings/confirm', { code: wrong(code) });
      assert.equal(res.status, 400);
      assert.match(res.text, new RegExp(`the code is wrong \\(${left} attempts? left\\)`, 'i'));
    }
    const last = await c.send('/dashboard/api-settings/confirm', { code: wrong(code) });
    assert.match(last.text, /that was the last attempt/);
    const right = await c.send('/dashboard/api-settings/confirm', { code });
    assert.equal(right.status, 400);
    assert.match(right.text, /too many wrong attempts/i);
  });

  it('refuses a code after its 10 minutes (the sandbox clock moved), and a code used twice', async () => {
    const email = 'slow@example.com';
    const c = await signUp(t, email);
    const code = await latestCode(t, email, /verification code/);
    await advanceClock(t, 601);
    const late = await c.send('/dashboard/verify', { email, code });
    assert.equal(late.status, 400);
    assert.match(late.text, /This code does not work for this address/);

    await c.post('/dashboard/verify/resend', { email });
    assert.ok(
      carriedOut(
        await c.post('/dashboard/verify', { email, code: await latestCode(t, email, /verification/) }),
      ),
    );
    await c.logIn(email, PASSWORD);
    await c.post('/dashboard/api-settings/code', {});
    const expiring = await latestCode(t, email, /API Settings code/);
    await advanceClock(t, 601);
    const expired = await c.send('/dashboard/api-settings/confirm', { code: expiring });
    assert.match(expired.text, /the code has expired/i);
    await c.post('/dashboard/api-settings/code', {});
    const apiCode = await latestCode(t, email, /API Settings code/);
    assert.ok(carriedOut(await c.post('/dashboard/api-settings/confirm', { code: apiCode })));
    const again = await c.send('/dashboard/api-settings/confirm', { code: apiCode });
    assert.equal(again.status, 400);
    assert.match(again.text, /already used/);
  });

  it('API Settings refuse a new key until the code is confirmed (403)', async () => {
    const c = new FormClient(t);
    await c.logIn(OWNER, 'owner-password');
    await c.get('/dashboard/api-settings');
    const res = await c.send('/dashboard/api-settings/keys', {});
    assert.equal(res.posted, 303);
    assert.equal(res.status, 403);
    assert.match(res.text, /confirm the API Settings code first/i);
    assert.doesNotMatch(res.text, /lck_[A-Za-z0-9_-]{32}/);
  });

  it('answers a sign-up for a taken address like any other, and tells the owner by mail', async () => {
    const c = new FormClient(t);
    await c.get('/dashboard/signup');
    const res = await c.post('/dashboard/signup', { email: OWNER, password: PASSWORD });
    assert.equal(res.status, 303);
    assert.match(res.res.headers.get('location') ?? '', /^\/dashboard\/verify\?ok=signed-up/);
    assert.equal((await mails(t, OWNER))[0]?.subject, 'You already have a lockcloud account');
    // The owner's password did not change.
    await c.logIn(OWNER, 'owner-password');
  });

  it('stores codes and sessions only as hashes', async () => {
    const email = 'stored@example.com';
    const c = await signUp(t, email);
    const code = await latestCode(t, email, /verification code/);
    const db = new BetterSqlite3(join(t.dataDir, 'lockcloud.sqlite'), { readonly: true });
    try {
      const rows = db.prepare('SELECT * FROM one_time_codes').all() as Record<string, unknown>[];
      const dump = JSON.stringify(rows);
      assert.ok(rows.length > 0);
      assert.ok(!dump.includes(`"${code}"`) && !dump.includes(`:${code}`), 'the code is not stored');
      await c.post('/dashboard/verify', { email, code });
      await c.logIn(email, PASSWORD);
      const token = c.cookie('lc_session') ?? '';
      assert.ok(token.length > 20);
      const sessions = JSON.stringify(db.prepare('SELECT * FROM sessions').all());
      assert.ok(!sessions.includes(token), 'the session token is not stored');
    } finally {
      db.close();
    }
  });
});

describe('dashboard attempt limits', () => {
  let t: TestServer;
  before(async () => {
    t = await startServer();
  });
  after(() => t.close());

  it('throttles login attempts for one address with the v1 login budget: 429 and Retry-After', async () => {
    const c = new FormClient(t);
    await c.get('/dashboard/login');
    let res = await c.send('/dashboard/login', { email: OWNER, password: 'wrong-password' });
    for (let i = 0; i < 10 && res.status === 400; i++)
      res = await c.send('/dashboard/login', { email: OWNER, password: 'wrong-password' });
    assert.equal(res.status, 429);
    assert.match(res.text, /Too many attempts\. Try again in \d+ s\./);
    assert.ok(Number(res.res.headers.get('retry-after')) >= 1);
    // The same budget as v1 login: the API is throttled for this address too.
    const v1 = await t.request('/v1/accounts/login', {
      method: 'POST',
      json: { email: OWNER, password: 'owner-password' },
    });
    assert.equal(v1.status, 429);
  });

  it('throttles code attempts from one address, whatever the code', async () => {
    const c = await signUp(t, 'hammer@example.com');
    const statuses: number[] = [];
    for (let i = 0; i < 22; i++)
      statuses.push(
        (await c.send('/dashboard/verify', { email: 'hammer@example.com', code: '000000' })).status,
      );
    assert.equal(statuses.at(-1), 429);
    assert.ok(statuses.slice(0, 5).every((s) => s === 400));
  });
});
