/**
 * A legacy v1 client from start to end, as a home-automation plugin would use the service: log in,
 * list, control, read back; log in again elsewhere; lose its tokens to a password change, then to
 * the deletion of the account.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  answer,
  getLock,
  LOCK_A,
  LOCK_B,
  OWNER,
  OWNER_KEY,
  startServer,
  type TestServer,
} from '../../support/server.ts';
import {
  control,
  expectAnswer,
  FLAGS,
  listLocks,
  login,
  NO_CONTENT,
  postLogin,
  readLock,
  V1,
} from './helpers.ts';

interface V1Lock {
  device_id: string;
  nickname: string;
  is_unlocked: boolean;
  api_enabled: boolean;
  battery: number;
}

describe('a v1 client, start to end', () => {
  let t: TestServer;
  before(async () => {
    t = await startServer({ flags: FLAGS });
  });
  after(() => t.close());

  it('logs in, lists, controls, reads the change back; a second login leaves the first token working; a password change then a deletion end its tokens', async () => {
    // 1. Log in and list.
    const phone = await login(t, OWNER);
    const listed = await answer(await listLocks(t, phone));
    assert.equal(listed.status, 200);
    const locks = (listed.body as { locks: V1Lock[] }).locks;
    assert.deepEqual(
      locks.map((l) => l.device_id),
      [LOCK_A, LOCK_B],
    );
    const front = locks.find((l) => l.device_id === LOCK_A);
    assert.deepEqual(front, {
      device_id: LOCK_A,
      nickname: 'Front door',
      is_unlocked: false,
      api_enabled: true,
      battery: 100,
    });

    // 2. Unlock the first usable lock; the status, the list and v3 all show it.
    await expectAnswer(await control(t, phone, LOCK_A, 'unlock'), NO_CONTENT);
    await expectAnswer(await readLock(t, phone, LOCK_A), {
      status: 200,
      body: { nickname: 'Front door', is_unlocked: true, api_enabled: true, battery: 100 },
    });
    const relisted = (await (await listLocks(t, phone)).json()) as { locks: V1Lock[] };
    assert.equal(relisted.locks.find((l) => l.device_id === LOCK_A)?.is_unlocked, true);
    assert.deepEqual(await answer(await getLock(t, LOCK_A, OWNER_KEY)), {
      status: 200,
      body: { locked: false, battery: 100, responsive: true },
    });

    // 3. A second device logs in: a new token; the first keeps working, both can control.
    const tablet = await login(t, OWNER);
    assert.notEqual(tablet, phone);
    await expectAnswer(await control(t, tablet, LOCK_A, 'lock'), NO_CONTENT);
    await expectAnswer(await readLock(t, phone, LOCK_A), {
      status: 200,
      body: { nickname: 'Front door', is_unlocked: false, api_enabled: true, battery: 100 },
    });

    // 4. The owner changes the password in the app: both tokens end with 20003; the old password fails.
    const change = await t.request(`/_sim/accounts/${OWNER}`, {
      method: 'POST',
      json: { password: 'a-new-password' },
    });
    assert.equal(change.status, 200);
    await expectAnswer(await listLocks(t, phone), V1.PASSWORD_CHANGED);
    await expectAnswer(await control(t, tablet, LOCK_A, 'unlock'), V1.PASSWORD_CHANGED);
    await expectAnswer(
      await postLogin(t, { email: OWNER, password: 'owner-password' }),
      V1.WRONG_CREDENTIALS,
    );

    // 5. The client logs in with the new password and carries on.
    const renewed = await login(t, OWNER, 'a-new-password');
    await expectAnswer(await control(t, renewed, LOCK_B, 'lock'), NO_CONTENT);
    await expectAnswer(await readLock(t, renewed, LOCK_B), {
      status: 200,
      body: { nickname: 'Back door', is_unlocked: false, api_enabled: true, battery: 55 },
    });

    // 6. The account is deleted: every token answers 20004, and login is 10002.
    const deletion = await t.request(`/_sim/accounts/${OWNER}`, { method: 'POST', json: { deleted: true } });
    assert.equal(deletion.status, 200);
    for (const token of [renewed, phone, tablet]) {
      await expectAnswer(await listLocks(t, token), V1.ACCOUNT_DELETED);
      await expectAnswer(await control(t, token, LOCK_A, 'unlock'), V1.ACCOUNT_DELETED);
    }
    await expectAnswer(
      await postLogin(t, { email: OWNER, password: 'a-new-password' }),
      V1.WRONG_CREDENTIALS,
    );
    // The account's v3 key ends with it.
    assert.deepEqual(await answer(await getLock(t, LOCK_A, OWNER_KEY)), {
      status: 401,
      body: { error: 'UNAUTHORIZED' },
    });
  });
});
