/**
 * POST /_sim/locks/{id} and the lock's health (device protocol 2, docs/sandbox.md): door, jammed and
 * firmware are relayed to a lock whose access point speaks version 2, refused for one on version 1.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AP_HOME, AP_OTHER, type Rig, seededDevice, startRig } from '../../support/devices.ts';
import { eventually } from '../../support/eventually.ts';
import { LOCK_A, OTHER_LOCK, simLock } from '../../support/server.ts';
import { json } from './helpers.ts';

describe('POST /_sim/locks/:device_id: door, jammed, firmware', () => {
  let rig: Rig;
  before(async () => {
    rig = await startRig('embedded', { simulator: false });
    await rig.sim(AP_HOME, [seededDevice(LOCK_A)]);
    await rig.sim(AP_OTHER, [seededDevice(OTHER_LOCK)], { versions: [1] });
    const { accessPoints } = rig.t.server.store;
    await eventually('both access points', async () => (await accessPoints.countOnline()) === 2);
  });
  after(() => rig.close());

  it('relays them to a version-2 lock and answers its health', async () => {
    const body = await json(await simLock(rig.t, LOCK_A, { door: 'open', jammed: true, firmware: 'fw-7' }));
    assert.equal(body.door, 'open');
    assert.equal(body.jammed, true);
    assert.equal(body.firmware, 'fw-7');
    assert.equal(body.auto_lock_seconds, 0);
    assert.equal(body.protocol_version, 2);
    const stored = await rig.t.server.store.locks.get(LOCK_A);
    assert.equal(stored?.door, 'open');
    assert.equal(stored?.jammed, true);
    assert.equal(stored?.firmware, 'fw-7');
    const freed = await json(await simLock(rig.t, LOCK_A, { door: null, jammed: false }));
    assert.equal(freed.door, null, 'the sensor taken away');
    assert.equal(freed.jammed, false);
    assert.equal((await rig.t.server.store.locks.get(LOCK_A))?.door, null);
  });

  it('a version-1 lock: the other fields still work, the health ones answer 400 naming the field', async () => {
    const plain = await json(await simLock(rig.t, OTHER_LOCK, { battery: 61 }));
    assert.equal(plain.battery, 61);
    assert.equal(plain.protocol_version, 1);
    assert.equal(plain.jammed, false);
    assert.equal(plain.door, null);
    assert.equal(plain.firmware, null);
    assert.equal(plain.auto_lock_seconds, null);
    for (const change of [{ door: 'open' }, { jammed: true }, { firmware: 'x' }]) {
      const res = await simLock(rig.t, OTHER_LOCK, change);
      assert.equal(res.status, 400, JSON.stringify(change));
      const body = await json(res);
      assert.equal(body.error, 'BAD_PARAMS');
      assert.match(String(body.message), new RegExp(`^${Object.keys(change)[0]}: .*version 1`));
    }
  });

  it('refuses values out of the schema', async () => {
    for (const change of [
      { door: 'ajar' },
      { jammed: 'yes' },
      { firmware: '' },
      { firmware: 'x'.repeat(65) },
    ]) {
      const res = await simLock(rig.t, LOCK_A, change);
      assert.equal(res.status, 400, JSON.stringify(change));
      assert.equal((await json(res)).error, 'BAD_PARAMS');
    }
  });
});
