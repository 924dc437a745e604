import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decode, encode } from '../../../src/device-protocol/codec.ts';

const bytes = (value: unknown): Buffer =>
  Buffer.from(typeof value === 'string' ? value : JSON.stringify(value));
const STATE = { v: 1, seq: 3, locked: true, battery: 80, reachable: true, app_open: false };

describe('device messages', () => {
  it('round-trips every kind through encode and decode', () => {
    const samples = {
      status: { v: 1 as const, online: true, fw: '1.0' },
      locks: {
        v: 1 as const,
        locks: [{ device_id: '000000cc-0000-4000-8000-0000000000cc', serial: 'S1', nickname: 'Door' }],
      },
      state: { ...STATE, v: 1 as const },
      cmd: { v: 1 as const, task_id: 't', command: 'unlock' as const, deadline: new Date(0).toISOString() },
      ack: { v: 1 as const, task_id: 't', seq: 4, ok: false, error: 'JAMMED' as const },
    };
    for (const [kind, message] of Object.entries(samples)) {
      const decoded = decode(
        kind as keyof typeof samples,
        Buffer.from(encode(kind as 'status', message as never)),
      );
      assert.deepEqual(decoded, { ok: true, message }, kind);
    }
  });

  it('ignores fields it does not know (a newer minor version may add some)', () => {
    const decoded = decode('state', bytes({ ...STATE, temperature: 21 }));
    assert.equal(decoded.ok, true);
  });

  it('refuses what is not a message of the protocol, saying why', () => {
    const cases: [string, Buffer][] = [
      ['not JSON', bytes('{"v":1,')],
      ['a wrong version', bytes({ ...STATE, v: 3 })],
      ['a version 2 field out of range', bytes({ ...STATE, v: 2, door: 'ajar' })],
      ['a missing field', bytes({ v: 1, seq: 1, locked: true, battery: 10, reachable: true })],
      ['battery out of range', bytes({ ...STATE, battery: 101 })],
      ['a fractional seq', bytes({ ...STATE, seq: 1.5 })],
      ['a negative seq', bytes({ ...STATE, seq: -1 })],
      ['a string for a boolean', bytes({ ...STATE, locked: 'yes' })],
      ['an array', bytes([STATE])],
      ['null', bytes('null')],
      ['too large', Buffer.alloc(300 * 1024, 32)],
    ];
    for (const [why, payload] of cases) {
      const decoded = decode('state', payload);
      assert.equal(decoded.ok, false, why);
      if (!decoded.ok) assert.ok(decoded.problem.length > 0);
    }
    assert.equal(
      decode('ack', bytes({ v: 1, task_id: 't', seq: 1, ok: false, error: 'TIMEOUT' })).ok,
      false,
      'TIMEOUT is the cloud’s',
    );
    assert.equal(
      decode('locks', bytes({ v: 1, locks: [{ device_id: 'x', serial: 's', nickname: 'n' }] })).ok,
      false,
    );
  });
});
