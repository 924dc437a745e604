/**
 * An access point that loses power: the broker publishes its last will, its locks turn unresponsive
 * within a few seconds, commands to them end DEVICE_UNREACHABLE at once instead of after the 15 s
 * timeout, and a command already on its way to a slow lock ends the same way. When the access point
 * comes back, so do its locks. The access points run in the test process (--no-simulator).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { SimulatedAccessPoint } from '../../src/simulator/access-point.ts';
import {
  AP_HOME,
  AP_OTHER,
  failed,
  lockStatus,
  type Rig,
  SUCCESS,
  seededDevice,
  startRig,
  statusIs,
  taskEnd,
} from '../support/devices.ts';
import { eventually } from '../support/eventually.ts';
import { LOCK_A, LOCK_B, OTHER_KEY, OTHER_LOCK, OWNER_KEY, simLockOk, startTask } from '../support/server.ts';

/** Far below the 15 s command timeout: an answer this fast was not a timeout. */
const FAST_MS = 2000;

describe('an access point killed (embedded broker)', () => {
  let rig: Rig;
  let ap: SimulatedAccessPoint;
  before(async () => {
    rig = await startRig('embedded', { simulator: false });
    ap = await rig.sim(AP_HOME, [seededDevice(LOCK_A), seededDevice(LOCK_B)]);
  });
  after(() => rig.close());

  it('serves commands while it is connected', async () => {
    assert.deepEqual(await taskEnd(rig.t, await startTask(rig.t, LOCK_A, 'unlock')), SUCCESS);
    assert.deepEqual(await lockStatus(rig.t, LOCK_A), { locked: false, battery: 100, responsive: true });
  });

  it('power loss: its locks turn unresponsive within a few seconds, commands fail at once', async (c) => {
    ap.kill();
    const killed = performance.now();
    await eventually(
      'both locks unresponsive',
      async () =>
        (await statusIs(rig.t, LOCK_A, { responsive: false })()) &&
        statusIs(rig.t, LOCK_B, { responsive: false })(),
      5000,
    );
    c.diagnostic(
      `locks unresponsive ${(performance.now() - killed).toFixed(0)} ms after the access point died`,
    );
    // The rest of the status is the last known one.
    assert.deepEqual(await lockStatus(rig.t, LOCK_A), { locked: false, battery: 100, responsive: false });
    for (const command of ['lock', 'unlock', 'sync']) {
      const started = performance.now();
      const taskId = await startTask(rig.t, LOCK_A, command);
      assert.deepEqual(await taskEnd(rig.t, taskId, FAST_MS), failed('DEVICE_UNREACHABLE'), command);
      c.diagnostic(
        `${command} to a lock of a dead access point ended in ${(performance.now() - started).toFixed(0)} ms`,
      );
    }
  });

  it('coming back makes its locks responsive again, and they obey', async () => {
    await ap.start();
    await eventually('LOCK_A responsive', statusIs(rig.t, LOCK_A, { responsive: true }));
    await eventually('LOCK_B responsive', statusIs(rig.t, LOCK_B, { responsive: true }));
    assert.deepEqual(await taskEnd(rig.t, await startTask(rig.t, LOCK_A, 'lock')), SUCCESS);
    assert.deepEqual(await lockStatus(rig.t, LOCK_A), { locked: true, battery: 100, responsive: true });
  });

  it('a command in flight to a slow lock ends DEVICE_UNREACHABLE as soon as its access point dies', async (c) => {
    // Relayed over MQTT to the test's own access point, like any sandbox change.
    await simLockOk(rig.t, LOCK_A, { latency_ms: 10_000 });
    assert.equal(ap.lock(LOCK_A)?.latencyMs, 10_000);
    const taskId = await startTask(rig.t, LOCK_A, 'unlock');
    const res = await rig.t.request(`/public/action-result?task_id=${taskId}`, { key: OWNER_KEY });
    assert.deepEqual(await res.json(), { status: 'processing', task_id: taskId });
    const started = performance.now();
    ap.kill();
    assert.deepEqual(await taskEnd(rig.t, taskId, FAST_MS), failed('DEVICE_UNREACHABLE'));
    c.diagnostic(
      `the task in flight ended ${(performance.now() - started).toFixed(0)} ms after the power loss`,
    );
    // The lock never moved: the access point died before carrying the command out.
    assert.deepEqual(await lockStatus(rig.t, LOCK_A), { locked: true, battery: 100, responsive: false });
    await ap.start();
    await eventually('LOCK_A responsive', statusIs(rig.t, LOCK_A, { responsive: true }));
    assert.equal((await lockStatus(rig.t, LOCK_A)).locked, true);
  });

  it('a bare MQTT access point whose socket is destroyed: its lock turns unresponsive, then back', async () => {
    const other = await rig.raw(AP_OTHER);
    await other.online();
    await other.state(OTHER_LOCK, { seq: 1, epoch: 'e1', locked: false, battery: 80 });
    const theirs = async (expected: Record<string, unknown>): Promise<boolean> => {
      const status = await lockStatus(rig.t, OTHER_LOCK, OTHER_KEY);
      return Object.entries(expected).every(([k, v]) => status[k] === v);
    };
    await eventually('the report applied', () => theirs({ locked: false, battery: 80, responsive: true }));
    other.kill();
    await eventually('OTHER_LOCK unresponsive', () => theirs({ responsive: false }), 5000);
    const again = await rig.raw(AP_OTHER);
    await again.online();
    await again.state(OTHER_LOCK, { seq: 2, epoch: 'e1', locked: false, battery: 80 });
    await eventually('OTHER_LOCK responsive', () => theirs({ responsive: true }));
  });
});
