import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { Account } from '../../../src/domain/account.ts';
import {
  cheapPasswords,
  OTHER,
  OTHER_KEY,
  OWNER,
  OWNER_KEY,
  startServer,
  type TestServer,
} from '../../support/server.ts';
import { json, simClock } from './helpers.ts';

describe('POST /_sim/accounts/:email', () => {
  let t: TestServer;
  beforeEach(async () => {
    t = await startServer();
  });
  afterEach(() => t.close());

  const account = async (email: string): Promise<Account> => {
    const found = await t.server.store.accounts.findByEmail(email);
    assert.ok(found, `no account ${email}`);
    return found;
  };
  const change = (email: string, body: unknown): Promise<Response> =>
    t.request(`/_sim/accounts/${encodeURIComponent(email)}`, { method: 'POST', json: body });

  it('changes the password: the new hash is stored and the change time is the server clock', async () => {
    const before = await account(OWNER);
    const passwords = cheapPasswords;
    assert.ok(
      before.passwordHash !== null && (await passwords.verify('owner-password', before.passwordHash)),
    );
    assert.equal(before.passwordChangedAt, null);

    const res = await change(OWNER, { password: 'a-brand-new-password' });
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { email: OWNER, password_changed: true, deleted: false });

    const after = await account(OWNER);
    assert.ok(after.passwordHash !== null);
    assert.notEqual(after.passwordHash, before.passwordHash);
    assert.equal(await passwords.verify('a-brand-new-password', after.passwordHash), true);
    assert.equal(await passwords.verify('owner-password', after.passwordHash), false);
    const now = await simClock(t);
    assert.ok(after.passwordChangedAt !== null && now - after.passwordChangedAt < 5000);
    assert.equal(after.deletedAt, null);
    // API keys are not tied to the password.
    assert.equal((await t.request('/public/locks', { key: OWNER_KEY })).status, 200);
  });

  it('stamps the password change with the moved clock', async () => {
    await t.request('/_sim/clock', { method: 'POST', json: { advance_seconds: 86_400 } });
    const now = await simClock(t);
    await change(OWNER, { password: 'another-password' });
    const after = await account(OWNER);
    assert.ok(after.passwordChangedAt !== null && after.passwordChangedAt >= now - 1000);
  });

  it('gives a social-login account (no password) a password', async () => {
    t = await restartWithSocialAccount(t);
    assert.equal((await account('social@example.com')).passwordHash, null);
    const res = await change('social@example.com', { password: 'now-i-have-one' });
    assert.equal(res.status, 200);
    const after = await account('social@example.com');
    assert.ok(after.passwordHash !== null);
    assert.equal(await cheapPasswords.verify('now-i-have-one', after.passwordHash), true);
  });

  it('deletes the account: deletedAt is stored and its API keys answer 401 on /public/locks', async () => {
    assert.equal((await t.request('/public/locks', { key: OWNER_KEY })).status, 200);
    const res = await change(OWNER, { deleted: true });
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { email: OWNER, password_changed: false, deleted: true });

    const after = await account(OWNER);
    const now = await simClock(t);
    assert.ok(after.deletedAt !== null && now - after.deletedAt < 5000);
    for (const key of [OWNER_KEY, `Bearer ${OWNER_KEY}`]) {
      const locks = await t.request('/public/locks', { key });
      assert.equal(locks.status, 401);
      assert.deepEqual(await locks.json(), { error: 'UNAUTHORIZED' });
    }
    // Other accounts are untouched.
    assert.equal((await t.request('/public/locks', { key: OTHER_KEY })).status, 200);
    assert.equal((await account(OTHER)).deletedAt, null);
  });

  it('deleting twice keeps the first deletion time', async () => {
    await change(OWNER, { deleted: true });
    const first = (await account(OWNER)).deletedAt;
    await t.request('/_sim/clock', { method: 'POST', json: { advance_seconds: 3600 } });
    const res = await change(OWNER, { deleted: true });
    assert.equal(res.status, 200);
    assert.equal((await account(OWNER)).deletedAt, first);
  });

  it('finds the account whatever the case of the e-mail', async () => {
    const res = await change('Owner@EXAMPLE.com', { password: 'case-insensitive' });
    assert.equal(res.status, 200);
    assert.equal((await json(res)).email, OWNER);
    const after = await account(OWNER);
    assert.ok(after.passwordHash !== null);
    assert.equal(await cheapPasswords.verify('case-insensitive', after.passwordHash), true);
  });

  it('answers 404 NOT_FOUND for an e-mail with no account', async () => {
    for (const body of [{ password: 'whatever-password' }, { deleted: true }]) {
      const res = await change('nobody@example.com', body);
      assert.equal(res.status, 404);
      assert.equal((await json(res)).error, 'NOT_FOUND');
    }
  });

  it('answers 400 BAD_PARAMS for a bad body and changes nothing', async () => {
    const before = await account(OWNER);
    const bad: unknown[] = [
      {},
      { deleted: false },
      { deleted: 'yes' },
      { password: '' },
      { password: 12345678 },
      { password: null },
      { password: 'x'.repeat(1025) },
      { password: 'fine-password', extra: 1 },
      [],
    ];
    for (const body of bad) {
      const res = await change(OWNER, body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal((await json(res)).error, 'BAD_PARAMS', JSON.stringify(body));
    }
    assert.deepEqual(await account(OWNER), before);
  });
});

/** Restarts `t` over a seed that also holds an account created by social login. */
async function restartWithSocialAccount(t: TestServer): Promise<TestServer> {
  await t.close();
  return startServer({
    seed: { accounts: [{ email: 'social@example.com', password: null, verified: true }] },
  });
}
