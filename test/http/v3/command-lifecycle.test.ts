import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { eventually } from '../../support/eventually.ts';
import {
  actionResult,
  advanceClock,
  answer,
  getLock,
  LOCK_A,
  LOCK_B,
  simLockOk,
  startServer,
  startTask,
  type TestServer,
  waitForTask,
} from '../../support/server.ts';

const FLAGS = ['--no-rate-limit'];
const SUCCESS = { status: 'terminated', successful: true };
const failed = (error: string) => ({ status: 'terminated', successful: false, error });
const processing = (taskId: string) => ({ status: 200, body: { status: 'processing', task_id: taskId } });

async function lockStatus(t: TestServer, deviceId: string): Promise<unknown> {
  const { status, body } = await answer(await getLock(t, deviceId));
  assert.equal(status, 200);
  return body;
}

describe('command lifecycle: how tasks end', () => {
  let t: TestServer;
  beforeEach(async () => {
    t = await startServer({ flags: FLAGS });
  });
  afterEach(() => t.close());

  it('a task reads processing while the lock carries it out, then terminated successful', async () => {
    await simLockOk(t, LOCK_A, { latency_ms: 5_000 });
    const taskId = await startTask(t, LOCK_A, 'unlock');
    assert.deepEqual(await answer(await actionResult(t, taskId)), processing(taskId));
    assert.deepEqual(await lockStatus(t, LOCK_A), { locked: true, battery: 100, responsive: true });
    await advanceClock(t, 5);
    assert.deepEqual(await waitForTask(t, taskId), SUCCESS);
    assert.deepEqual(await lockStatus(t, LOCK_A), { locked: false, battery: 100, responsive: true });
  });

  for (const error of ['JAMMED', 'DEVICE_UNREACHABLE'] as const) {
    it(`fail_next ${error} ends the task terminated successful:false error ${error}, the lock unmoved`, async () => {
      await simLockOk(t, LOCK_A, { fail_next: error });
      const taskId = await startTask(t, LOCK_A, 'unlock');
      assert.deepEqual(await waitForTask(t, taskId), failed(error));
      assert.deepEqual(await answer(await actionResult(t, taskId)), {
        status: 200,
        body: { task_id: taskId, ...failed(error) },
      });
      assert.deepEqual(await lockStatus(t, LOCK_A), { locked: true, battery: 100, responsive: true });
      // The planned failure is used up: the next command runs normally.
      assert.deepEqual(await waitForTask(t, await startTask(t, LOCK_A, 'unlock')), SUCCESS);
      assert.deepEqual(await lockStatus(t, LOCK_A), { locked: false, battery: 100, responsive: true });
    });
  }

  it('fail_next TIMEOUT keeps the task processing until the clock passes the 15 s timeout, then TIMEOUT', async () => {
    await simLockOk(t, LOCK_A, { fail_next: 'TIMEOUT' });
    const taskId = await startTask(t, LOCK_A, 'unlock');
    assert.deepEqual(await answer(await actionResult(t, taskId)), processing(taskId));
    await advanceClock(t, 14);
    assert.deepEqual(await answer(await actionResult(t, taskId)), processing(taskId));
    await advanceClock(t, 2);
    assert.deepEqual(await waitForTask(t, taskId), failed('TIMEOUT'));
    assert.deepEqual(await lockStatus(t, LOCK_A), { locked: true, battery: 100, responsive: true });
    // The swallowed command is used up and the lock is free again.
    assert.deepEqual(await waitForTask(t, await startTask(t, LOCK_A, 'unlock')), SUCCESS);
  });

  it('a device slower than the timeout (latency 60 s) ends the task TIMEOUT once the clock moves 16 s', async () => {
    await simLockOk(t, LOCK_A, { latency_ms: 60_000 });
    const taskId = await startTask(t, LOCK_A, 'unlock');
    assert.deepEqual(await answer(await actionResult(t, taskId)), processing(taskId));
    await advanceClock(t, 16);
    assert.deepEqual(await waitForTask(t, taskId), failed('TIMEOUT'));
  });

  it('follows a configured command timeout (--command-timeout-ms 2000)', async () => {
    const quick = await startServer({ flags: [...FLAGS, '--command-timeout-ms', '2000'] });
    try {
      await simLockOk(quick, LOCK_A, { fail_next: 'TIMEOUT' });
      const taskId = await startTask(quick, LOCK_A, 'unlock');
      await advanceClock(quick, 1);
      assert.deepEqual(await answer(await actionResult(quick, taskId)), processing(taskId));
      await advanceClock(quick, 2);
      assert.deepEqual(await waitForTask(quick, taskId), failed('TIMEOUT'));
    } finally {
      await quick.close();
    }
  });

  it('a device answer that arrives after the timeout does not change the task outcome', async () => {
    await simLockOk(t, LOCK_A, { latency_ms: 20_000 });
    const taskId = await startTask(t, LOCK_A, 'unlock');
    await advanceClock(t, 16);
    assert.deepEqual(await waitForTask(t, taskId), failed('TIMEOUT'));
    // The lock carries the command out at 20 s. The device is the truth about the lock, so the stored
    // status follows it, but the task already ended and stays as it ended.
    await advanceClock(t, 5);
    await eventually('the late unlock to reach the stored status', async () => {
      const body = (await lockStatus(t, LOCK_A)) as { locked: boolean };
      return body.locked === false;
    });
    // The clock's answer comes once the device's late answer has been handled in full.
    await advanceClock(t, 0);
    assert.deepEqual(await answer(await actionResult(t, taskId)), {
      status: 200,
      body: { task_id: taskId, ...failed('TIMEOUT') },
    });
  });

  it('one clock move past both the device answer (10 s) and the timeout (15 s) ends the task as the device answered', async () => {
    await simLockOk(t, LOCK_A, { latency_ms: 10_000 });
    const taskId = await startTask(t, LOCK_A, 'unlock');
    await advanceClock(t, 25);
    assert.deepEqual(await waitForTask(t, taskId), SUCCESS);
    assert.deepEqual(await lockStatus(t, LOCK_A), { locked: false, battery: 100, responsive: true });
  });

  it('one clock move past the timeout (15 s) and then a later device answer (20 s) ends the task TIMEOUT', async () => {
    await simLockOk(t, LOCK_A, { latency_ms: 20_000 });
    const taskId = await startTask(t, LOCK_A, 'unlock');
    await advanceClock(t, 25);
    assert.deepEqual(await waitForTask(t, taskId), failed('TIMEOUT'));
  });

  it('a device answer exactly one second before the timeout, reached in one clock move, counts', async () => {
    await simLockOk(t, LOCK_A, { latency_ms: 14_000 });
    const taskId = await startTask(t, LOCK_A, 'lock');
    await advanceClock(t, 15);
    assert.deepEqual(await waitForTask(t, taskId), SUCCESS);
  });

  it('a lock out of reach (responsive:false) ends the task DEVICE_UNREACHABLE', async () => {
    await simLockOk(t, LOCK_A, { responsive: false });
    assert.deepEqual(await lockStatus(t, LOCK_A), { locked: true, battery: 100, responsive: false });
    const taskId = await startTask(t, LOCK_A, 'unlock');
    assert.deepEqual(await waitForTask(t, taskId), failed('DEVICE_UNREACHABLE'));
    assert.deepEqual(await lockStatus(t, LOCK_A), { locked: true, battery: 100, responsive: false });
    // Back in reach, the next command runs.
    await simLockOk(t, LOCK_A, { responsive: true });
    assert.deepEqual(await waitForTask(t, await startTask(t, LOCK_A, 'unlock')), SUCCESS);
  });

  it('sync on a lock out of reach ends DEVICE_UNREACHABLE too', async () => {
    await simLockOk(t, LOCK_B, { responsive: false });
    assert.deepEqual(await waitForTask(t, await startTask(t, LOCK_B, 'sync')), failed('DEVICE_UNREACHABLE'));
  });

  it('the mobile app opened while a command is in flight ends the task DEVICE_IS_BUSY, the lock unmoved', async () => {
    await simLockOk(t, LOCK_A, { latency_ms: 5_000 });
    const taskId = await startTask(t, LOCK_A, 'unlock');
    await simLockOk(t, LOCK_A, { app_open: true });
    await advanceClock(t, 5);
    assert.deepEqual(await waitForTask(t, taskId), failed('DEVICE_IS_BUSY'));
    assert.deepEqual(await lockStatus(t, LOCK_A), { locked: true, battery: 100, responsive: true });
  });

  it('the battery running low while a command is in flight ends the task LOW_BATTERY', async () => {
    await simLockOk(t, LOCK_A, { latency_ms: 5_000 });
    const taskId = await startTask(t, LOCK_A, 'unlock');
    await simLockOk(t, LOCK_A, { battery: 4 });
    await advanceClock(t, 5);
    assert.deepEqual(await waitForTask(t, taskId), failed('LOW_BATTERY'));
    assert.deepEqual(await lockStatus(t, LOCK_A), { locked: true, battery: 4, responsive: true });
  });

  it('the lock going out of reach while a command is in flight ends the task DEVICE_UNREACHABLE', async () => {
    await simLockOk(t, LOCK_A, { latency_ms: 5_000 });
    const taskId = await startTask(t, LOCK_A, 'unlock');
    await simLockOk(t, LOCK_A, { responsive: false });
    await advanceClock(t, 5);
    assert.deepEqual(await waitForTask(t, taskId), failed('DEVICE_UNREACHABLE'));
  });

  it('tasks on different locks run side by side and end independently', async () => {
    await simLockOk(t, LOCK_A, { latency_ms: 60_000 });
    const slow = await startTask(t, LOCK_A, 'unlock');
    const fast = await startTask(t, LOCK_B, 'lock');
    assert.deepEqual(await waitForTask(t, fast), SUCCESS);
    assert.deepEqual(await answer(await actionResult(t, slow)), processing(slow));
    await advanceClock(t, 16);
    assert.deepEqual(await waitForTask(t, slow), failed('TIMEOUT'));
    assert.deepEqual(await waitForTask(t, fast), SUCCESS);
  });
});

