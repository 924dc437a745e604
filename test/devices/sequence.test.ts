/**
 * Sequence numbers (docs/device-protocol.md, "State report"): the cloud applies a lock's report only
 * if its seq is higher than the last one applied from that access point in the same epoch; a new
 * epoch (the access point lost its counter) starts the count again. Late, duplicate and out-of-order
 * reports change nothing, and neither does a report some other access point sent about the lock.
 *
 * The access points are bare MQTT clients run by the test; each check of "nothing changed" comes
 * after a later report of the same access point has been applied (its messages are handled in order).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  AP_GARAGE,
  AP_HOME,
  lockStatus,
  NEW_LOCK,
  type RawAp,
  type Rig,
  startRig,
} from '../support/devices.ts';
import { eventually } from '../support/eventually.ts';
import { LOCK_A, LOCK_B, type TestServer } from '../support/server.ts';

async function appliedBattery(t: TestServer, deviceId: string, battery: number): Promise<void> {
  await eventually(
    `${deviceId} battery ${battery}`,
    // A lock still being paired is not found yet: keep asking.
    async () => (await lockStatus(t, deviceId).catch(() => undefined))?.battery === battery,
  );
}

describe('sequence numbers (embedded broker)', () => {
  let rig: Rig;
  let home: RawAp;
  before(async () => {
    rig = await startRig('embedded', { simulator: false });
    home = await rig.raw(AP_HOME);
    await home.online();
  });
  after(() => rig.close());

  it('a higher seq applies; a duplicate or lower one (same epoch) changes nothing', async () => {
    await home.state(LOCK_A, { seq: 10, epoch: 'E1', locked: false, battery: 90 });
    await appliedBattery(rig.t, LOCK_A, 90);
    assert.deepEqual(await lockStatus(rig.t, LOCK_A), { locked: false, battery: 90, responsive: true });
    await home.state(LOCK_A, { seq: 10, epoch: 'E1', locked: true, battery: 10 });
    await home.state(LOCK_A, { seq: 5, epoch: 'E1', locked: true, battery: 11, reachable: false });
    await home.ack(LOCK_A, {
      task_id: 'a-late-answer',
      seq: 9,
      epoch: 'E1',
      ok: true,
      state: { locked: true, battery: 12, reachable: true, app_open: false },
    });
    await home.state(LOCK_A, { seq: 11, epoch: 'E1', locked: false, battery: 89 });
    await appliedBattery(rig.t, LOCK_A, 89);
    assert.deepEqual(await lockStatus(rig.t, LOCK_A), { locked: false, battery: 89, responsive: true });
    await home.state(LOCK_A, { seq: 12, epoch: 'E1', locked: true, battery: 88 });
    await appliedBattery(rig.t, LOCK_A, 88);
    assert.deepEqual(await lockStatus(rig.t, LOCK_A), { locked: true, battery: 88, responsive: true });
  });

  it('the counter is per lock: another lock starts low', async () => {
    await home.state(LOCK_B, { seq: 1, epoch: 'E1', locked: true, battery: 50 });
    await appliedBattery(rig.t, LOCK_B, 50);
    assert.deepEqual(await lockStatus(rig.t, LOCK_B), { locked: true, battery: 50, responsive: true });
  });

  it('a new epoch restarts the count; within it, the same rules', async () => {
    await home.state(LOCK_A, { seq: 1, epoch: 'E2', locked: false, battery: 87 });
    await appliedBattery(rig.t, LOCK_A, 87);
    await home.state(LOCK_A, { seq: 1, epoch: 'E2', locked: true, battery: 20 });
    await home.state(LOCK_A, { seq: 2, epoch: 'E2', locked: false, battery: 86 });
    await appliedBattery(rig.t, LOCK_A, 86);
    assert.deepEqual(await lockStatus(rig.t, LOCK_A), { locked: false, battery: 86, responsive: true });
  });

  it('a report without epoch is an epoch of its own', async () => {
    await home.state(LOCK_A, { seq: 1, locked: true, battery: 85 });
    await appliedBattery(rig.t, LOCK_A, 85);
    await home.state(LOCK_A, { seq: 1, locked: false, battery: 30 });
    await home.state(LOCK_A, { seq: 2, locked: true, battery: 84 });
    await appliedBattery(rig.t, LOCK_A, 84);
  });

  it('another access point reporting a huge seq for the lock does not silence the one it is paired with', async () => {
    const garage = await rig.raw(AP_GARAGE);
    await garage.state(LOCK_A, { seq: Number.MAX_SAFE_INTEGER, locked: false, battery: 1 });
    await garage.ack(LOCK_A, {
      task_id: 'forged',
      seq: Number.MAX_SAFE_INTEGER,
      ok: true,
      state: { locked: false, battery: 1, reachable: true, app_open: false },
    });
    // A report of its own lock, applied: what it sent before has been handled.
    await garage.pair([{ device_id: NEW_LOCK, serial: 'SERIALNEW1', nickname: 'Shed' }]);
    await garage.state(NEW_LOCK, { seq: 1, locked: true, battery: 70 });
    await appliedBattery(rig.t, NEW_LOCK, 70);
    await home.state(LOCK_A, { seq: 3, locked: true, battery: 83 });
    await appliedBattery(rig.t, LOCK_A, 83);
    assert.deepEqual(await lockStatus(rig.t, LOCK_A), { locked: true, battery: 83, responsive: true });
    garage.end();
  });

  it("a lock moved to another access point follows that one's counter, even if lower", async () => {
    await home.state(LOCK_B, { seq: 500, locked: true, battery: 49 });
    await appliedBattery(rig.t, LOCK_B, 49);
    const garage = await rig.raw(AP_GARAGE);
    await garage.online();
    await garage.pair([{ device_id: LOCK_B, serial: 'SERIAL000B', nickname: 'Back door' }]);
    await garage.state(LOCK_B, { seq: 1, locked: false, battery: 48 });
    await appliedBattery(rig.t, LOCK_B, 48);
    assert.deepEqual(await lockStatus(rig.t, LOCK_B), { locked: false, battery: 48, responsive: true });
    // The old access point no longer speaks for it, whatever its seq.
    await home.state(LOCK_B, { seq: 501, locked: true, battery: 5 });
    await home.state(LOCK_A, { seq: 4, locked: true, battery: 82 });
    await appliedBattery(rig.t, LOCK_A, 82);
    assert.deepEqual(await lockStatus(rig.t, LOCK_B), { locked: false, battery: 48, responsive: true });
    garage.end();
  });
});
