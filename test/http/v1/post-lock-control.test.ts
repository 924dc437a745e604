import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import {
  advanceClock,
  answer,
  getLock,
  LOCK_A,
  LOCK_B,
  OTHER,
  OTHER_KEY,
  OTHER_LOCK,
  OWNER,
  simLockOk,
  startServer,
  startTask,
  type TestServer,
  waitForTask,
} from '../../support/server.ts';
import {
  advanceUntilAnswered,
  COMMAND_TIMEOUT_SECONDS,
  control,
  expectAnswer,
  FLAGS,
  login,
  NO_CONTENT,
  retryAfter,
  UNKNOWN_LOCK,
  V1,
  v1,
  v1Status,
  within,
} from './helpers.ts';

const FRONT = { nickname: 'Front door', is_unlocked: false, api_enabled: true, battery: 100 };
const V3_LOCKED = { status: 200, body: { locked: true, battery: 100, responsive: true } };

describe('POST /v1/locks/:lockId/control: success', () => {
  let t: TestServer;
  let owner: string;
  beforeEach(async () => {
    t = await startServer({ flags: FLAGS });
    owner = await login(t, OWNER);
  });
  afterEach(() => t.close());

  it('unlock answers 204 with an empty body once done; v1 and v3 both read it unlocked', async () => {
    const res = await control(t, owner, LOCK_A, 'unlock');
    assert.equal(res.headers.get('content-length') ?? '0', '0');
    await expectAnswer(res, NO_CONTENT);
    assert.deepEqual(await v1Status(t, owner, LOCK_A), { ...FRONT, is_unlocked: true });
    assert.deepEqual(await answer(await getLock(t, LOCK_A)), {
      status: 200,
      body: { locked: false, battery: 100, responsive: true },
    });
  });

  it('lock answers 204 and the lock reads locked in v1, in the v1 list and in v3', async () => {
    await expectAnswer(await control(t, owner, LOCK_B, 'lock'), NO_CONTENT);
    assert.deepEqual(await v1Status(t, owner, LOCK_B), {
      nickname: 'Back door',
      is_unlocked: false,
      api_enabled: true,
      battery: 55,
    });
    const list = (await (await v1(t, '/locks', { token: owner })).json()) as {
      locks: { device_id: string; is_unlocked: boolean }[];
    };
    assert.equal(list.locks.find((l) => l.device_id === LOCK_B)?.is_unlocked, false);
    assert.deepEqual(await answer(await getLock(t, LOCK_B)), {
      status: 200,
      body: { locked: true, battery: 55, responsive: true },
    });
  });

  it('unlock, lock, unlock each move the lock; lock on a locked lock is 204 and leaves it locked', async () => {
    await expectAnswer(await control(t, owner, LOCK_A, 'lock'), NO_CONTENT);
    assert.deepEqual(await v1Status(t, owner, LOCK_A), FRONT);
    for (const [type, isUnlocked] of [
      ['unlock', true],
      ['lock', false],
      ['unlock', true],
    ] as const) {
      await expectAnswer(await control(t, owner, LOCK_A, type), NO_CONTENT, type);
      assert.deepEqual(await v1Status(t, owner, LOCK_A), { ...FRONT, is_unlocked: isUnlocked }, type);
    }
  });

  it('takes an upper-case id, a charset on the content type, and ignores extra fields', async () => {
    const res = await v1(t, `/locks/${LOCK_A.toUpperCase()}/control`, {
      method: 'POST',
      token: owner,
      raw: JSON.stringify({ type: 'unlock', force: true }),
      headers: { 'content-type': 'application/json; charset=utf-8' },
    });
    await expectAnswer(res, NO_CONTENT);
    assert.deepEqual(await v1Status(t, owner, LOCK_A), { ...FRONT, is_unlocked: true });
  });

  it('works at exactly the 10 % battery threshold', async () => {
    await simLockOk(t, LOCK_A, { battery: 10 });
    await expectAnswer(await control(t, owner, LOCK_A, 'unlock'), NO_CONTENT);
    assert.deepEqual(await v1Status(t, owner, LOCK_A), { ...FRONT, is_unlocked: true, battery: 10 });
  });

  it('waits for a slow lock (latency_ms 300) and answers once it has moved', async () => {
    await simLockOk(t, LOCK_A, { latency_ms: 300 });
    const started = Date.now();
    await expectAnswer(await control(t, owner, LOCK_A, 'unlock'), NO_CONTENT);
    assert.ok(Date.now() - started >= 250, 'answered after the lock took its time');
    assert.deepEqual(await v1Status(t, owner, LOCK_A), { ...FRONT, is_unlocked: true });
  });
});

