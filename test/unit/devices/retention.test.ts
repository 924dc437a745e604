import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RetainedPolicy } from '../../../src/device-protocol/retention.ts';
import { Topics } from '../../../src/device-protocol/topics.ts';

const AP = 'a0000000-0000-4000-8000-0000000000f1';
const OTHER_AP = 'a0000000-0000-4000-8000-0000000000f2';
const LOCK = 'b0000000-0000-4000-8000-0000000000f1';
const MADE_UP = 'b0000000-0000-4000-8000-0000000000f9';
const topics = new Topics();
const bytes = (value: unknown): Uint8Array => new TextEncoder().encode(JSON.stringify(value));
const parse = (topic: string) => {
  const parsed = topics.parse(topic);
  assert.ok(parsed, topic);
  return parsed;
};
const STATE = { v: 1, seq: 1, locked: true, battery: 80, reachable: true, app_open: false };
const locks = (...ids: string[]) =>
  bytes({ v: 1, locks: ids.map((id) => ({ device_id: id, serial: 'S', nickname: 'N' })) });

describe('RetainedPolicy: what a broker keeps of an access point', () => {
  it('keeps state reports only for the locks its latest pairing list names', () => {
    const policy = new RetainedPolicy();
    const state = parse(topics.lock(AP, LOCK, 'state'));
    assert.equal(policy.judge(AP, state, bytes(STATE)).keep, false, 'before any list');
    assert.deepEqual(policy.judge(AP, parse(topics.locks(AP)), locks(LOCK)), { keep: true, forget: [] });
    assert.equal(policy.judge(AP, state, bytes(STATE)).keep, true);
    assert.equal(policy.judge(AP, parse(topics.lock(AP, MADE_UP, 'state')), bytes(STATE)).keep, false);
    // Another access point's list says nothing about this one's locks.
    assert.equal(
      policy.judge(OTHER_AP, parse(topics.lock(OTHER_AP, LOCK, 'state')), bytes(STATE)).keep,
      false,
    );
    // A lock that leaves the list: its retained state is to be forgotten, and no longer kept.
    assert.deepEqual(policy.judge(AP, parse(topics.locks(AP)), locks()), { keep: true, forget: [LOCK] });
    assert.equal(policy.judge(AP, state, bytes(STATE)).keep, false);
  });

  it('keeps nothing over its size, nothing malformed, and nothing of the kinds never retained', () => {
    const policy = new RetainedPolicy();
    policy.judge(AP, parse(topics.locks(AP)), locks(LOCK));
    const state = parse(topics.lock(AP, LOCK, 'state'));
    const padded = bytes({ ...STATE, padding: 'x'.repeat(5000) });
    assert.match(String((policy.judge(AP, state, padded) as { why: string }).why), /at most 4096 bytes/);
    assert.equal(policy.judge(AP, state, bytes({ ...STATE, battery: 101 })).keep, false);
    assert.equal(policy.judge(AP, parse(topics.status(AP)), bytes({ v: 1, online: 'yes' })).keep, false);
    assert.equal(policy.judge(AP, parse(topics.status(AP)), bytes({ v: 1, online: true })).keep, true);
    const ack = { v: 1, task_id: 't', seq: 2, ok: true };
    assert.equal(policy.judge(AP, parse(topics.lock(AP, LOCK, 'ack')), bytes(ack)).keep, false);
    const big = bytes({ v: 1, locks: [], padding: 'x'.repeat(300 * 1024) });
    assert.equal(policy.judge(AP, parse(topics.locks(AP)), big).keep, false);
  });

  it('always lets an empty payload through: it clears the topic', () => {
    const policy = new RetainedPolicy();
    const empty = new Uint8Array(0);
    assert.equal(policy.judge(AP, parse(topics.lock(AP, MADE_UP, 'state')), empty).keep, true);
    assert.equal(policy.judge(AP, parse(topics.lock(AP, LOCK, 'ack')), empty).keep, true);
  });
});
