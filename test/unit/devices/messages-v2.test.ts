/**
 * Payload version 2 (docs/device-protocol.md, "Version 2"): the health fields, the settings message,
 * the negotiation, and what the gateway makes of a version-2 report, beside version 1's unchanged.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  accessPointInfoOf,
  reportOf,
  reportOfV2,
} from '../../../src/adapters/devices/mqtt/device-messages.ts';
import { decode, encode } from '../../../src/device-protocol/codec.ts';
import { negotiatedVersion, PAYLOAD_VERSIONS } from '../../../src/device-protocol/versions.ts';

const bytes = (value: unknown): Buffer => Buffer.from(JSON.stringify(value));
const V1_STATE = { v: 1, seq: 3, locked: true, battery: 80, reachable: true, app_open: false };
const V2_STATE = {
  ...V1_STATE,
  v: 2,
  jammed: false,
  door: 'closed',
  fw: '3.2.1',
  auto_lock_seconds: 30,
  cause: 'auto',
};

describe('device messages, version 2', () => {
  it('knows versions 1 and 2', () => {
    assert.deepEqual(PAYLOAD_VERSIONS, [1, 2]);
  });

  it('round-trips the version-2 messages', () => {
    const samples = {
      status: { v: 2 as const, online: true, fw: '2.1.0', rssi: -61, versions: [1, 2] },
      state: V2_STATE,
      ack: {
        v: 2 as const,
        task_id: 't',
        seq: 4,
        ok: false,
        error: 'JAMMED' as const,
        state: { locked: false, battery: 50, reachable: true, app_open: false, jammed: true },
      },
      config: { v: 2 as const, auto_lock_seconds: 0 },
      sim: { v: 2 as const, req_id: 'r', change: { door: null, jammed: true, fw: '9' } },
    };
    for (const [kind, message] of Object.entries(samples)) {
      const decoded = decode(kind as 'status', Buffer.from(encode(kind as 'status', message as never)));
      assert.deepEqual(decoded, { ok: true, message }, kind);
    }
  });

  it('keeps version 1 as it was: its messages pass, version-2 fields in them are ignored', () => {
    assert.equal(decode('state', bytes(V1_STATE)).ok, true);
    assert.equal(decode('status', bytes({ v: 1, online: false })).ok, true);
    // Unknown fields are ignored in any version: a v1 message with a "door" is still a v1 message.
    assert.equal(decode('state', bytes({ ...V1_STATE, door: 'ajar' })).ok, true);
  });

  it('refuses version-2 fields out of range, and a settings message in version 1', () => {
    const cases: [string, 'status' | 'state' | 'config' | 'sim', unknown][] = [
      ['door not open/closed', 'state', { ...V2_STATE, door: 'ajar' }],
      ['door null in a report (absent says no sensor)', 'state', { ...V2_STATE, door: null }],
      ['jammed not boolean', 'state', { ...V2_STATE, jammed: 'yes' }],
      ['firmware too long', 'state', { ...V2_STATE, fw: 'x'.repeat(65) }],
      ['auto-lock over an hour', 'state', { ...V2_STATE, auto_lock_seconds: 3601 }],
      ['auto-lock negative', 'state', { ...V2_STATE, auto_lock_seconds: -1 }],
      ['auto-lock fractional', 'state', { ...V2_STATE, auto_lock_seconds: 1.5 }],
      ['an unknown cause', 'state', { ...V2_STATE, cause: 'remote' }],
      ['rssi above 0', 'status', { v: 2, online: true, rssi: 3 }],
      ['rssi below -127', 'status', { v: 2, online: true, rssi: -128 }],
      ['versions empty', 'status', { v: 2, online: true, versions: [] }],
      ['versions not integers', 'status', { v: 2, online: true, versions: ['2'] }],
      ['config in version 1', 'config', { v: 1, auto_lock_seconds: 30 }],
      ['config without its setting', 'config', { v: 2 }],
      ['a sim door ajar', 'sim', { v: 2, req_id: 'r', change: { door: 'ajar' } }],
    ];
    for (const [why, kind, value] of cases) {
      const decoded = decode(kind, bytes(value));
      assert.equal(decoded.ok, false, why);
      if (!decoded.ok) assert.ok(decoded.problem.length > 0, why);
    }
    const v1Config = decode('config', bytes({ v: 1, auto_lock_seconds: 30 }));
    assert.deepEqual(v1Config, { ok: false, problem: '/v: version 1 has no config message' });
  });

  it('negotiates the highest version both sides speak; no list, or nothing shared, is version 1', () => {
    assert.equal(negotiatedVersion(undefined), 1);
    assert.equal(negotiatedVersion([1]), 1);
    assert.equal(negotiatedVersion([1, 2]), 2);
    assert.equal(negotiatedVersion([2]), 2);
    assert.equal(negotiatedVersion([2, 1]), 2, 'in any order');
    assert.equal(negotiatedVersion([1, 2, 3]), 2, 'a version this build does not know is skipped');
    assert.equal(negotiatedVersion([3, 4]), 1, 'nothing shared: the base version');
  });

  it("reads an access point's status: firmware, signal, the negotiated version", () => {
    const v2 = decode('status', bytes({ v: 2, online: true, fw: '2.1.0', rssi: -61, versions: [1, 2] }));
    assert.ok(v2.ok);
    assert.deepEqual(accessPointInfoOf(v2.message), { firmware: '2.1.0', signal: -61, protocolVersion: 2 });
    const v2Bare = decode('status', bytes({ v: 2, online: true }));
    assert.ok(v2Bare.ok);
    assert.deepEqual(accessPointInfoOf(v2Bare.message), { protocolVersion: 1 }, 'no versions: 1 only');
    const v1 = decode('status', bytes({ v: 1, online: true, fw: 'old' }));
    assert.ok(v1.ok);
    assert.deepEqual(accessPointInfoOf(v1.message), { firmware: 'old', protocolVersion: 1 });
  });

  it('maps a version-2 report to the lock report; version 1 maps exactly as before', () => {
    assert.deepEqual(reportOf(V1_STATE as never), {
      locked: true,
      battery: 80,
      responsive: true,
      appOpen: false,
    });
    const state = { ...V2_STATE } as never;
    assert.deepEqual(reportOfV2(state, 'auto'), {
      locked: true,
      battery: 80,
      responsive: true,
      appOpen: false,
      door: 'closed',
      jammed: false,
      firmware: '3.2.1',
      autoLockSeconds: 30,
      cause: 'auto',
    });
    // No door in a version-2 report: the lock has no sensor (null), unlike a version-1 report (absent).
    assert.deepEqual(reportOfV2({ locked: false, battery: 9, reachable: true, app_open: false }), {
      locked: false,
      battery: 9,
      responsive: true,
      appOpen: false,
      door: null,
    });
    // Out of reach, the access point knows nothing of the lock's health either.
    assert.deepEqual(reportOfV2({ ...V2_STATE, reachable: false } as never), {
      responsive: false,
      appOpen: false,
    });
  });
});
