/**
 * Device protocol versions 1 and 2 side by side, through the embedded broker and through Mosquitto
 * (docs/device-protocol.md, "Version 2"): an access point on today's messages keeps working
 * unchanged, and one on version 2 brings its locks' health and its own to the cloud, and receives
 * its locks' settings, which never reach a version-1 access point.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { SimulatedAccessPoint } from '../../src/simulator/access-point.ts';
import {
  AP_HOME,
  AP_OTHER,
  type BrokerKind,
  mosquittoUp,
  oldAndNew,
  type RawAp,
  type Rig,
  SUCCESS,
  seededDevice,
  startRig,
  taskEnd,
} from '../support/devices.ts';
import { eventually } from '../support/eventually.ts';
import {
  advanceClock,
  LOCK_A,
  LOCK_B,
  OTHER_KEY,
  OTHER_LOCK,
  OWNER_KEY,
  startTask,
} from '../support/server.ts';

for (const kind of ['embedded', 'mosquitto'] as const satisfies readonly BrokerKind[]) {
  describe(`device protocol 1 and 2 side by side (${kind} broker)`, async () => {
    const skip = kind === 'mosquitto' && !(await mosquittoUp()) && 'no Mosquitto on 127.0.0.1:1883';
    let rig: Rig;
    let home: SimulatedAccessPoint;
    let old: RawAp;

    before(async () => {
      if (skip) return;
      rig = await startRig(kind, { simulator: false });
      // Home speaks version 2 (the simulator's default); the other account's access point is a bare
      // client on version 1, writing exactly today's messages.
      ({ home, old } = await oldAndNew(rig, [
        seededDevice(LOCK_A, { door: 'closed', firmware: 'lock-fw/3.1' }),
        seededDevice(LOCK_B, { door: null }),
      ]));
    });
    after(async () => {
      if (!skip) await rig.close();
    });

    it('records each access point as its status says: version, firmware, signal', { skip }, async () => {
      const { accessPoints } = rig.t.server.store;
      await eventually('both statuses', async () => {
        const [a, b] = [await accessPoints.get(AP_HOME), await accessPoints.get(AP_OTHER)];
        return a?.online === true && a.protocolVersion === 2 && b?.online === true;
      });
      const v2 = await accessPoints.get(AP_HOME);
      assert.equal(v2?.protocolVersion, 2);
      assert.equal(v2?.firmware, 'lockcloud-sim/2');
      assert.ok(typeof v2?.signal === 'number' && v2.signal <= 0 && v2.signal >= -127, String(v2?.signal));
      const v1 = await accessPoints.get(AP_OTHER);
      assert.equal(v1?.protocolVersion, 1);
      assert.equal(v1?.signal, null);
    });

    it("stores a version-2 lock's health; a version-1 lock keeps the defaults", { skip }, async () => {
      const { locks } = rig.t.server.store;
      await eventually('the reports', async () => (await locks.get(LOCK_A))?.firmware === 'lock-fw/3.1');
      const a = await locks.get(LOCK_A);
      assert.equal(a?.door, 'closed');
      assert.equal(a?.jammed, false);
      const b = await locks.get(LOCK_B);
      assert.equal(b?.door, null, 'a version-2 report without a door: no sensor');
      await eventually('the v1 report', async () => (await locks.get(OTHER_LOCK))?.battery === 64);
      const other = await locks.get(OTHER_LOCK);
      assert.equal(other?.firmware, null);
      assert.equal(other?.jammed, false);
      assert.equal(other?.door, null);
    });

    it('a version-1 access point still gets version-1 commands and its ack ends the task', {
      skip,
    }, async () => {
      const taskId = await startTask(rig.t, OTHER_LOCK, 'unlock', OTHER_KEY);
      const command = await old.command(0);
      assert.equal(command.lock, OTHER_LOCK);
      assert.deepEqual(Object.keys(command.message).sort(), ['command', 'deadline', 'task_id', 'v']);
      assert.equal(command.message.v, 1);
      await old.ack(OTHER_LOCK, {
        task_id: command.message.task_id,
        seq: 2,
        ok: true,
        state: { locked: false, battery: 63, reachable: true, app_open: false },
      });
      await eventually(
        'the task to end',
        async () => (await rig.t.server.store.tasks.get(taskId))?.status === 'terminated',
      );
      const task = await rig.t.server.store.tasks.get(taskId);
      assert.deepEqual(task?.status === 'terminated' && task.outcome, { successful: true });
      assert.equal((await rig.t.server.store.locks.get(OTHER_LOCK))?.locked, false);
    });

    it('a door opened by hand on version 2 reaches the stored lock', { skip }, async () => {
      await home.changeLock(LOCK_A, { door: 'open' });
      await eventually('the door', async () => (await rig.t.server.store.locks.get(LOCK_A))?.door === 'open');
      await home.changeLock(LOCK_A, { door: 'closed' });
      await eventually('closed', async () => (await rig.t.server.store.locks.get(LOCK_A))?.door === 'closed');
    });

    it('settings reach a version-2 access point, which runs them and says so', { skip }, async () => {
      // Through the owner's setting: the cloud sends the device its owner's value back whenever a
      // report shows another (test/devices/auto-lock-settings.test.ts), so a bare configure() of
      // another value would be undone.
      const res = await rig.t.request(`/ext/locks/${LOCK_A}`, {
        method: 'PATCH',
        key: OWNER_KEY,
        json: { auto_lock_seconds: 30 },
      });
      assert.equal(res.status, 200);
      await eventually('the setting applied', () => home.lock(LOCK_A)?.autoLockSeconds === 30);
    });

    it('settings never reach a version-1 access point, which does not subscribe to them', {
      skip,
    }, async () => {
      rig.t.server.devices.gateway.configure(AP_OTHER, OTHER_LOCK, { autoLockSeconds: 30 });
      // A later command is delivered after the settings would have been: none came before it.
      const taskId = await startTask(rig.t, OTHER_LOCK, 'lock', OTHER_KEY);
      const command = await old.command(1);
      await old.ack(OTHER_LOCK, { task_id: command.message.task_id, seq: 3, ok: true });
      await eventually(
        'the task to end',
        async () => (await rig.t.server.store.tasks.get(taskId))?.status === 'terminated',
      );
      assert.deepEqual(
        old.received.filter((r) => r.topic.endsWith('/config')),
        [],
      );
    });

    it('the version-2 lock relocks itself on the clock and reports it as auto', { skip }, async () => {
      const { locks } = rig.t.server.store;
      const taskId = await startTask(rig.t, LOCK_A, 'unlock');
      assert.deepEqual(await taskEnd(rig.t, taskId), SUCCESS);
      assert.equal((await locks.get(LOCK_A))?.locked, false);
      await advanceClock(rig.t, 31);
      await eventually('the relock', async () => (await locks.get(LOCK_A))?.locked === true);
      assert.equal(home.lock(LOCK_A)?.locked, true);
    });

    it('with the door open the auto-lock waits, and relocks as the door closes', { skip }, async () => {
      const { locks } = rig.t.server.store;
      assert.deepEqual(await taskEnd(rig.t, await startTask(rig.t, LOCK_A, 'unlock')), SUCCESS);
      await home.changeLock(LOCK_A, { door: 'open' });
      await advanceClock(rig.t, 31);
      assert.equal(home.lock(LOCK_A)?.locked, false, 'not with the door open');
      await home.changeLock(LOCK_A, { door: 'closed' });
      await eventually('the relock', async () => (await locks.get(LOCK_A))?.locked === true);
    });
  });
}
