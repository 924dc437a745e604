import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SIM_HEALTH, type SimDeviceState } from '../../../src/domain/sim-device.ts';
import { autoLockAt, autoRelock, carryOut, changed } from '../../../src/simulator/lock-rules.ts';

const device = (fields: Partial<SimDeviceState> = {}): SimDeviceState => ({
  deviceId: 'l1',
  apId: 'ap',
  serial: 'S',
  nickname: 'N',
  locked: true,
  battery: 50,
  responsive: true,
  accessPoint: true,
  appOpen: false,
  latencyMs: 0,
  failNext: null,
  ...SIM_HEALTH,
  ...fields,
});

describe('a simulated lock carrying out a command', () => {
  it('moves, and drains the battery by the given whole percent', () => {
    const { next, outcome } = carryOut(device(), 'unlock', 10, 2);
    assert.deepEqual(outcome, { ok: true });
    assert.equal(next.locked, false);
    assert.equal(next.battery, 48);
    assert.equal(carryOut(device({ battery: 1 }), 'lock', 0, 5).next.battery, 0);
  });

  it('sync moves nothing and costs nothing, even on a low battery', () => {
    const result = carryOut(device({ battery: 3 }), 'sync', 10, 5);
    assert.deepEqual(result.outcome, { ok: true });
    assert.equal(result.next.battery, 3);
  });

  it('refuses in the order a lock would: reach, planned failure, the app, the battery', () => {
    assert.deepEqual(carryOut(device({ responsive: false, appOpen: true }), 'lock', 10).outcome, {
      ok: false,
      error: 'DEVICE_UNREACHABLE',
    });
    assert.deepEqual(carryOut(device({ accessPoint: false }), 'lock', 10).outcome, {
      ok: false,
      error: 'DEVICE_UNREACHABLE',
    });
    assert.deepEqual(carryOut(device({ failNext: 'JAMMED', appOpen: true }), 'lock', 10).outcome, {
      ok: false,
      error: 'JAMMED',
    });
    assert.deepEqual(carryOut(device({ appOpen: true, battery: 1 }), 'lock', 10).outcome, {
      ok: false,
      error: 'DEVICE_IS_BUSY',
    });
    assert.deepEqual(carryOut(device({ battery: 9 }), 'unlock', 10).outcome, {
      ok: false,
      error: 'LOW_BATTERY',
    });
  });

  it('uses a planned failure up; a planned TIMEOUT answers nothing', () => {
    const jammed = carryOut(device({ failNext: 'JAMMED' }), 'unlock', 10);
    assert.equal(jammed.next.failNext, null);
    assert.equal(jammed.next.locked, true, 'a jam does not move it');
    const swallowed = carryOut(device({ failNext: 'TIMEOUT' }), 'unlock', 10);
    assert.equal(swallowed.outcome, null);
    assert.equal(swallowed.next.failNext, null);
  });
});

