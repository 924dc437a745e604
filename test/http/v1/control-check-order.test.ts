/**
 * docs/decisions.md's check order for v1 control, one pair of faults at a time: token (200xx), body
 * (10000, 10005), lock (11002), ownership (30000), api_enabled (32000), then execution (500xx).
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import {
  advanceClock,
  answer,
  getLock,
  LOCK_A,
  OTHER,
  OTHER_LOCK,
  OWNER,
  simLockOk,
  startServer,
  startTask,
  type TestServer,
} from '../../support/server.ts';
import { DAY_SECONDS, expectAnswer, FLAGS, login, NO_CONTENT, UNKNOWN_LOCK, V1, v1 } from './helpers.ts';

const BIG = JSON.stringify({ type: 'unlock', pad: 'x'.repeat(17 * 1024) });

/** POST control with a raw body and an optional token. */
function post(t: TestServer, lockId: string, raw: string | undefined, token?: string) {
  return v1(t, `/locks/${lockId}/control`, { method: 'POST', token, raw });
}

describe('POST /v1/locks/:lockId/control: which check wins when two fail', () => {
  let t: TestServer;
  let owner: string;
  let other: string;
  beforeEach(async () => {
    t = await startServer({ flags: FLAGS });
    owner = await login(t, OWNER);
    other = await login(t, OTHER);
  });
  afterEach(async () => {
    try {
      // No refused control moved the lock.
      const { status, body } = await answer(await getLock(t, LOCK_A));
      assert.deepEqual(
        { status, locked: (body as { locked?: unknown }).locked },
        { status: 200, locked: true },
      );
    } finally {
      await t.close();
    }
  });

  it('token before body: no token, an unknown token with a bad body, none at all, or one over 16 KiB', async () => {
    await expectAnswer(await post(t, LOCK_A, '{bad'), V1.MISSING_TOKEN);
    await expectAnswer(await post(t, LOCK_A, '{"type":"sync"}'), V1.MISSING_TOKEN);
    await expectAnswer(await post(t, LOCK_A, undefined), V1.MISSING_TOKEN);
    await expectAnswer(await post(t, LOCK_A, '{}', 'not-a-token'), V1.WRONG_TOKEN);
    await expectAnswer(await post(t, LOCK_A, BIG, 'not-a-token'), V1.WRONG_TOKEN);
  });

  it('token before body: an expired token with a body over 16 KiB or of the wrong type', async () => {
    await advanceClock(t, 31 * DAY_SECONDS);
    await expectAnswer(await post(t, LOCK_A, BIG, owner), V1.TOKEN_EXPIRED);
    await expectAnswer(await post(t, LOCK_A, '{"type":"sync"}', owner), V1.TOKEN_EXPIRED);
  });

  it('token before body: a token ended by a password change, or by the deletion of its account', async () => {
    await t.request(`/_sim/accounts/${OWNER}`, { method: 'POST', json: { password: 'changed-password' } });
    await expectAnswer(await post(t, LOCK_A, '{}', owner), V1.PASSWORD_CHANGED);
    await expectAnswer(await post(t, UNKNOWN_LOCK, 'nope', owner), V1.PASSWORD_CHANGED);
    await t.request(`/_sim/accounts/${OTHER}`, { method: 'POST', json: { deleted: true } });
    await expectAnswer(await post(t, OTHER_LOCK, '{"type":1}', other), V1.ACCOUNT_DELETED);
  });

  it('token before lock: no token or an unknown one for an unknown, foreign or shared lock', async () => {
    await expectAnswer(await post(t, UNKNOWN_LOCK, '{"type":"unlock"}'), V1.MISSING_TOKEN);
    await expectAnswer(await post(t, OTHER_LOCK, '{"type":"unlock"}', 'nope'), V1.WRONG_TOKEN);
    await expectAnswer(await post(t, 'not-a-uuid', '{"type":"unlock"}', 'nope'), V1.WRONG_TOKEN);
  });

  it('body before lock: a bad type or body for an unknown lock or one of another account', async () => {
    await expectAnswer(await post(t, UNKNOWN_LOCK, '{"type":"sync"}', owner), V1.WRONG_TYPE);
    await expectAnswer(await post(t, UNKNOWN_LOCK, '{}', owner), V1.REQUIRED);
    await expectAnswer(await post(t, OTHER_LOCK, '{bad', owner), V1.REQUIRED);
    await expectAnswer(await post(t, OTHER_LOCK, '{"type":"LOCK"}', owner), V1.WRONG_TYPE);
  });

  it('body before ownership: a bad type for a shared lock', async () => {
    await expectAnswer(await post(t, LOCK_A, '{"type":"sync"}', other), V1.WRONG_TYPE);
    await expectAnswer(await post(t, LOCK_A, '{}', other), V1.REQUIRED);
  });

  it('body before api_enabled and execution: a bad type with integration off or a busy lock', async () => {
    await simLockOk(t, LOCK_A, { integration: false });
    await expectAnswer(await post(t, LOCK_A, '{"type":"sync"}', owner), V1.WRONG_TYPE);
    await simLockOk(t, LOCK_A, { integration: true, app_open: true });
    await expectAnswer(await post(t, LOCK_A, '{}', owner), V1.REQUIRED);
  });

  it('lock before ownership and the rest: a lock of another account, off, low and busy, is 11002', async () => {
    await simLockOk(t, OTHER_LOCK, { integration: false, battery: 3, app_open: true });
    await expectAnswer(await post(t, OTHER_LOCK, '{"type":"unlock"}', owner), V1.LOCK_NOT_FOUND);
  });

  it('ownership before api_enabled and execution: a shared lock, off, low or busy, is 30000', async () => {
    await simLockOk(t, LOCK_A, { integration: false });
    await expectAnswer(await post(t, LOCK_A, '{"type":"unlock"}', other), V1.NOT_OWNER);
    await simLockOk(t, LOCK_A, { integration: true, battery: 3 });
    await expectAnswer(await post(t, LOCK_A, '{"type":"unlock"}', other), V1.NOT_OWNER);
    await simLockOk(t, LOCK_A, { battery: 100, app_open: true });
    await expectAnswer(await post(t, LOCK_A, '{"type":"unlock"}', other), V1.NOT_OWNER);
  });

  it('api_enabled before execution: integration off or no access point, with low battery, the app open, a task running', async () => {
    await simLockOk(t, LOCK_A, { integration: false, battery: 5 });
    await expectAnswer(await post(t, LOCK_A, '{"type":"unlock"}', owner), V1.API_NOT_ENABLED);
    await simLockOk(t, LOCK_A, { battery: 100, app_open: true });
    await expectAnswer(await post(t, LOCK_A, '{"type":"unlock"}', owner), V1.API_NOT_ENABLED);
    await simLockOk(t, LOCK_A, { integration: true, app_open: false, latency_ms: 60_000 });
    await startTask(t, LOCK_A, 'sync');
    await simLockOk(t, LOCK_A, { access_point: false });
    await expectAnswer(await post(t, LOCK_A, '{"type":"unlock"}', owner), V1.API_NOT_ENABLED);
  });

  it('api_enabled before execution: a planned jam is not used up by a refused control', async () => {
    await simLockOk(t, LOCK_A, { integration: false, fail_next: 'JAMMED' });
    await expectAnswer(await post(t, LOCK_A, '{"type":"unlock"}', owner), V1.API_NOT_ENABLED);
    await simLockOk(t, LOCK_A, { integration: true });
    await expectAnswer(await post(t, LOCK_A, '{"type":"unlock"}', owner), V1.JAMMED);
    await expectAnswer(await post(t, LOCK_A, '{"type":"lock"}', owner), NO_CONTENT);
  });

  it('within execution, as in v3: low battery before busy', async () => {
    await simLockOk(t, LOCK_A, { battery: 5, app_open: true });
    await expectAnswer(await post(t, LOCK_A, '{"type":"unlock"}', owner), V1.LOW_BATTERY);
  });
});
