import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { apIdOfUsername, apUsername, Topics } from '../../../src/device-protocol/topics.ts';

const A = '0000000a-0000-4000-8000-00000000000a';
const B = '0000000b-0000-4000-8000-00000000000b';
const LOCK = '000000cc-0000-4000-8000-0000000000cc';

describe('device topics', () => {
  const topics = new Topics();

  it('names and parses every topic of the protocol', () => {
    assert.equal(topics.status(A), `lc/1/ap/${A}/status`);
    assert.deepEqual(topics.parse(topics.status(A)), { kind: 'status', ap: A });
    assert.deepEqual(topics.parse(topics.locks(A)), { kind: 'locks', ap: A });
    for (const kind of ['state', 'ack', 'sim-ack', 'cmd', 'sim'] as const) {
      assert.deepEqual(topics.parse(topics.lock(A, LOCK, kind)), { kind, ap: A, lock: LOCK });
    }
  });

  it('refuses topics that are not the protocol’s: other versions, bad ids, extra levels, wildcards', () => {
    for (const topic of [
      `lc/2/ap/${A}/status`,
      `lc/1/ap/not-an-id/status`,
      `lc/1/ap/${A.toUpperCase()}/status`,
      `lc/1/ap/${A}/lock/${LOCK}/state/extra`,
      `lc/1/ap/${A}/lock/+/state`,
      `lc/1/ap/${A}/lock/${LOCK}/reboot`,
      `lc/1/ap/${A}`,
      '',
    ]) {
      assert.equal(topics.parse(topic), undefined, topic);
    }
  });

  it('lets an access point publish only its own up-going topics', () => {
    assert.ok(topics.apMayPublish(A, topics.status(A)));
    assert.ok(topics.apMayPublish(A, topics.locks(A)));
    assert.ok(topics.apMayPublish(A, topics.lock(A, LOCK, 'state')));
    assert.ok(topics.apMayPublish(A, topics.lock(A, LOCK, 'ack')));
    assert.ok(topics.apMayPublish(A, topics.lock(A, LOCK, 'sim-ack')));
    assert.ok(!topics.apMayPublish(A, topics.status(B)), "another's status");
    assert.ok(!topics.apMayPublish(A, topics.lock(B, LOCK, 'state')), "another's lock state");
    assert.ok(!topics.apMayPublish(A, topics.lock(A, LOCK, 'cmd')), 'a command, even to itself');
    assert.ok(!topics.apMayPublish(A, topics.lock(A, LOCK, 'sim')));
    assert.ok(!topics.apMayPublish(A, topics.lock(A, LOCK, 'config')), 'its own settings');
    assert.ok(!topics.apMayPublish(A, '$SYS/broker/uptime'));
  });

  it('lets an access point subscribe only to its own commands, sandbox changes and settings', () => {
    for (const filter of topics.apFilters(A, 2)) assert.ok(topics.apMaySubscribe(A, filter), filter);
    assert.ok(topics.apMaySubscribe(A, topics.lock(A, LOCK, 'cmd')));
    assert.ok(topics.apMaySubscribe(A, topics.lock(A, LOCK, 'config')));
    for (const filter of [
      ...topics.apFilters(B, 2),
      `lc/1/ap/${B}/lock/+/config`,
      `lc/1/ap/${A}/#`,
      `lc/1/ap/+/lock/+/cmd`,
      `lc/1/#`,
      '#',
      `lc/1/ap/${A}/lock/#`,
      `lc/1/ap/${A}/lock/+/state`,
      `lc/1/ap/${A}/lock/+/+`,
    ]) {
      assert.ok(!topics.apMaySubscribe(A, filter), filter);
    }
  });

  it('subscribes a version-1 access point to what it knows, a version-2 one to its settings too', () => {
    assert.deepEqual(
      topics.apFilters(A).map((f) => f.split('/').at(-1)),
      ['cmd', 'sim'],
    );
    assert.deepEqual(
      topics.apFilters(A, 2).map((f) => f.split('/').at(-1)),
      ['cmd', 'sim', 'config'],
    );
    assert.deepEqual(topics.parse(topics.lock(A, LOCK, 'config')), { kind: 'config', ap: A, lock: LOCK });
  });

  it('puts every topic and filter under the prefix, and refuses a prefix that would break them', () => {
    const prefixed = new Topics('site-1/');
    assert.equal(prefixed.status(A), `site-1/lc/1/ap/${A}/status`);
    assert.equal(prefixed.parse(topics.status(A)), undefined, 'an unprefixed topic is not ours');
    assert.ok(prefixed.cloudFilters().every((f) => f.startsWith('site-1/lc/1/ap/')));
    assert.ok(prefixed.apMaySubscribe(A, prefixed.apFilters(A)[0] ?? ''));
    assert.throws(() => new Topics('no-slash'));
    assert.throws(() => new Topics('a/+/'));
  });

  it("counts the levels up to an access point's id, with or without a prefix (the broker groups by them)", () => {
    for (const t of [topics, new Topics('site-1/'), new Topics('a/b/')]) {
      const upToAp = (topic: string): string => topic.split('/').slice(0, t.accessPointDepth).join('/');
      assert.equal(upToAp(t.status(A)), `${t.prefix}lc/1/ap/${A}`);
      assert.equal(upToAp(t.lock(A, LOCK, 'state')), upToAp(t.status(A)));
      for (const filter of t.apFilters(A, 2)) assert.equal(upToAp(filter), upToAp(t.status(A)));
    }
  });

  it('maps access points to MQTT user names and back', () => {
    assert.equal(apUsername(A), `ap-${A}`);
    assert.equal(apIdOfUsername(`ap-${A}`), A);
    assert.equal(apIdOfUsername(`ap:${A}`), undefined);
    assert.equal(apIdOfUsername('cloud'), undefined);
    assert.equal(apIdOfUsername('ap-nope'), undefined);
    assert.equal(apIdOfUsername(undefined), undefined);
  });
});
