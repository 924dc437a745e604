/**
 * v1 control and v3 commands share one command path and one busy rule: a lock runs one command at
 * a time, whichever API sent it. The simulated lock takes latency_ms (real time) to move, so
 * requests meet while a command is in flight. Every test has a time limit: nothing may hang.
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import {
  answer,
  getLock,
  LOCK_A,
  LOCK_B,
  OWNER,
  sendCommand,
  simLockOk,
  startServer,
  startTask,
  type TestServer,
  waitForTask,
} from '../../support/server.ts';
import {
  COMMAND_TIMEOUT_SECONDS,
  control,
  expectAnswer,
  FLAGS,
  login,
  NO_CONTENT,
  retryAfter,
  V1,
  within,
} from './helpers.ts';

const LIMIT = { timeout: 30_000 };
const SUCCESS = { status: 'terminated', successful: true };

/** A v3 busy answer: 400 "DEVICE_IS_BUSY n" with n whole seconds, 1 to the command timeout. */
function assertV3Busy(got: { status: number; body: unknown }, what: string): void {
  const error = (got.body as { error?: unknown } | null)?.error;
  const match = typeof error === 'string' ? /^DEVICE_IS_BUSY ([1-9][0-9]*)$/.exec(error) : null;
  assert.ok(match, `${what}: expected 400 "DEVICE_IS_BUSY n", got ${got.status} ${JSON.stringify(got.body)}`);
  assert.deepEqual(got, { status: 400, body: { error: match[0] } }, what);
  assert.ok(Number(match[1]) <= COMMAND_TIMEOUT_SECONDS, `${what}: n=${match[1]}`);
}

async function lockedInV3(t: TestServer, deviceId: string): Promise<boolean> {
  const { status, body } = await answer(await getLock(t, deviceId));
  assert.equal(status, 200);
  return (body as { locked: boolean }).locked;
}

describe('v1 control and v3 commands on the same lock', LIMIT, () => {
  let t: TestServer;
  let owner: string;
  beforeEach(async () => {
    t = await startServer({ flags: FLAGS });
    owner = await login(t, OWNER);
    await simLockOk(t, LOCK_A, { latency_ms: 300 });
  });
  afterEach(() => t.close());

  it('sent at once: exactly one wins and moves the lock, the other is busy, neither hangs', async () => {
    const wins = { v1: 0, v3: 0 };
    for (let round = 0; round < 6; round++) {
      const v1Type = round % 2 === 0 ? 'unlock' : 'lock';
      const v3Command = v1Type === 'unlock' ? 'lock' : 'unlock';
      const [v1Res, v3Res] = await Promise.all([
        control(t, owner, LOCK_A, v1Type),
        sendCommand(t, LOCK_A, v3Command),
      ]);
      const v1Answer = await answer(v1Res);
      const v3Answer = await answer(v3Res);
      const what = `round ${round}: v1 ${v1Answer.status}, v3 ${v3Answer.status} ${JSON.stringify(v3Answer.body)}`;
      if (v1Answer.status === 204) {
        wins.v1++;
        assert.deepEqual(v1Answer, NO_CONTENT, what);
        assertV3Busy(v3Answer, what);
        assert.equal(await lockedInV3(t, LOCK_A), v1Type === 'lock', what);
      } else {
        wins.v3++;
        assert.deepEqual(v1Answer, V1.BUSY, what);
        assert.ok(retryAfter(v1Res) <= COMMAND_TIMEOUT_SECONDS, what);
        assert.equal(v3Answer.status, 200, what);
        const taskId = (v3Answer.body as { task_id: string }).task_id;
        assert.deepEqual(await waitForTask(t, taskId), SUCCESS, what);
        assert.equal(await lockedInV3(t, LOCK_A), v3Command === 'lock', what);
      }
    }
    assert.equal(wins.v1 + wins.v3, 6);
  });

  it('a v3 command in flight makes v1 control busy (50001, Retry-After); once it ended, v1 works', async () => {
    const taskId = await startTask(t, LOCK_A, 'unlock');
    const res = await control(t, owner, LOCK_A, 'lock');
    await expectAnswer(res, V1.BUSY);
    assert.ok(retryAfter(res) <= COMMAND_TIMEOUT_SECONDS);
    assert.deepEqual(await waitForTask(t, taskId), SUCCESS);
    assert.equal(await lockedInV3(t, LOCK_A), false, 'the v3 unlock went through, the v1 lock did not');
    await expectAnswer(await control(t, owner, LOCK_A, 'lock'), NO_CONTENT);
    assert.equal(await lockedInV3(t, LOCK_A), true);
  });

  it('a v1 control in flight makes a v3 command and another v1 control busy, then answers 204', async () => {
    await simLockOk(t, LOCK_A, { latency_ms: 1000 });
    // The probe may reach the lock before the control does; then the roles swap, and we try again.
    for (let attempt = 1; attempt <= 5; attempt++) {
      const pending = control(t, owner, LOCK_A, 'unlock');
      assert.equal(await within(pending, 50 * attempt), undefined, 'the control waits for the lock');
      const probe = await answer(await sendCommand(t, LOCK_A, 'sync'));
      if (probe.status === 200) {
        await expectAnswer(await pending, V1.BUSY, `attempt ${attempt}: the probe came first`);
        await waitForTask(t, (probe.body as { task_id: string }).task_id);
        continue;
      }
      assertV3Busy(probe, `attempt ${attempt}: v3 while v1 is in flight`);
      const second = await control(t, owner, LOCK_A, 'lock');
      await expectAnswer(second, V1.BUSY, 'a second v1 control');
      assert.ok(retryAfter(second) <= COMMAND_TIMEOUT_SECONDS);
      await expectAnswer(await pending, NO_CONTENT, 'the control in flight');
      assert.equal(await lockedInV3(t, LOCK_A), false);
      // Free again: v3 is accepted.
      await simLockOk(t, LOCK_A, { latency_ms: 0 });
      assert.deepEqual(await waitForTask(t, await startTask(t, LOCK_A, 'lock')), SUCCESS);
      return;
    }
    assert.fail('the v1 control never reached the lock before the probe');
  });

  it('two v1 controls at once: one 204, the other 500 50001', async () => {
    const responses = await Promise.all([
      control(t, owner, LOCK_A, 'unlock'),
      control(t, owner, LOCK_A, 'unlock'),
    ]);
    const answers = await Promise.all(responses.map(answer));
    assert.deepEqual(answers.map((a) => a.status).sort(), [204, 500], JSON.stringify(answers));
    assert.deepEqual(
      answers.find((a) => a.status === 500),
      V1.BUSY,
    );
    assert.equal(await lockedInV3(t, LOCK_A), false);
  });

  it('a v1 control in flight on one lock leaves the other locks free', async () => {
    await simLockOk(t, LOCK_A, { latency_ms: 1000 });
    const pending = control(t, owner, LOCK_A, 'unlock');
    assert.deepEqual(await waitForTask(t, await startTask(t, LOCK_B, 'lock')), SUCCESS);
    await expectAnswer(await control(t, owner, LOCK_B, 'unlock'), NO_CONTENT);
    await expectAnswer(await pending, NO_CONTENT);
    assert.equal(await lockedInV3(t, LOCK_A), false);
    assert.equal(await lockedInV3(t, LOCK_B), false);
  });
});
