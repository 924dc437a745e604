/**
 * v1 login tokens over their life: 30 days from issue (20002), a password change (20003 for every
 * token issued before it), the account deleted (20004). Time moves with POST /_sim/clock.
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import {
  advanceClock,
  answer,
  LOCK_A,
  OTHER,
  OTHER_LOCK,
  OWNER,
  startServer,
  type TestServer,
} from '../../support/server.ts';
import {
  control,
  DAY_SECONDS,
  expectAnswer,
  FLAGS,
  listLocks,
  login,
  NO_CONTENT,
  postLogin,
  readLock,
  V1,
  v1,
} from './helpers.ts';

async function changeAccount(t: TestServer, email: string, change: Record<string, unknown>): Promise<void> {
  const res = await t.request(`/_sim/accounts/${email}`, { method: 'POST', json: change });
  assert.equal(res.status, 200, `/_sim/accounts/${email} ${JSON.stringify(change)}: ${await res.text()}`);
}

/** Every v1 endpoint that takes a token answers `expected` for it. */
async function everyEndpointAnswers(
  t: TestServer,
  token: string,
  expected: { status: number; body: unknown },
  lockId = LOCK_A,
): Promise<void> {
  await expectAnswer(await listLocks(t, token), expected, 'GET /v1/locks');
  await expectAnswer(await readLock(t, token, lockId), expected, 'GET /v1/locks/:id');
  await expectAnswer(await control(t, token, lockId, 'unlock'), expected, 'POST control');
}

