import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SIM_HEALTH, type SimDeviceState } from '../../../src/domain/sim-device.ts';
import { carryOut } from '../../../src/simulator/lock-rules.ts';

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
