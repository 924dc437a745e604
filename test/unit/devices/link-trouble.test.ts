/**
 * How simulated access points tell a broker they cannot reach (issue 20: a stack trace per access
 * point every second): the wait grows after each failure, and a round of failures is one line per
 * reason and wait.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  LinkTrouble,
  type LinkTroubleSummary,
  linkReason,
  MAX_RECONNECT_MS,
  reconnectDelayMs,
} from '../../../src/simulator/link-trouble.ts';

describe('reconnectDelayMs', () => {
  it('waits 1 s after the first failure, doubling after each next one, up to 30 s', () => {
    assert.deepEqual(
      [1, 2, 3, 4, 5, 6, 7, 100, 10_000].map(reconnectDelayMs),
      [1000, 2000, 4000, 8000, 16_000, 30_000, 30_000, 30_000, 30_000],
    );
    assert.equal(reconnectDelayMs(0), 1000);
    assert.equal(MAX_RECONNECT_MS, 30_000);
  });
});

describe('linkReason', () => {
  it('a system error by its code, anything else by its message, a quiet close as such', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1884'), { code: 'ECONNREFUSED' });
    assert.equal(linkReason(refused), 'ECONNREFUSED');
    const mqtt = Object.assign(new Error('Connection refused: Not authorized'), { code: 135 });
    assert.equal(linkReason(mqtt), 'Connection refused: Not authorized');
    assert.equal(linkReason(undefined), 'the connection closed');
  });
});

describe('LinkTrouble', () => {
  it('tells a round of failures once per reason and wait, and only the access points that failed when they are back', () => {
    const told: LinkTroubleSummary[] = [];
    const trouble = new LinkTrouble((s) => told.push(s));
    for (const ap of ['a', 'b', 'c']) trouble.failed(ap, 'ECONNREFUSED', 2000);
    trouble.failed('d', 'Connection refused: Not authorized', 1000);
    trouble.failed('a', 'ECONNREFUSED', 2000); // the same access point twice in a round counts once
    trouble.connected('never-failed');
    trouble.stop();
    assert.deepEqual(told, [
      { accessPoints: 3, reason: 'ECONNREFUSED', retryInMs: 2000 },
      { accessPoints: 1, reason: 'Connection refused: Not authorized', retryInMs: 1000 },
    ]);

    const back: LinkTroubleSummary[] = [];
    const again = new LinkTrouble((s) => back.push(s));
    again.failed('a', 'ECONNREFUSED', 1000);
    again.failed('b', 'ECONNREFUSED', 1000);
    again.flush();
    again.connected('a');
    again.connected('b');
    again.connected('a');
    again.stop();
    assert.deepEqual(back, [
      { accessPoints: 2, reason: 'ECONNREFUSED', retryInMs: 1000 },
      { accessPoints: 2 },
    ]);
  });
});
