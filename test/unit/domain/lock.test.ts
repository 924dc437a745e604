import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DomainError } from '../../../src/domain/errors.ts';
import {
  apiEnabled,
  applyReport,
  checkCommandAllowed,
  initialHealth,
  isFreshReport,
  isLockCommand,
  isValidBattery,
  type Lock,
  type LockCommand,
  sameLock,
  stateAfter,
} from '../../../src/domain/lock.ts';

const policy = { lowBatteryThreshold: 10 };

function lock(fields: Partial<Lock> = {}): Lock {
  return {
    ...initialHealth(100),
    deviceId: '00000000-0000-4000-8000-000000000001',
    serial: 'SERIAL0001',
    nickname: 'Front door',
    ownerId: 'owner',
    locked: true,
    battery: 100,
    responsive: true,
    integration: true,
    accessPoint: true,
    appOpen: false,
    accessPointId: null,
    createdAt: 0,
    ...fields,
  };
}

/** The code checkCommandAllowed throws, or 'ok'. */
function verdict(l: Lock, command: LockCommand): string {
  try {
    checkCommandAllowed(l, command, policy);
    return 'ok';
  } catch (error) {
    assert.ok(error instanceof DomainError);
    return error.code;
  }
}

describe('checkCommandAllowed', () => {
  it('allows every command on a healthy lock', () => {
    for (const command of ['lock', 'unlock', 'sync'] as const) assert.equal(verdict(lock(), command), 'ok');
  });

  it('refuses with INTEGRATION_DISABLED when integration is off or no access point is paired', () => {
    assert.equal(verdict(lock({ integration: false }), 'lock'), 'INTEGRATION_DISABLED');
    assert.equal(verdict(lock({ accessPoint: false }), 'unlock'), 'INTEGRATION_DISABLED');
    assert.equal(verdict(lock({ integration: false, accessPoint: false }), 'sync'), 'INTEGRATION_DISABLED');
  });

  it('checks integration first, then battery, then the app holding the connection', () => {
    const everythingWrong = { integration: false, battery: 1, appOpen: true };
    assert.equal(verdict(lock(everythingWrong), 'lock'), 'INTEGRATION_DISABLED');
    assert.equal(verdict(lock({ ...everythingWrong, integration: true }), 'lock'), 'LOW_BATTERY');
    assert.equal(verdict(lock({ ...everythingWrong, integration: true, battery: 50 }), 'lock'), 'BUSY');
  });

  it('refuses lock and unlock under the threshold, but not at it, and never sync', () => {
    assert.equal(verdict(lock({ battery: 9 }), 'lock'), 'LOW_BATTERY');
    assert.equal(verdict(lock({ battery: 0 }), 'unlock'), 'LOW_BATTERY');
    assert.equal(verdict(lock({ battery: 10 }), 'lock'), 'ok');
    assert.equal(verdict(lock({ battery: 0 }), 'sync'), 'ok');
    assert.equal(verdict(lock({ battery: 0, appOpen: true }), 'sync'), 'BUSY');
  });

  it('follows the configured threshold', () => {
    assert.doesNotThrow(() => checkCommandAllowed(lock({ battery: 3 }), 'lock', { lowBatteryThreshold: 0 }));
    assert.throws(() => checkCommandAllowed(lock({ battery: 49 }), 'lock', { lowBatteryThreshold: 50 }), {
      code: 'LOW_BATTERY',
    });
  });

  it('refuses with BUSY and no known wait while the mobile app holds the lock', () => {
    try {
      checkCommandAllowed(lock({ appOpen: true }), 'unlock', policy);
      assert.fail('accepted');
    } catch (error) {
      assert.ok(error instanceof DomainError);
      assert.equal(error.code, 'BUSY');
      assert.equal(error.details.retryAfterSeconds, undefined);
    }
  });

  it('does not look at responsiveness: an unreachable lock fails in its task, not before it', () => {
    assert.equal(verdict(lock({ responsive: false }), 'lock'), 'ok');
  });
});

