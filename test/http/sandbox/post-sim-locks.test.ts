import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import {
  advanceClock,
  LOCK_A,
  LOCK_B,
  OTHER_LOCK,
  sendCommand,
  simLock,
  startServer,
  type TestServer,
  waitForTask,
} from '../../support/server.ts';
import { acceptedTask, json, lockStatus, taskResult } from './helpers.ts';

describe('POST /_sim/locks/:device_id', () => {
  let t: TestServer;
  beforeEach(async () => {
    t = await startServer();
  });
  afterEach(() => t.close());

  it('answers 200 with the simulated state; an empty body changes nothing', async () => {
    const res = await simLock(t, LOCK_A, {});
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'application/json; charset=utf-8');
    assert.deepEqual(await res.json(), {
      device_id: LOCK_A,
      locked: true,
      battery: 100,
      responsive: true,
      integration: true,
      access_point: true,
      app_open: false,
      latency_ms: 0,
      fail_next: null,
      jammed: false,
      door: 'closed',
      firmware: 'lockcloud-sim-lock/2',
      auto_lock_seconds: 0,
      protocol_version: 2,
    });
    const other = await json(await simLock(t, LOCK_B, {}));
    assert.equal(other.locked, false);
    assert.equal(other.battery, 55);
  });

  it('answers with every field it was given, and keeps the ones it was not', async () => {
    const res = await simLock(t, LOCK_A, { battery: 42, latency_ms: 250, fail_next: 'JAMMED' });
    assert.deepEqual(await res.json(), {
      device_id: LOCK_A,
      locked: true,
      battery: 42,
      responsive: true,
      integration: true,
      access_point: true,
      app_open: false,
      latency_ms: 250,
      fail_next: 'JAMMED',
      jammed: false,
      door: 'closed',
      firmware: 'lockcloud-sim-lock/2',
      auto_lock_seconds: 0,
      protocol_version: 2,
    });
    const again = await json(await simLock(t, LOCK_A, { locked: false }));
    assert.equal(again.battery, 42);
    assert.equal(again.latency_ms, 250);
    assert.equal(again.fail_next, 'JAMMED');
    assert.equal(again.locked, false);
  });

  it('accepts the device id in upper case', async () => {
    const res = await simLock(t, LOCK_A.toUpperCase(), { battery: 77 });
    assert.equal(res.status, 200);
    assert.equal((await json(res)).device_id, LOCK_A);
    assert.equal((await lockStatus(t, LOCK_A)).battery, 77);
  });

  it('locked: the lock turned by hand shows in GET /public/lock without any task', async () => {
    const res = await simLock(t, LOCK_A, { locked: false });
    assert.equal((await json(res)).locked, false);
    assert.deepEqual(await lockStatus(t, LOCK_A), { locked: false, battery: 100, responsive: true });
    await simLock(t, LOCK_A, { locked: true });
    assert.equal((await lockStatus(t, LOCK_A)).locked, true);
  });

  it('locked: a real change is announced once (what fires the webhook); no change, no announcement', async () => {
    const events: unknown[] = [];
    const stop = t.server.events.onLockStateChanged((e) => events.push({ ...e, at: undefined }));
    try {
      await simLock(t, LOCK_A, { locked: false });
      await simLock(t, LOCK_A, { locked: false });
      await simLock(t, LOCK_A, { battery: 80 });
      await simLock(t, LOCK_A, { locked: true });
      const ownerId = (await t.server.store.locks.get(LOCK_A))?.ownerId;
      assert.deepEqual(events, [
        { deviceId: LOCK_A, ownerId, locked: false, at: undefined },
        { deviceId: LOCK_A, ownerId, locked: true, at: undefined },
      ]);
    } finally {
      stop();
    }
  });

  it('locked: a later sync reads the hand-turned state from the lock', async () => {
    await simLock(t, LOCK_B, { locked: true });
    const taskId = await acceptedTask(t, LOCK_B, 'sync');
    assert.deepEqual(await waitForTask(t, taskId), { status: 'terminated', successful: true });
    assert.equal((await lockStatus(t, LOCK_B)).locked, true);
  });

  it('battery: the level shows in GET /public/lock, and under the threshold lock/unlock answer LOW_BATTERY', async () => {
    await simLock(t, LOCK_A, { battery: 5 });
    assert.deepEqual(await lockStatus(t, LOCK_A), { locked: true, battery: 5, responsive: true });
    for (const command of ['lock', 'unlock']) {
      const res = await sendCommand(t, LOCK_A, command);
      assert.equal(res.status, 400);
      assert.deepEqual(await res.json(), { error: 'LOW_BATTERY' });
    }
    // sync moves nothing, so low battery does not refuse it.
    const taskId = await acceptedTask(t, LOCK_A, 'sync');
    assert.deepEqual(await waitForTask(t, taskId), { status: 'terminated', successful: true });
    await simLock(t, LOCK_A, { battery: 10 });
    const ok = await acceptedTask(t, LOCK_A, 'unlock');
    assert.deepEqual(await waitForTask(t, ok), { status: 'terminated', successful: true });
    assert.deepEqual(await lockStatus(t, LOCK_A), { locked: false, battery: 10, responsive: true });
  });

  it('responsive: false shows in GET /public/lock and commands end DEVICE_UNREACHABLE; true brings it back', async () => {
    const res = await simLock(t, LOCK_A, { responsive: false });
    assert.equal((await json(res)).responsive, false);
    assert.equal((await lockStatus(t, LOCK_A)).responsive, false);
    const taskId = await acceptedTask(t, LOCK_A, 'unlock');
    assert.deepEqual(await waitForTask(t, taskId), {
      status: 'terminated',
      successful: false,
      error: 'DEVICE_UNREACHABLE',
    });
    assert.equal((await lockStatus(t, LOCK_A)).locked, true, 'an unreachable lock did not move');

    await simLock(t, LOCK_A, { responsive: true });
    assert.equal((await lockStatus(t, LOCK_A)).responsive, true);
    const again = await acceptedTask(t, LOCK_A, 'unlock');
    assert.deepEqual(await waitForTask(t, again), { status: 'terminated', successful: true });
    assert.equal((await lockStatus(t, LOCK_A)).locked, false);
  });

  it('integration: false refuses commands with CLOUD_INTEGRATION_NOT_ENABLED; the status stays readable', async () => {
    const res = await simLock(t, LOCK_A, { integration: false });
    assert.equal(res.status, 200);
    const state = await json(res);
    assert.equal(state.integration, false);
    assert.equal(state.access_point, true);
    for (const command of ['lock', 'unlock', 'sync']) {
      const refused = await sendCommand(t, LOCK_A, command);
      assert.equal(refused.status, 400);
      assert.deepEqual(await refused.json(), { error: 'CLOUD_INTEGRATION_NOT_ENABLED' });
    }
    assert.deepEqual(await lockStatus(t, LOCK_A), { locked: true, battery: 100, responsive: true });
    assert.equal((await json(await simLock(t, LOCK_A, {}))).integration, false, 'the setting is kept');

    await simLock(t, LOCK_A, { integration: true });
    const taskId = await acceptedTask(t, LOCK_A, 'unlock');
    assert.deepEqual(await waitForTask(t, taskId), { status: 'terminated', successful: true });
  });

  it('integration: checked before the battery, as the documented order says', async () => {
    await simLock(t, LOCK_A, { integration: false, battery: 1 });
    const res = await sendCommand(t, LOCK_A, 'lock');
    assert.deepEqual(await res.json(), { error: 'CLOUD_INTEGRATION_NOT_ENABLED' });
  });

  it('access_point: false makes the lock unresponsive and refuses commands with CLOUD_INTEGRATION_NOT_ENABLED', async () => {
    const res = await simLock(t, LOCK_A, { access_point: false });
    assert.equal(res.status, 200);
    const state = await json(res);
    assert.equal(state.access_point, false);
    assert.equal(state.integration, true);
    assert.equal((await lockStatus(t, LOCK_A)).responsive, false);
    for (const command of ['lock', 'unlock', 'sync']) {
      const refused = await sendCommand(t, LOCK_A, command);
      assert.equal(refused.status, 400);
      assert.deepEqual(await refused.json(), { error: 'CLOUD_INTEGRATION_NOT_ENABLED' });
    }
    // A hand turn while unpaired cannot reach the cloud.
    await simLock(t, LOCK_A, { locked: false });
    assert.equal((await lockStatus(t, LOCK_A)).locked, true);

    const back = await json(await simLock(t, LOCK_A, { access_point: true }));
    assert.equal(back.access_point, true);
    assert.deepEqual(await lockStatus(t, LOCK_A), { locked: false, battery: 100, responsive: true });
    const taskId = await acceptedTask(t, LOCK_A, 'lock');
    assert.deepEqual(await waitForTask(t, taskId), { status: 'terminated', successful: true });
  });

  it('app_open: true refuses commands with a plain DEVICE_IS_BUSY (no wait is known); false frees the lock', async () => {
    const res = await simLock(t, LOCK_A, { app_open: true });
    assert.equal((await json(res)).app_open, true);
    for (const command of ['lock', 'unlock', 'sync']) {
      const refused = await sendCommand(t, LOCK_A, command);
      assert.equal(refused.status, 400);
      assert.deepEqual(await refused.json(), { error: 'DEVICE_IS_BUSY' });
    }
    await simLock(t, LOCK_A, { app_open: false });
    const taskId = await acceptedTask(t, LOCK_A, 'unlock');
    assert.deepEqual(await waitForTask(t, taskId), { status: 'terminated', successful: true });
  });

  it('latency_ms: the task stays processing until that much time has passed on the clock', async () => {
    const state = await json(await simLock(t, LOCK_A, { latency_ms: 5000 }));
    assert.equal(state.latency_ms, 5000);
    const taskId = await acceptedTask(t, LOCK_A, 'unlock');
    // The clock's answer comes once the command is at the lock and nothing moves until the clock does.
    await advanceClock(t, 0);
    assert.deepEqual(await (await taskResult(t, taskId)).json(), { status: 'processing', task_id: taskId });
    const busy = await sendCommand(t, LOCK_A, 'lock');
    assert.equal(busy.status, 400);
    const { error } = await json(busy);
    const wait = /^DEVICE_IS_BUSY (\d+)$/.exec(String(error));
    assert.ok(wait, `expected DEVICE_IS_BUSY n, got ${String(error)}`);
    const seconds = Number(wait[1]);
    assert.ok(seconds >= 1 && seconds <= 15, `wait ${seconds} s`);
    assert.equal((await lockStatus(t, LOCK_A)).locked, true);

    await advanceClock(t, 5);
    assert.deepEqual(await waitForTask(t, taskId), { status: 'terminated', successful: true });
    assert.equal((await lockStatus(t, LOCK_A)).locked, false);
  });

  it('fail_next: JAMMED fails the next command once, then the lock works again', async () => {
    const state = await json(await simLock(t, LOCK_A, { fail_next: 'JAMMED' }));
    assert.equal(state.fail_next, 'JAMMED');
    const taskId = await acceptedTask(t, LOCK_A, 'unlock');
    assert.deepEqual(await waitForTask(t, taskId), {
      status: 'terminated',
      successful: false,
      error: 'JAMMED',
    });
    assert.equal((await lockStatus(t, LOCK_A)).locked, true);
    const after = await json(await simLock(t, LOCK_A, {}));
    assert.equal(after.fail_next, null, 'used up');
    assert.equal(after.jammed, false, 'a planned failure, not a jam that stays');
    const next = await acceptedTask(t, LOCK_A, 'unlock');
    assert.deepEqual(await waitForTask(t, next), { status: 'terminated', successful: true });
  });

  it('jammed: true jams the lock until jammed: false (or a hand turn) frees it', async () => {
    assert.equal((await json(await simLock(t, LOCK_A, { jammed: true }))).jammed, true);
    const jammed = { status: 'terminated', successful: false, error: 'JAMMED' };
    assert.deepEqual(await waitForTask(t, await acceptedTask(t, LOCK_A, 'unlock')), jammed);
    assert.deepEqual(await waitForTask(t, await acceptedTask(t, LOCK_A, 'unlock')), jammed);
    assert.equal((await json(await simLock(t, LOCK_A, { jammed: false }))).jammed, false, 'freed');
    const next = await acceptedTask(t, LOCK_A, 'unlock');
    assert.deepEqual(await waitForTask(t, next), { status: 'terminated', successful: true });
  });

  it('fail_next: DEVICE_UNREACHABLE fails the next command that way', async () => {
    await simLock(t, LOCK_A, { fail_next: 'DEVICE_UNREACHABLE' });
    const taskId = await acceptedTask(t, LOCK_A, 'lock');
    assert.deepEqual(await waitForTask(t, taskId), {
      status: 'terminated',
      successful: false,
      error: 'DEVICE_UNREACHABLE',
    });
  });

  it('fail_next: TIMEOUT leaves the task processing until the command timeout, then TIMEOUT', async () => {
    await simLock(t, LOCK_A, { fail_next: 'TIMEOUT' });
    const taskId = await acceptedTask(t, LOCK_A, 'unlock');
    // The clock's answer comes once the lock has swallowed the command: only the deadline is left.
    await advanceClock(t, 0);
    assert.deepEqual(await (await taskResult(t, taskId)).json(), { status: 'processing', task_id: taskId });
    await advanceClock(t, 15);
    assert.deepEqual(await waitForTask(t, taskId), {
      status: 'terminated',
      successful: false,
      error: 'TIMEOUT',
    });
    const next = await acceptedTask(t, LOCK_A, 'unlock');
    assert.deepEqual(await waitForTask(t, next), { status: 'terminated', successful: true });
  });

  it('fail_next: null clears a planned failure', async () => {
    await simLock(t, LOCK_A, { fail_next: 'JAMMED' });
    const res = await simLock(t, LOCK_A, { fail_next: null });
    assert.equal(res.status, 200);
    assert.equal((await json(res)).fail_next, null);
    const taskId = await acceptedTask(t, LOCK_A, 'unlock');
    assert.deepEqual(await waitForTask(t, taskId), { status: 'terminated', successful: true });
  });

  it('changes only the lock it names', async () => {
    await simLock(t, LOCK_A, { battery: 3, locked: false, app_open: true });
    assert.deepEqual(await lockStatus(t, LOCK_B), { locked: false, battery: 55, responsive: true });
    const taskId = await acceptedTask(t, LOCK_B, 'lock');
    assert.deepEqual(await waitForTask(t, taskId), { status: 'terminated', successful: true });
  });

  it("works on any account's lock (the sandbox has no credentials)", async () => {
    const res = await simLock(t, OTHER_LOCK, { battery: 12 });
    assert.equal(res.status, 200);
    assert.equal((await json(res)).battery, 12);
  });

  it('answers 404 NOT_FOUND for a lock that does not exist', async () => {
    const res = await simLock(t, '00000000-0000-4000-8000-0000000000ff', { battery: 50 });
    assert.equal(res.status, 404);
    assert.equal((await json(res)).error, 'NOT_FOUND');
  });

  it('answers 400 BAD_PARAMS for a malformed device id', async () => {
    const res = await simLock(t, 'not-a-uuid', { battery: 50 });
    assert.equal(res.status, 400);
    assert.equal((await json(res)).error, 'BAD_PARAMS');
  });

  it('answers 400 BAD_PARAMS, with a message, for bad values, and changes nothing', async () => {
    const bad: Record<string, unknown>[] = [
      { battery: 101 },
      { battery: -1 },
      { battery: 50.5 },
      { battery: '50' },
      { battery: null },
      { locked: 'yes' },
      { locked: 1 },
      { responsive: 'false' },
      { integration: null },
      { access_point: 0 },
      { app_open: 'true' },
      { latency_ms: -1 },
      { latency_ms: 1.5 },
      { latency_ms: 600_001 },
      { fail_next: 'LOW_BATTERY' },
      { fail_next: 'EXPLODE' },
      { fail_next: 'jammed' },
      { colour: 'red' },
      { battery: 50, colour: 'red' },
    ];
    for (const body of bad) {
      const res = await simLock(t, LOCK_A, body);
      assert.equal(res.status, 400, JSON.stringify(body));
      const answer = await json(res);
      assert.equal(answer.error, 'BAD_PARAMS', JSON.stringify(body));
      assert.equal(typeof answer.message, 'string', JSON.stringify(body));
    }
    for (const raw of ['[]', '"x"', '{"battery":', 'null']) {
      const res = await t.request(`/_sim/locks/${LOCK_A}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: raw,
      });
      assert.equal(res.status, 400, raw);
      assert.equal((await json(res)).error, 'BAD_PARAMS', raw);
    }
    assert.deepEqual(await lockStatus(t, LOCK_A), { locked: true, battery: 100, responsive: true });
    assert.equal((await json(await simLock(t, LOCK_A, {}))).latency_ms, 0);
  });
});
