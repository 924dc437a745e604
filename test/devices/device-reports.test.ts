/**
 * Device reports are the truth (docs/device-protocol.md): a hand turn the access point reports
 * updates the stored status and fires the owner's webhook once, like a command would; and a turn the
 * cloud never heard of is found by a `sync`, whose answer carries the device's real state.
 *
 * The hand turns are made on a simulated access point run by the test; for the missed turn, a bare
 * MQTT client takes the access point's place and answers the sync with a state it never reported.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { SimulatedAccessPoint } from '../../src/simulator/access-point.ts';
import { settle } from '../http/webhooks/helpers.ts';
import {
  AP_HOME,
  deviceSeed,
  failed,
  lockStatus,
  type RawAp,
  type Rig,
  SUCCESS,
  seededDevice,
  startRig,
  statusIs,
  taskEnd,
} from '../support/devices.ts';
import { eventually } from '../support/eventually.ts';
import { advanceClock, LOCK_A, LOCK_B, OWNER, startTask } from '../support/server.ts';
import { type Receiver, startReceiver } from '../support/webhook-receiver.ts';

describe('device reports: hand turns and sync (embedded broker)', () => {
  let receiver: Receiver;
  let rig: Rig;
  let ap: SimulatedAccessPoint;
  let raw: RawAp;
  const expected: string[] = [];

  /** The log and the receiver hold exactly the changes so far, each delivered once. */
  async function expectChanges(...changes: string[]): Promise<void> {
    expected.push(...changes);
    const log = await settle(rig.t, expected.length);
    assert.deepEqual(
      log.map((e) => `${e.event} ${e.status} ${e.attempts} ${e.url.replace(receiver.url, '')}`),
      expected.map((change) => `lock.state_changed delivered 1 /owner/${change.replace(' ', '/')}`),
    );
    await receiver.waitFor(expected.length, 5000);
    assert.deepEqual(
      receiver.requests.map((r) => {
        const body = JSON.parse(r.body) as { device_id: string; state: string };
        return `${body.device_id} ${body.state}`;
      }),
      expected,
    );
  }

  before(async () => {
    receiver = await startReceiver();
    const seed = {
      ...deviceSeed(),
      webhooks: [{ account: OWNER, url: `${receiver.url}/owner/{device_id}/{state}` }],
    };
    rig = await startRig('embedded', { simulator: false, seed });
    ap = await rig.sim(AP_HOME, [seededDevice(LOCK_A), seededDevice(LOCK_B)]);
    assert.deepEqual(await taskEnd(rig.t, await startTask(rig.t, LOCK_A, 'sync')), SUCCESS);
  });
  after(async () => {
    await rig.close();
    await receiver.close();
  });

  it('a hand turn reported by the device updates the status and fires the webhook once', async () => {
    await ap.changeLock(LOCK_A, { locked: false });
    await eventually('the hand turn stored', statusIs(rig.t, LOCK_A, { locked: false }));
    assert.deepEqual(await lockStatus(rig.t, LOCK_A), { locked: false, battery: 100, responsive: true });
    await expectChanges(`${LOCK_A} unlocked`);
  });

  it('reports that do not move the lock fire nothing; the next turn fires once more', async () => {
    await ap.changeLock(LOCK_A, { battery: 80 });
    await ap.changeLock(LOCK_A, { locked: false });
    await ap.changeLock(LOCK_A, { app_open: true });
    await ap.changeLock(LOCK_A, { app_open: false });
    // A reconnect announces every state again: nothing new either.
    await ap.stop();
    await ap.start();
    await eventually(
      'battery 80 stored, responsive again',
      statusIs(rig.t, LOCK_A, { battery: 80, responsive: true }),
    );
    await ap.changeLock(LOCK_B, { locked: true });
    await eventually('the turn of LOCK_B', statusIs(rig.t, LOCK_B, { locked: true }));
    await expectChanges(`${LOCK_B} locked`);
  });

  it('a sync finds a hand turn the cloud missed: it ends successful and the status shows the device', async () => {
    await ap.stop();
    await eventually('LOCK_A unresponsive', statusIs(rig.t, LOCK_A, { responsive: false }));
    // The same access point, now a bare client: it reports what the cloud already knows ...
    raw = await rig.raw(AP_HOME);
    await raw.online();
    await raw.state(LOCK_A, { seq: 1, epoch: 'raw', locked: false, battery: 80 });
    await eventually('LOCK_A responsive', statusIs(rig.t, LOCK_A, { responsive: true }));
    assert.deepEqual(await lockStatus(rig.t, LOCK_A), { locked: false, battery: 80, responsive: true });
    // ... then someone locks it by hand, and the report is lost. The sync's answer tells the truth.
    const taskId = await startTask(rig.t, LOCK_A, 'sync');
    const command = await raw.command(0);
    assert.equal(command.message.task_id, taskId);
    assert.equal(command.message.command, 'sync');
    await raw.ack(LOCK_A, {
      task_id: taskId,
      seq: 2,
      epoch: 'raw',
      ok: true,
      state: { locked: true, battery: 79, reachable: true, app_open: false },
    });
    assert.deepEqual(await taskEnd(rig.t, taskId), SUCCESS);
    assert.deepEqual(await lockStatus(rig.t, LOCK_A), { locked: true, battery: 79, responsive: true });
    await expectChanges(`${LOCK_A} locked`);
    // A second sync that finds nothing new fires nothing.
    const again = await startTask(rig.t, LOCK_A, 'sync');
    await raw.command(1);
    await raw.ack(LOCK_A, {
      task_id: again,
      seq: 3,
      epoch: 'raw',
      ok: true,
      state: { locked: true, battery: 79, reachable: true, app_open: false },
    });
    assert.deepEqual(await taskEnd(rig.t, again), SUCCESS);
    await raw.state(LOCK_B, { seq: 4, epoch: 'raw', locked: false, battery: 50 });
    await eventually('the turn of LOCK_B', statusIs(rig.t, LOCK_B, { locked: false }));
    await expectChanges(`${LOCK_B} unlocked`);
  });

  it('an answer that comes after the timeout still updates the status; the task stays TIMEOUT', async () => {
    const taskId = await startTask(rig.t, LOCK_A, 'unlock');
    await raw.command(2);
    await advanceClock(rig.t, 16);
    assert.deepEqual(await taskEnd(rig.t, taskId), failed('TIMEOUT'));
    await raw.ack(LOCK_A, {
      task_id: taskId,
      seq: 5,
      epoch: 'raw',
      ok: true,
      state: { locked: false, battery: 78, reachable: true, app_open: false },
    });
    await eventually('the late answer stored', statusIs(rig.t, LOCK_A, { locked: false, battery: 78 }));
    assert.deepEqual(await taskEnd(rig.t, taskId), failed('TIMEOUT'));
    await expectChanges(`${LOCK_A} unlocked`);
  });
});
