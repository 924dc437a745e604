import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { planPairing } from '../../../src/domain/access-point.ts';
import { initialHealth, type Lock } from '../../../src/domain/lock.ts';

const AP = 'ap-1';
const lock = (deviceId: string, fields: Partial<Lock> = {}): Lock => ({
  ...initialHealth(100),
  deviceId,
  serial: 'S',
  nickname: 'N',
  ownerId: 'acc',
  locked: true,
  battery: 100,
  responsive: true,
  integration: true,
  accessPoint: true,
  accessPointId: AP,
  appOpen: false,
  createdAt: 0,
  ...fields,
});
const announced = (deviceId: string) => ({ deviceId, serial: `S-${deviceId}`, nickname: `N-${deviceId}` });

describe('planPairing', () => {
  it('adds unknown locks, and changes nothing for locks already paired here (a repeated announcement)', () => {
    const known = new Map([['l1', lock('l1')]]);
    assert.deepEqual(planPairing(AP, 'acc', [announced('l1'), announced('l2')], known, [lock('l1')]), [
      { kind: 'add', lock: announced('l2') },
    ]);
    assert.deepEqual(planPairing(AP, 'acc', [announced('l1')], known, [lock('l1')]), []);
  });

  it('pairs a lock of the same account that was under another access point, or unpaired', () => {
    const moved = lock('l1', { accessPointId: 'ap-2' });
    const unpaired = lock('l2', { accessPoint: false });
    const known = new Map([
      ['l1', moved],
      ['l2', unpaired],
    ]);
    assert.deepEqual(planPairing(AP, 'acc', [announced('l1'), announced('l2')], known, [unpaired]), [
      { kind: 'pair', deviceId: 'l1' },
      { kind: 'pair', deviceId: 'l2' },
    ]);
  });

  it('never takes over a lock of another account', () => {
    const known = new Map([['l1', lock('l1', { ownerId: 'someone-else', accessPointId: 'ap-9' })]]);
    assert.deepEqual(planPairing(AP, 'acc', [announced('l1')], known, []), [
      { kind: 'conflict', deviceId: 'l1', ownerId: 'someone-else' },
    ]);
  });

  it('unpairs locks paired here that the list leaves out; a lock listed twice counts once', () => {
    const here = [lock('l1'), lock('l2'), lock('l3', { accessPoint: false })];
    const known = new Map([['l1', here[0] as Lock]]);
    assert.deepEqual(planPairing(AP, 'acc', [announced('l1'), announced('l1')], known, here), [
      { kind: 'unpair', deviceId: 'l2' },
    ]);
  });
});