describe('POST /v1/locks/:lockId/control: refusals before execution', () => {
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
      // Whatever was refused, nothing moved LOCK_A.
      assert.deepEqual(await answer(await getLock(t, LOCK_A)), V3_LOCKED);
    } finally {
      await t.close();
    }
  });

  it('answers 10000 for a missing, null or empty type', async () => {
    for (const body of [{}, { type: null }, { type: '' }, { kind: 'unlock' }]) {
      const res = await v1(t, `/locks/${LOCK_A}/control`, { method: 'POST', token: owner, json: body });
      await expectAnswer(res, V1.REQUIRED, JSON.stringify(body));
    }
  });

  it('answers 10000 for a body that is not valid JSON, not an object, absent or not JSON', async () => {
    for (const raw of ['{"type":', '{bad', 'null', '[]', '["unlock"]', '"unlock"', '1', '']) {
      await expectAnswer(
        await v1(t, `/locks/${LOCK_A}/control`, { method: 'POST', token: owner, raw }),
        V1.REQUIRED,
        raw,
      );
    }
    await expectAnswer(
      await v1(t, `/locks/${LOCK_A}/control`, { method: 'POST', token: owner }),
      V1.REQUIRED,
    );
    const plain = await v1(t, `/locks/${LOCK_A}/control`, {
      method: 'POST',
      token: owner,
      raw: '{"type":"unlock"}',
      headers: { 'content-type': 'text/plain' },
    });
    await expectAnswer(plain, V1.REQUIRED, 'text/plain');
  });

  it('answers 413 10000 for a body over 16 KiB', async () => {
    const raw = JSON.stringify({ type: 'unlock', pad: 'x'.repeat(17 * 1024) });
    await expectAnswer(await v1(t, `/locks/${LOCK_A}/control`, { method: 'POST', token: owner, raw }), {
      status: 413,
      body: V1.REQUIRED.body,
    });
  });

  it('answers 10005 for a type other than lock or unlock: sync, 1, "LOCK" and the like', async () => {
    for (const type of ['sync', 1, 'LOCK', 'Unlock', ' lock', 'open', true, ['lock'], { lock: true }, 0]) {
      await expectAnswer(await control(t, owner, LOCK_A, type), V1.WRONG_TYPE, JSON.stringify(type));
    }
  });

  it('answers 11002 for an unknown lock, a malformed id and a lock of another account', async () => {
    for (const id of [UNKNOWN_LOCK, 'not-a-uuid', '1234', OTHER_LOCK]) {
      await expectAnswer(await control(t, owner, id, 'unlock'), V1.LOCK_NOT_FOUND, id);
    }
    assert.deepEqual(await answer(await getLock(t, OTHER_LOCK, OTHER_KEY)), V3_LOCKED);
  });

  it('answers 403 30000 for a lock shared with the account', async () => {
    await expectAnswer(await control(t, other, LOCK_A, 'unlock'), V1.NOT_OWNER);
    await expectAnswer(await control(t, other, LOCK_A, 'lock'), V1.NOT_OWNER);
  });

  it('answers 403 32000 with integration off, and with no access point', async () => {
    await simLockOk(t, LOCK_A, { integration: false });
    await expectAnswer(await control(t, owner, LOCK_A, 'unlock'), V1.API_NOT_ENABLED);
    await simLockOk(t, LOCK_A, { integration: true, access_point: false });
    await expectAnswer(await control(t, owner, LOCK_A, 'unlock'), V1.API_NOT_ENABLED);
    await simLockOk(t, LOCK_A, { access_point: true });
  });
});