describe('v1 tokens', () => {
  let t: TestServer;
  beforeEach(async () => {
    t = await startServer({ flags: FLAGS });
  });
  afterEach(() => t.close());

  it('still works 29 days after issue, and answers 20002 once 31 days have passed', async () => {
    const token = await login(t, OWNER);
    await advanceClock(t, 29 * DAY_SECONDS);
    assert.equal((await listLocks(t, token)).status, 200);
    await expectAnswer(await control(t, token, LOCK_A, 'unlock'), NO_CONTENT);
    await advanceClock(t, 2 * DAY_SECONDS);
    await everyEndpointAnswers(t, token, V1.TOKEN_EXPIRED);
  });

  it('answers 20002 after 31 days in one step, and a new login gives a working token', async () => {
    const token = await login(t, OWNER);
    await advanceClock(t, 2_678_400);
    await everyEndpointAnswers(t, token, V1.TOKEN_EXPIRED);
    const fresh = await login(t, OWNER);
    assert.equal((await listLocks(t, fresh)).status, 200);
    // The old one stays expired.
    await expectAnswer(await listLocks(t, token), V1.TOKEN_EXPIRED);
  });

  it('counts 30 days from each token’s own issue', async () => {
    const early = await login(t, OWNER);
    await advanceClock(t, 20 * DAY_SECONDS);
    const late = await login(t, OWNER);
    await advanceClock(t, 11 * DAY_SECONDS);
    await expectAnswer(await listLocks(t, early), V1.TOKEN_EXPIRED);
    assert.equal((await listLocks(t, late)).status, 200);
  });

  it('answers 20003 for every token issued before a password change; one issued after works', async () => {
    const first = await login(t, OWNER);
    const second = await login(t, OWNER);
    await changeAccount(t, OWNER, { password: 'new-owner-password' });
    await everyEndpointAnswers(t, first, V1.PASSWORD_CHANGED);
    await everyEndpointAnswers(t, second, V1.PASSWORD_CHANGED);
    await expectAnswer(
      await postLogin(t, { email: OWNER, password: 'owner-password' }),
      V1.WRONG_CREDENTIALS,
    );
    const after = await login(t, OWNER, 'new-owner-password');
    await expectAnswer(await control(t, after, LOCK_A, 'unlock'), NO_CONTENT);
    await expectAnswer(await readLock(t, after, LOCK_A), {
      status: 200,
      body: { nickname: 'Front door', is_unlocked: true, api_enabled: true, battery: 100 },
    });
  });

  it('ends the token of a login made just before the change, however close in time', async () => {
    for (let i = 0; i < 20; i++) {
      const token = await login(t, OWNER, i === 0 ? 'owner-password' : `password-${i - 1}`);
      await changeAccount(t, OWNER, { password: `password-${i}` });
      await expectAnswer(await listLocks(t, token), V1.PASSWORD_CHANGED, `round ${i}`);
      const after = await login(t, OWNER, `password-${i}`);
      assert.equal((await listLocks(t, after)).status, 200, `round ${i}: a token issued after the change`);
    }
  });

  it('never lets a login racing a password change yield a token that outlives the change', async () => {
    let password = 'owner-password';
    let issued = 0;
    for (let i = 0; i < 60; i++) {
      const next = `password-${i}`;
      const change = t.request(`/_sim/accounts/${OWNER}`, { method: 'POST', json: { password: next } });
      // Start the login a little later each round, so it meets the change at every stage: a sweep of
      // start offsets over the change's few milliseconds of real work, not a wait for anything.
      await new Promise((resolve) => setTimeout(resolve, i % 4));
      const [res] = await Promise.all([answer(await postLogin(t, { email: OWNER, password })), change]);
      if (res.status === 200) {
        issued++;
        const token = (res.body as { authorization: string }).authorization;
        await expectAnswer(await listLocks(t, token), V1.PASSWORD_CHANGED, `round ${i}`);
      } else {
        assert.deepEqual(res, V1.WRONG_CREDENTIALS, `round ${i}`);
      }
      password = next;
    }
    assert.ok(issued > 0, 'some logins won the race');
  });

  it('keeps answering 20003 (not 20002) for a token ended by a password change, 31 days on', async () => {
    const token = await login(t, OWNER);
    await changeAccount(t, OWNER, { password: 'new-owner-password' });
    await advanceClock(t, 31 * DAY_SECONDS);
    await expectAnswer(await listLocks(t, token), V1.PASSWORD_CHANGED);
  });

  it('answers 20004 for every token of a deleted account, over 20003 and 20002', async () => {
    const old = await login(t, OTHER);
    await changeAccount(t, OTHER, { password: 'new-other-password' });
    const token = await login(t, OTHER, 'new-other-password');
    await changeAccount(t, OTHER, { deleted: true });
    await everyEndpointAnswers(t, token, V1.ACCOUNT_DELETED, OTHER_LOCK);
    await expectAnswer(await listLocks(t, old), V1.ACCOUNT_DELETED);
    await advanceClock(t, 31 * DAY_SECONDS);
    await expectAnswer(await listLocks(t, token), V1.ACCOUNT_DELETED);
    await expectAnswer(
      await postLogin(t, { email: OTHER, password: 'new-other-password' }),
      V1.WRONG_CREDENTIALS,
    );
  });

  it('leaves the tokens of other accounts alone when one account changes', async () => {
    const owner = await login(t, OWNER);
    await changeAccount(t, OTHER, { password: 'new-other-password' });
    await changeAccount(t, OTHER, { deleted: true });
    assert.equal((await listLocks(t, owner)).status, 200);
    await expectAnswer(await control(t, owner, LOCK_A, 'unlock'), NO_CONTENT);
  });

  it('answers 20000 without a token and 20001 for one it does not know, on every endpoint', async () => {
    for (const [path, method, json] of [
      ['/locks', 'GET', undefined],
      [`/locks/${LOCK_A}`, 'GET', undefined],
      [`/locks/${LOCK_A}/control`, 'POST', { type: 'unlock' }],
    ] as const) {
      await expectAnswer(await v1(t, path, { method, json }), V1.MISSING_TOKEN, `${method} ${path}`);
      await expectAnswer(
        await v1(t, path, { method, json, token: '' }),
        V1.MISSING_TOKEN,
        `${method} ${path}`,
      );
      await expectAnswer(
        await v1(t, path, { method, json, token: 'x'.repeat(43) }),
        V1.WRONG_TOKEN,
        `${method} ${path}`,
      );
    }
  });

  it('does not need a token to log in, and ignores a stale one sent with the login', async () => {
    const token = await login(t, OWNER);
    await advanceClock(t, 31 * DAY_SECONDS);
    const res = await v1(t, '/accounts/login', {
      method: 'POST',
      token,
      json: { email: OWNER, password: 'owner-password' },
    });
    assert.equal(res.status, 200);
  });
});
