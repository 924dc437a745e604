/**
 * Mosquitto's `$7$` password hashes and the text of the password, ACL and configuration files
 * `lockcloud admin mqtt-acl` writes. The hashes against the real `mosquitto_passwd` (a process):
 * test/devices/mosquitto-passwd.test.ts.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import {
  accessPointRules,
  aclFile,
  mosquittoConf,
  passwordFile,
  writeMosquittoFiles,
} from '../../../src/adapters/devices/mqtt/mosquitto-files.ts';
import {
  MOSQUITTO_DEFAULT_ITERATIONS,
  mosquittoHash,
  mosquittoPasswordHasher,
  verifyMosquittoHash,
} from '../../../src/adapters/devices/mqtt/mosquitto-password.ts';
import { Topics } from '../../../src/device-protocol/topics.ts';

const AP_A = '11111111-1111-4111-8111-111111111111';
const AP_B = '22222222-2222-4222-8222-222222222222';
const SECRET = 'lcd_0123456789abcdefghijABCDEFGHIJ-_xyz';

describe('Mosquitto $7$ password hashes', () => {
  it('has the shape mosquitto_passwd writes: 101 iterations, a 12-byte salt, a 64-byte hash', () => {
    const hash = mosquittoHash(SECRET);
    const match = /^\$7\$(\d+)\$([A-Za-z0-9+/=]+)\$([A-Za-z0-9+/=]+)$/.exec(hash);
    assert.ok(match, hash);
    assert.equal(Number(match[1]), MOSQUITTO_DEFAULT_ITERATIONS);
    assert.equal(Buffer.from(match[2] ?? '', 'base64').length, 12);
    assert.equal(Buffer.from(match[3] ?? '', 'base64').length, 64);
    assert.equal(match[2]?.length, 16, 'the salt in padded standard base64');
    assert.equal(match[3]?.length, 88, 'the hash in padded standard base64');
  });

  it('is salted: the same secret hashes differently each time, and both verify', () => {
    const hasher = mosquittoPasswordHasher();
    const one = hasher.hash(SECRET);
    const two = hasher.hash(SECRET);
    assert.notEqual(one, two);
    assert.ok(verifyMosquittoHash(SECRET, one));
    assert.ok(verifyMosquittoHash(SECRET, two));
    assert.ok(!verifyMosquittoHash(`${SECRET}x`, one));
  });

  it('matches a known vector: PBKDF2-HMAC-SHA512 over the raw salt bytes', () => {
    const salt = Buffer.from('000102030405060708090a0b', 'hex');
    const hash = mosquittoHash('secret', { salt, iterations: 101 });
    assert.ok(hash.startsWith('$7$101$AAECAwQFBgcICQoL$'), hash);
    assert.ok(verifyMosquittoHash('secret', hash));
  });

  it('answers false for anything that is not a sound $7$ hash', () => {
    const good = mosquittoHash(SECRET);
    const [, , iterations, salt, hash] = good.split('$');
    for (const bad of [
      '',
      SECRET,
      good.replace('$7$', '$6$'),
      `$7$${iterations}$${salt}`,
      `$7$0$${salt}$${hash}`,
      `$7$99999999999$${salt}$${hash}`,
      `$7$${iterations}$${salt}$${hash?.slice(4)}`,
      `$7$${iterations}$${salt}$not*base64`,
      `${good}$extra`,
    ]) {
      assert.equal(verifyMosquittoHash(SECRET, bad), false, bad);
    }
  });

  it('refuses an absurd iteration count when hashing', () => {
    assert.throws(() => mosquittoHash(SECRET, { iterations: 0 }), RangeError);
    assert.throws(() => mosquittoHash(SECRET, { iterations: 1.5 }), RangeError);
  });
});

describe('Mosquitto files', () => {
  const cloud = { username: 'cloud', hash: mosquittoHash('cloud-password-0123') };
  const aps = [
    { apId: AP_A, username: `ap-${AP_A}`, hash: mosquittoHash('a') },
    { apId: AP_B, username: `ap-${AP_B}`, hash: mosquittoHash('b') },
  ];

  it('password file: one username:hash line each, the cloud first', () => {
    const text = passwordFile(cloud, aps);
    assert.deepEqual(text.split('\n'), [
      `cloud:${cloud.hash}`,
      `ap-${AP_A}:${aps[0]?.hash}`,
      `ap-${AP_B}:${aps[1]?.hash}`,
      '',
    ]);
  });

  it('password file: refuses names Mosquitto would misread, a hash of another kind, a name twice', () => {
    for (const username of ['', 'ap:x', 'a b', '#x', 'a\nb', 'a\tb']) {
      assert.throws(() => passwordFile(cloud, [{ apId: AP_A, username, hash: cloud.hash }]), /user name/);
    }
    assert.throws(() => passwordFile(cloud, [{ apId: AP_A, username: 'ap-a', hash: 'plain' }]), /\$7\$/);
    assert.throws(() => passwordFile(cloud, [{ ...cloud, apId: AP_A }]), /used twice/);
  });

  it('several server processes: one cloud user each, every one with the whole protocol', () => {
    const clouds = ['cloud-1', 'cloud-2', 'cloud-3'].map((username) => ({ username, hash: cloud.hash }));
    assert.deepEqual(passwordFile(clouds, aps).split('\n').slice(0, 4), [
      `cloud-1:${cloud.hash}`,
      `cloud-2:${cloud.hash}`,
      `cloud-3:${cloud.hash}`,
      `ap-${AP_A}:${aps[0]?.hash}`,
    ]);
    const blocks = aclFile(new Topics(), ['cloud-1', 'cloud-2', 'cloud-3'], aps).split('\n\n');
    for (const [i, name] of ['cloud-1', 'cloud-2', 'cloud-3'].entries())
      assert.match(blocks[i + 1] ?? '', new RegExp(`^# The cloud .*\nuser ${name}\ntopic readwrite lc/1/#$`));
    assert.throws(() => passwordFile([cloud, cloud], aps), /used twice/);
  });

  it('ACL: the cloud reads and writes every protocol topic; each access point only its own', () => {
    const text = aclFile(new Topics(), 'cloud', aps);
    const blocks = text.split('\n\n');
    assert.match(blocks[0] ?? '', /^# Written by `lockcloud admin mqtt-acl`/);
    assert.equal(
      blocks[1],
      '# The cloud (a lockcloud server process): every topic of the device protocol.\nuser cloud\ntopic readwrite lc/1/#',
    );
    assert.equal(
      blocks[2],
      [
        `# Access point ${AP_A}: its own topics only.`,
        `user ap-${AP_A}`,
        `topic write lc/1/ap/${AP_A}/status`,
        `topic write lc/1/ap/${AP_A}/locks`,
        `topic write lc/1/ap/${AP_A}/lock/+/state`,
        `topic write lc/1/ap/${AP_A}/lock/+/ack`,
        `topic write lc/1/ap/${AP_A}/lock/+/sim-ack`,
        `topic read lc/1/ap/${AP_A}/lock/+/cmd`,
        `topic read lc/1/ap/${AP_A}/lock/+/sim`,
        `topic read lc/1/ap/${AP_A}/lock/+/config`,
      ].join('\n'),
    );
    assert.match(blocks[3] ?? '', new RegExp(`^# Access point ${AP_B}`));
    assert.doesNotMatch(blocks[3] ?? '', new RegExp(AP_A));
    assert.ok(text.endsWith('\n'));
  });

  it('ACL: a prefix goes before every topic', () => {
    const text = aclFile(new Topics('site-7/'), 'cloud', aps.slice(0, 1));
    const topics = text
      .split('\n')
      .filter((line) => line.startsWith('topic '))
      .map((line) => line.split(' ')[2] ?? '');
    assert.equal(topics.length, 9);
    for (const topic of topics) assert.ok(topic.startsWith('site-7/lc/1/'), topic);
  });

  it("ACL: the rules are the embedded broker's (Topics.apMayPublish / apMaySubscribe)", () => {
    const topics = new Topics();
    const rules = accessPointRules(topics, AP_A);
    const lock = '33333333-3333-4333-8333-333333333333';
    for (const pattern of rules.write) {
      assert.ok(topics.apMayPublish(AP_A, pattern.replace('+', lock)), pattern);
      assert.ok(!topics.apMayPublish(AP_B, pattern.replace('+', lock)), pattern);
    }
    for (const filter of rules.read) {
      assert.ok(topics.apMaySubscribe(AP_A, filter), filter);
      assert.ok(!topics.apMaySubscribe(AP_B, filter), filter);
    }
    // Every up-going kind is writable, and nothing down-going.
    assert.deepEqual(
      rules.write.map((t) => t.split('/').at(-1)),
      ['status', 'locks', 'state', 'ack', 'sim-ack'],
    );
    // Settings (config) too, whatever version the access point speaks now: a firmware update may
    // bring version 2 without a new run of mqtt-acl.
    assert.deepEqual(
      rules.read.map((t) => t.split('/').at(-1)),
      ['cmd', 'sim', 'config'],
    );
  });

  it('configuration: listener, no anonymous clients, the two files, user name as client id, no Nagle, limits, a deep queue', () => {
    const dir = join(tmpdir(), 'mq');
    const limits = { maxConnections: 500, maxPacketBytes: 266_240 };
    const lines = mosquittoConf({ port: 18883, bind: '127.0.0.1' }, limits, dir)
      .split('\n')
      .filter((line) => line !== '' && !line.startsWith('#'));
    assert.deepEqual(lines, [
      'listener 18883 127.0.0.1',
      'max_connections 500',
      'allow_anonymous false',
      `password_file ${join(dir, 'passwd')}`,
      `acl_file ${join(dir, 'acl')}`,
      'use_username_as_clientid true',
      'set_tcp_nodelay true',
      'max_packet_size 266240',
      'max_queued_messages 1000000',
      `max_queued_bytes ${256 * 2 ** 20}`,
    ]);
    assert.match(mosquittoConf({ port: 1883 }, limits, dir), /^listener 1883$/m);
    assert.throws(() => mosquittoConf({ port: 0 }, limits, dir), /port/);
    assert.throws(
      () => mosquittoConf({ port: 1883, bind: '0.0.0.0\nallow_anonymous true' }, limits, dir),
      /address/,
    );
    assert.throws(
      () => mosquittoConf({ port: 1883 }, { ...limits, maxConnections: 0 }, dir),
      /maxConnections/,
    );
  });

  it('writes the three files with mode 0600, and overwrites them on the next run', () => {
    const dir = mkdtempSync(join(tmpdir(), 'lockcloud-mosquitto-files-'));
    try {
      const out = join(dir, 'out');
      const first = writeMosquittoFiles(out, { passwd: 'p1\n', acl: 'a1\n', conf: 'c1\n' });
      writeFileSync(first.acl, 'edited by hand\n');
      const second = writeMosquittoFiles(out, { passwd: 'p2\n', acl: 'a2\n', conf: 'c2\n' });
      assert.deepEqual(second, first);
      assert.equal(readFileSync(second.passwd, 'utf8'), 'p2\n');
      assert.equal(readFileSync(second.acl, 'utf8'), 'a2\n');
      assert.equal(readFileSync(second.conf, 'utf8'), 'c2\n');
      for (const path of [second.passwd, second.acl, second.conf]) {
        assert.equal(statSync(path).mode & 0o777, 0o600, path);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