describe('POST /v1/locks/:lockId/control: failures of execution', () => {
  let t: TestServer;
  let owner: string;
  beforeEach(async () => {
    t = await startServer({ flags: FLAGS });
    owner = await login(t, OWNER);
  });
  afterEach(() => t.close());

  it('answers 500 50001 with Retry-After while a v3 task runs on the lock, then works once it ended', async () => {
    await simLockOk(t, LOCK_A, { latency_ms: 60_000 });
    const task = await startTask(t, LOCK_A, 'sync');
    const res = await control(t, owner, LOCK_A, 'unlock');
    await expectAnswer(res, V1.BUSY);
    const wait = retryAfter(res);
    assert.ok(wait <= COMMAND_TIMEOUT_SECONDS, `Retry-After ${wait}`);
    await advanceClock(t, COMMAND_TIMEOUT_SECONDS + 1);
    assert.deepEqual(await waitForTask(t, task), {
      status: 'terminated',
      successful: false,
      error: 'TIMEOUT',
    });
    await simLockOk(t, LOCK_A, { latency_ms: 0 });
    await expectAnswer(await control(t, owner, LOCK_A, 'unlock'), NO_CONTENT);
  });

  it('answers 500 50001 while the mobile app holds the connection, and works once it closes', async () => {
    await simLockOk(t, LOCK_A, { app_open: true });
    const res = await control(t, owner, LOCK_A, 'unlock');
    await expectAnswer(res, V1.BUSY);
    assert.equal(res.headers.get('retry-after'), null, 'no wait is known for the app');
    assert.deepEqual(await v1Status(t, owner, LOCK_A), FRONT);
    await simLockOk(t, LOCK_A, { app_open: false });
    await expectAnswer(await control(t, owner, LOCK_A, 'unlock'), NO_CONTENT);
  });

  it('answers 500 50002 when the lock is not responsive, and for fail_next DEVICE_UNREACHABLE', async () => {
    await simLockOk(t, LOCK_A, { responsive: false });
    await expectAnswer(await control(t, owner, LOCK_A, 'unlock'), V1.UNREACHABLE);
    await simLockOk(t, LOCK_A, { responsive: true, fail_next: 'DEVICE_UNREACHABLE' });
    await expectAnswer(await control(t, owner, LOCK_A, 'unlock'), V1.UNREACHABLE);
    assert.deepEqual(await v1Status(t, owner, LOCK_A), FRONT);
    // The failure was used up: the next control goes through.
    await expectAnswer(await control(t, owner, LOCK_A, 'unlock'), NO_CONTENT);
  });

  it('answers 500 50003 when the lock never confirms and the 15 s command timeout passes', async () => {
    await simLockOk(t, LOCK_A, { fail_next: 'TIMEOUT' });
    const pending = control(t, owner, LOCK_A, 'unlock');
    assert.equal(await within(pending, 100), undefined, 'the control waits for the lock');
    await expectAnswer(await advanceUntilAnswered(t, pending, COMMAND_TIMEOUT_SECONDS + 1), V1.TIMEOUT);
    assert.deepEqual(await v1Status(t, owner, LOCK_A), FRONT);
    await expectAnswer(await control(t, owner, LOCK_A, 'unlock'), NO_CONTENT);
  });

  it('answers 500 50003 when the lock is slower than the command timeout', async () => {
    await simLockOk(t, LOCK_A, { latency_ms: 60_000 });
    const pending = control(t, owner, LOCK_A, 'unlock');
    await expectAnswer(await advanceUntilAnswered(t, pending, COMMAND_TIMEOUT_SECONDS + 1), V1.TIMEOUT);
  });

  it('answers 500 50004 under 10 % battery, for lock and unlock', async () => {
    await simLockOk(t, LOCK_A, { battery: 9 });
    await expectAnswer(await control(t, owner, LOCK_A, 'unlock'), V1.LOW_BATTERY);
    await expectAnswer(await control(t, owner, LOCK_A, 'lock'), V1.LOW_BATTERY);
    await simLockOk(t, LOCK_A, { battery: 0 });
    await expectAnswer(await control(t, owner, LOCK_A, 'unlock'), V1.LOW_BATTERY);
    assert.deepEqual(await v1Status(t, owner, LOCK_A), { ...FRONT, battery: 0 });
  });

  it('answers 500 50005 when the lock jams, and the next control works', async () => {
    await simLockOk(t, LOCK_A, { fail_next: 'JAMMED' });
    await expectAnswer(await control(t, owner, LOCK_A, 'unlock'), V1.JAMMED);
    assert.deepEqual(await v1Status(t, owner, LOCK_A), FRONT);
    await expectAnswer(await control(t, owner, LOCK_A, 'unlock'), NO_CONTENT);
    assert.deepEqual(await v1Status(t, owner, LOCK_A), { ...FRONT, is_unlocked: true });
  });
});
