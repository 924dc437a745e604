/**
 * The owner's auto-lock setting from PATCH /ext/locks/{device_id} to the device and back, through the
 * embedded broker and through Mosquitto (docs/locks.md): the setting is sent to a version-2 access
 * point, which relocks on the sandbox clock and reports it as auto (lock.locked with method auto and
 * lock.auto_locked in the log); a device that runs another delay is sent the setting again; a lock
 * on a version-1 access point is refused auto-lock, naming why.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { SimulatedAccessPoint } from '../../src/simulator/access-point.ts';
import {
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
import { advanceClock, LOCK_A, OTHER_KEY, OTHER_LOCK, OWNER_KEY, startTask } from '../support/server.ts';

interface EventJson {
  type: string;
  method: string | null;
  actor: { kind: string };
  data: Record<string, unknown>;
}

for (const kind of ['embedded', 'mosquitto'] as const satisfies readonly BrokerKind[]) {
  describe(`auto-lock from /ext to the device (${kind} broker)`, async () => {
    const skip = kind === 'mosquitto' && !(await mosquittoUp()) && 'no Mosquitto on 127.0.0.1:1883';
    let rig: Rig;
    let home: SimulatedAccessPoint;
    let old: RawAp;

    before(async () => {
      if (skip) return;
      rig = await startRig(kind, { simulator: false });
      ({ home, old } = await oldAndNew(rig, [seededDevice(LOCK_A)]));
    });
    after(async () => {
      if (!skip) await rig.close();
    });

    const patch = (deviceId: string, json: unknown, key = OWNER_KEY) =>
      rig.t.request(`/ext/locks/${deviceId}`, { method: 'PATCH', key, json });

    it('sends the setting to the device, which runs it', { skip }, async () => {
      const res = await patch(LOCK_A, { auto_lock_seconds: 20 });
      const body = (await res.json()) as { auto_lock_seconds: number };
      assert.equal(res.status, 200, JSON.stringify(body));
      assert.equal(body.auto_lock_seconds, 20);
      await eventually('the device to run it', () => home.lock(LOCK_A)?.autoLockSeconds === 20);
    });

    it('relocks on the clock: lock.locked with method auto, and lock.auto_locked', { skip }, async () => {
      assert.deepEqual(await taskEnd(rig.t, await startTask(rig.t, LOCK_A, 'unlock')), SUCCESS);
      await advanceClock(rig.t, 21);
      await eventually('the relock stored', async () => (await rig.t.server.store.locks.get(LOCK_A))?.locked);
      const res = await rig.t.request(`/ext/events?device_id=${LOCK_A}&type=lock.&order=newest-first`, {
        key: OWNER_KEY,
      });
      const { events } = (await res.json()) as { events: EventJson[] };
      const relock = events.find((e) => e.type === 'lock.locked');
      assert.deepEqual(relock && { method: relock.method, actor: relock.actor }, {
        method: 'auto',
        actor: { kind: 'device' },
      });
      const notice = events.find((e) => e.type === 'lock.auto_locked');
      assert.deepEqual(notice?.data, { after_seconds: 20 });
      const v3 = await rig.t.request(`/public/lock/${LOCK_A}`, { key: OWNER_KEY });
      assert.equal(((await v3.json()) as { locked: boolean }).locked, true);
    });

    it('sends the setting again to a device that runs another delay', { skip }, async () => {
      // A device that lost its settings (a factory reset, a new unit) reports auto-lock off.
      const lock = home.lock(LOCK_A);
      assert.ok(lock);
      home.reload([{ ...lock, autoLockSeconds: 0 }]);
      await eventually('the setting sent again and run', () => home.lock(LOCK_A)?.autoLockSeconds === 20);
    });

    it('turning it off is sent too', { skip }, async () => {
      assert.equal((await patch(LOCK_A, { auto_lock_seconds: 0 })).status, 200);
      await eventually('off on the device', () => home.lock(LOCK_A)?.autoLockSeconds === 0);
    });

    it('refuses auto-lock for a lock on a version-1 access point, and sends it nothing', {
      skip,
    }, async () => {
      const res = await patch(OTHER_LOCK, { auto_lock_seconds: 30 }, OTHER_KEY);
      assert.equal(res.status, 400);
      const body = (await res.json()) as { error: string; message: string };
      assert.equal(body.error, 'BAD_PARAMS');
      assert.match(body.message, /auto_lock_seconds: .*device protocol 1/);
      // Off is always accepted: there is nothing to carry out.
      assert.equal((await patch(OTHER_LOCK, { auto_lock_seconds: 0 }, OTHER_KEY)).status, 200);
      assert.deepEqual(
        old.received.filter((r) => r.topic.endsWith('/config')),
        [],
      );
    });
  });
}