describe('applyReport', () => {
  it('changes nothing for an empty report or one that repeats the stored values', () => {
    const before = lock();
    for (const report of [{}, { locked: true, battery: 100, responsive: true, appOpen: false }]) {
      const result = applyReport(before, report);
      assert.deepEqual(result, { lock: before, stateChanged: false, changed: false });
    }
  });

  it('marks a change of the lock state as stateChanged', () => {
    const result = applyReport(lock(), { locked: false });
    assert.equal(result.lock.locked, false);
    assert.equal(result.stateChanged, true);
    assert.equal(result.changed, true);
  });

  it('marks battery, responsiveness and app changes as changed but not stateChanged', () => {
    for (const report of [
      { battery: 50 },
      { responsive: false },
      { appOpen: true },
      { battery: 0, locked: true },
    ]) {
      const result = applyReport(lock(), report);
      assert.equal(result.changed, true, JSON.stringify(report));
      assert.equal(result.stateChanged, false, JSON.stringify(report));
    }
  });

  it('takes the reported fields, keeps the others, and leaves its input as it was', () => {
    const before = lock({ battery: 80 });
    const copy = { ...before };
    const { lock: after } = applyReport(before, { battery: 0, appOpen: true });
    assert.deepEqual(after, { ...before, battery: 0, appOpen: true });
    assert.deepEqual(before, copy);
  });

  it("never touches the owner's settings or identity", () => {
    const before = lock({ integration: false, accessPoint: false });
    const report = {
      locked: false,
      battery: 1,
      responsive: false,
      appOpen: true,
      integration: true,
    } as never;
    const { lock: after } = applyReport(before, report);
    assert.equal(after.integration, false);
    assert.equal(after.accessPoint, false);
    assert.equal(after.deviceId, before.deviceId);
    assert.equal(after.ownerId, before.ownerId);
  });
});

describe('lock helpers', () => {
  it('apiEnabled needs both the integration switch and an access point', () => {
    assert.equal(apiEnabled({ integration: true, accessPoint: true }), true);
    assert.equal(apiEnabled({ integration: false, accessPoint: true }), false);
    assert.equal(apiEnabled({ integration: true, accessPoint: false }), false);
  });

  it('stateAfter: lock locks, unlock unlocks, sync keeps the state', () => {
    for (const current of [true, false]) {
      assert.equal(stateAfter('lock', current), true);
      assert.equal(stateAfter('unlock', current), false);
      assert.equal(stateAfter('sync', current), current);
    }
  });

  it('isLockCommand accepts exactly lock, unlock and sync', () => {
    for (const good of ['lock', 'unlock', 'sync']) assert.equal(isLockCommand(good), true);
    for (const bad of ['LOCK', 'open', '', null, undefined, 1, {}]) assert.equal(isLockCommand(bad), false);
  });

  it('isValidBattery accepts whole percentages from 0 to 100', () => {
    for (const good of [0, 1, 55, 100]) assert.equal(isValidBattery(good), true);
    for (const bad of [-1, 101, 50.5, Number.NaN, Number.POSITIVE_INFINITY])
      assert.equal(isValidBattery(bad), false);
  });
});

describe('isFreshReport', () => {
  const mark = (apId: string, epoch: string, seq: number) => ({ apId, epoch, seq });

  it('takes the first report, and then only a rising sequence number', () => {
    assert.equal(isFreshReport(null, mark('ap-1', 'e1', 0)), true);
    assert.equal(isFreshReport(mark('ap-1', 'e1', 5), mark('ap-1', 'e1', 6)), true);
    assert.equal(isFreshReport(mark('ap-1', 'e1', 5), mark('ap-1', 'e1', 5)), false, 'a duplicate');
    assert.equal(isFreshReport(mark('ap-1', 'e1', 5), mark('ap-1', 'e1', 4)), false, 'a late one');
  });

  it('counts afresh for a new epoch or another access point (the lock moved)', () => {
    assert.equal(isFreshReport(mark('ap-1', 'e1', 50), mark('ap-1', 'e2', 1)), true);
    assert.equal(isFreshReport(mark('ap-1', 'e1', 50), mark('ap-2', 'e1', 1)), true);
  });
});

describe('sameLock', () => {
  it('holds two reads with the same values the same, whatever their objects', () => {
    const a = lock({ batteryRef: { level: 80, at: 1 } });
    assert.equal(sameLock(a, { ...a, batteryRef: { level: 80, at: 1 } }), true);
    assert.equal(sameLock(lock(), lock()), true);
  });

  it('tells apart reads that differ in any field, the trend reference included', () => {
    const a = lock({ batteryRef: { level: 80, at: 1 } });
    for (const [field, value] of Object.entries({
      locked: false,
      battery: 99,
      nickname: 'Back door',
      firmware: '2.0',
      lastSeenAt: 5,
      batteryRef: { level: 80, at: 2 },
    })) {
      assert.equal(sameLock(a, { ...a, [field]: value }), false, field);
    }
    assert.equal(sameLock(a, { ...a, batteryRef: null }), false);
    assert.equal(sameLock({ ...a, batteryRef: null }, a), false);
  });
});
