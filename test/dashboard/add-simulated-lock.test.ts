/**
 * The locks page's "Add a simulated lock" (issue 20, point 4), over plain HTTP as a browser sends it:
 * an account made through the dashboard has no lock, adds one (a CSRF-protected form, a redirect
 * after the POST), sees it and moves it; a bad nickname is shown next to its field; production has
 * neither the form nor the route.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { OWNER, startServer, type TestServer } from '../support/server.ts';
import { carriedOut, FormClient, latestCode } from './support.ts';

const NEWCOMER = 'newcomer@example.com';
const PASSWORD = 'newcomer-password';

/** A new account, signed up, verified and logged in through the dashboard's own forms. */
async function newcomer(t: TestServer): Promise<FormClient> {
  const c = new FormClient(t);
  await c.get('/dashboard/signup');
  assert.ok(carriedOut(await c.post('/dashboard/signup', { email: NEWCOMER, password: PASSWORD })));
  await c.get(`/dashboard/verify?email=${encodeURIComponent(NEWCOMER)}`);
  const code = await latestCode(t, NEWCOMER, /verification code/);
  assert.ok(carriedOut(await c.post('/dashboard/verify', { email: NEWCOMER, code })));
  await c.logIn(NEWCOMER, PASSWORD);
  return c;
}

async function ownedLocks(
  c: FormClient,
): Promise<{ device_id: string; nickname: string; locked: boolean }[]> {
  const res = await c.get('/dashboard/api/locks');
  assert.equal(res.status, 200);
  return (JSON.parse(res.text) as { owned: { device_id: string; nickname: string; locked: boolean }[] })
    .owned;
}

describe('dashboard: add a simulated lock (sandbox mode)', () => {
  let t: TestServer;
  let c: FormClient;
  before(async () => {
    t = await startServer({ flags: ['--no-rate-limit'] });
    c = await newcomer(t);
  });
  after(() => t.close());

  it('a new account has no lock; the page says so and offers the form', async () => {
    const page = await c.get('/dashboard/locks');
    assert.equal(page.status, 200);
    assert.match(
      page.text,
      /No locks yet\. Locks appear here once they are paired with this account; in the sandbox, add a simulated one below\./,
    );
    assert.match(
      page.text,
      /<form method="post" action="\/dashboard\/locks\/simulated"[^>]*><input type="hidden" name="_csrf" value="[^"]+">/,
    );
    assert.match(page.text, /<h2 id="add-lock-title">Add a simulated lock<\/h2>/);
    assert.deepEqual(await ownedLocks(c), []);
  });

  it('adds the lock and redirects to the page, which shows it and says so; it takes commands', async () => {
    await c.get('/dashboard/locks');
    const res = await c.post('/dashboard/locks/simulated', { nickname: 'Garden shed' });
    assert.ok(carriedOut(res));
    assert.equal(res.res.headers.get('location'), '/dashboard/locks?ok=lock-added');
    const page = await c.get('/dashboard/locks?ok=lock-added');
    assert.match(
      page.text,
      /data-testid="notice">A simulated lock is added: it is paired with your simulated access point and takes commands now\.</,
    );
    assert.match(page.text, /<h2 id="lock-[0-9a-f-]+">Garden shed<\/h2>/);
    const [lock] = await ownedLocks(c);
    assert.ok(lock);
    assert.deepEqual(
      { nickname: lock.nickname, locked: lock.locked },
      { nickname: 'Garden shed', locked: true },
    );
    // The page's own command form: without JavaScript it waits for the lock and says how it ended.
    const unlocked = await c.post(`/dashboard/locks/${lock.device_id}/command`, { command: 'unlock' });
    assert.ok(carriedOut(unlocked));
    const after = await c.get(unlocked.res.headers.get('location') ?? '');
    assert.match(after.text, /data-testid="notice">Unlocked\.</);
    assert.equal((await ownedLocks(c))[0]?.locked, false);
    // A reload of the page the redirect led to sends nothing again.
    await c.get('/dashboard/locks?ok=lock-added');
    assert.equal((await ownedLocks(c)).length, 1);
    // Without a nickname it is named after its serial, as a seed's lock is.
    await c.post('/dashboard/locks/simulated', {});
    const second = (await ownedLocks(c))[1];
    assert.match(second?.nickname ?? '', /^Lock [0-9A-F]{10}$/);
  });

  it('a bad nickname is refused next to its field, the value kept; a form without the CSRF token is refused; nothing is added', async () => {
    await c.get('/dashboard/locks');
    const before = (await ownedLocks(c)).length;
    const long = 'x'.repeat(129);
    const refused = await c.send('/dashboard/locks/simulated', { nickname: long });
    assert.match(refused.location, /^\/dashboard\/locks\?refused=/);
    assert.equal(refused.status, 400);
    assert.match(refused.text, /data-testid="notice">Check the form\.</);
    assert.match(
      refused.text,
      /<p class="field-error" id="f-nickname-error">Nickname: at most 128 characters, without control characters\.<\/p>/,
    );
    assert.match(refused.text, new RegExp(`name="nickname" type="text" value="${long}"`));
    const forged = await c.post('/dashboard/locks/simulated', { nickname: 'Forged', _csrf: 'not-the-token' });
    assert.equal(forged.status, 403);
    assert.equal((await ownedLocks(c)).length, before);
  });

  it('adds to the signed-in account only, whoever else exists', async () => {
    const owner = new FormClient(t);
    await owner.logIn(OWNER, 'owner-password');
    const before = (await ownedLocks(owner)).length;
    await c.get('/dashboard/locks');
    await c.post('/dashboard/locks/simulated', { nickname: 'Mine' });
    assert.equal((await ownedLocks(owner)).length, before);
    assert.ok((await ownedLocks(c)).some((l) => l.nickname === 'Mine'));
  });
});

describe('dashboard: no simulated lock to add in production mode', () => {
  let t: TestServer;
  before(async () => {
    t = await startServer({ flags: ['--production'] });
  });
  after(() => t.close());

  it('neither the form nor the route', async () => {
    const c = new FormClient(t);
    await c.logIn(OWNER, 'owner-password');
    const page = await c.get('/dashboard/locks');
    assert.equal(page.status, 200);
    assert.doesNotMatch(page.text, /simulated/i);
    const res = await c.post('/dashboard/locks/simulated', { nickname: 'Nope' });
    assert.equal(res.status, 404);
  });
});