describe('command lifecycle: sync', () => {
  let t: TestServer;
  beforeEach(async () => {
    t = await startServer({ flags: FLAGS });
  });
  afterEach(() => t.close());

  it('after the lock is turned by hand the stored status follows; sync succeeds and keeps the real state', async () => {
    await simLockOk(t, LOCK_A, { locked: false });
    assert.deepEqual(await lockStatus(t, LOCK_A), { locked: false, battery: 100, responsive: true });
    assert.deepEqual(await waitForTask(t, await startTask(t, LOCK_A, 'sync')), SUCCESS);
    assert.deepEqual(await lockStatus(t, LOCK_A), { locked: false, battery: 100, responsive: true });
    await simLockOk(t, LOCK_A, { locked: true });
    assert.deepEqual(await waitForTask(t, await startTask(t, LOCK_A, 'sync')), SUCCESS);
    assert.deepEqual(await lockStatus(t, LOCK_A), { locked: true, battery: 100, responsive: true });
  });

  it('sync never moves the lock, whichever state it is in', async () => {
    for (const [deviceId, locked, battery] of [
      [LOCK_A, true, 100],
      [LOCK_B, false, 55],
    ] as const) {
      assert.deepEqual(await waitForTask(t, await startTask(t, deviceId, 'sync')), SUCCESS);
      assert.deepEqual(await lockStatus(t, deviceId), { locked, battery, responsive: true });
    }
  });

  it('sync runs at low battery and reports the real state and battery', async () => {
    await simLockOk(t, LOCK_B, { battery: 3, locked: true });
    assert.deepEqual(await waitForTask(t, await startTask(t, LOCK_B, 'sync')), SUCCESS);
    assert.deepEqual(await lockStatus(t, LOCK_B), { locked: true, battery: 3, responsive: true });
  });

  it('a lock turned by hand while a sync is in flight: the sync reports the state it found', async () => {
    await simLockOk(t, LOCK_A, { latency_ms: 5_000 });
    const taskId = await startTask(t, LOCK_A, 'sync');
    await simLockOk(t, LOCK_A, { locked: false });
    await advanceClock(t, 5);
    assert.deepEqual(await waitForTask(t, taskId), SUCCESS);
    assert.deepEqual(await lockStatus(t, LOCK_A), { locked: false, battery: 100, responsive: true });
  });
});