describe('a simulated lock on device protocol 2: jams, the door and auto-lock', () => {
  it('a jam stays: lock and unlock answer JAMMED, sync succeeds, a hand turn or jammed:false frees it', () => {
    const jam = carryOut(device(), 'unlock', 10, 0, true, true);
    assert.deepEqual(jam.outcome, { ok: false, error: 'JAMMED' });
    assert.equal(jam.next.jammed, true);
    assert.equal(jam.next.locked, true, 'the bolt did not move');
    assert.deepEqual(carryOut(jam.next, 'lock', 10, 0, true).outcome, { ok: false, error: 'JAMMED' });
    assert.deepEqual(carryOut(jam.next, 'sync', 10, 0, true).outcome, { ok: true });
    assert.equal(changed(jam.next, { locked: false }).jammed, false, 'a hand turn frees it');
    assert.equal(changed(jam.next, { jammed: false }).jammed, false);
    assert.equal(changed(jam.next, { door: 'open' }).jammed, true, 'the door does not');
    assert.equal(changed(jam.next, { locked: true, jammed: true }).jammed, true, 'unless told it jams');
  });

  it('on version 1 a jam is the one command’s failure, as it always was', () => {
    const jam = carryOut(device(), 'unlock', 10, 0, false, true);
    assert.deepEqual(jam.outcome, { ok: false, error: 'JAMMED' });
    assert.equal(jam.next.jammed, false);
    assert.deepEqual(carryOut(jam.next, 'unlock', 10).outcome, { ok: true });
  });

  it('the sandbox’s planned failure (fail_next JAMMED) stays the one command’s, on version 2 too', () => {
    const planned = carryOut(device({ failNext: 'JAMMED' }), 'unlock', 10, 0, true);
    assert.deepEqual(planned.outcome, { ok: false, error: 'JAMMED' });
    assert.equal(planned.next.jammed, false);
    assert.equal(planned.next.failNext, null);
  });

  it('auto-lock: due its delay after an unlock; never when off, locked or jammed', () => {
    const unlocked = device({ locked: false, autoLockSeconds: 30 });
    assert.equal(autoLockAt(unlocked, 1_000), 31_000);
    assert.equal(autoLockAt({ ...unlocked, autoLockSeconds: 0 }, 1_000), undefined);
    assert.equal(autoLockAt({ ...unlocked, locked: true }, 1_000), undefined);
    assert.equal(autoLockAt({ ...unlocked, jammed: true }, 1_000), undefined);
  });

  it('auto-lock: relocks (costing a movement), waits while the door is open, skips what has changed', () => {
    const unlocked = device({ locked: false, autoLockSeconds: 30, battery: 21, door: 'closed' });
    const relock = autoRelock(unlocked, 2);
    assert.equal(relock.kind, 'relock');
    if (relock.kind === 'relock') {
      assert.equal(relock.next.locked, true);
      assert.equal(relock.next.battery, 19, 'the drain crosses the low threshold as a command would');
    }
    assert.deepEqual(autoRelock({ ...unlocked, door: 'open' }), { kind: 'wait' });
    assert.equal(autoRelock({ ...unlocked, door: null }).kind, 'relock', 'no sensor: nothing to wait for');
    assert.deepEqual(autoRelock({ ...unlocked, locked: true }), { kind: 'skip' });
    assert.deepEqual(autoRelock({ ...unlocked, jammed: true }), { kind: 'skip' });
    assert.deepEqual(autoRelock({ ...unlocked, autoLockSeconds: 0 }), { kind: 'skip' });
    assert.deepEqual(autoRelock({ ...unlocked, responsive: false }), { kind: 'skip' });
  });

  it('battery drain crosses the thresholds one movement at a time, and never goes below 0', () => {
    let lock = device({ battery: 22 });
    const levels: number[] = [];
    for (let i = 0; i < 6; i++) {
      lock = carryOut(lock, lock.locked ? 'unlock' : 'lock', 0, 3, true).next;
      levels.push(lock.battery);
    }
    assert.deepEqual(levels, [19, 16, 13, 10, 7, 4]);
    // Under the device's own low-battery floor it refuses to move, and stops draining.
    const refused = carryOut(device({ battery: 4 }), 'unlock', 5, 3, true);
    assert.deepEqual(refused.outcome, { ok: false, error: 'LOW_BATTERY' });
    assert.equal(refused.next.battery, 4);
    assert.equal(carryOut(device({ battery: 2 }), 'unlock', 0, 5, true).next.battery, 0);
  });

  it('the door: opened, closed, or the sensor removed (null)', () => {
    assert.equal(changed(device(), { door: 'open' }).door, 'open');
    assert.equal(changed(device({ door: 'open' }), { door: 'closed' }).door, 'closed');
    assert.equal(changed(device(), { door: null }).door, null);
    assert.equal(changed(device({ door: 'open' }), {}).door, 'open', 'absent: unchanged');
  });
});
