/**
 * Issue 17, point 1: what the embedded broker lets a connection cost before it has proved who it is,
 * and what an access point may keep retained (docs/security.md, "A stranger on the device port").
 * Raw TCP sockets play the strangers, from several loopback addresses (127.0.0.2, .3, ...: each a
 * client address of its own); the deadline is driven by the server's clock, not by waiting.
 */
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { CONNECT_TIMEOUT_MS } from '../../src/adapters/devices/mqtt/embedded-broker.ts';
import { apUsername } from '../../src/device-protocol/topics.ts';
import { AP_GARAGE, AP_HOME, NEW_LOCK, type Rig, SECRETS, startRig } from '../support/devices.ts';
import { eventually } from '../support/eventually.ts';

/** An MQTT 3.1.1 CONNECT with a clean session, a user name and a password. */
function connectPacket(clientId: string, username: string, password: string): Buffer {
  const text = (value: string): Buffer => {
    const bytes = Buffer.from(value, 'utf8');
    return Buffer.concat([Buffer.from([bytes.length >> 8, bytes.length & 0xff]), bytes]);
  };
  const body = Buffer.concat([
    text('MQTT'),
    Buffer.from([4, 0xc2, 0, 60]), // level 4; user name, password, clean session; keep-alive 60 s
    text(clientId),
    text(username),
    text(password),
  ]);
  return Buffer.concat([Buffer.from([0x10, body.length]), body]);
}

const CONNACK_ACCEPTED = Buffer.from([0x20, 0x02, 0x00, 0x00]);

class Raw {
  private received = Buffer.alloc(0);
  private readonly waiters: (() => void)[] = [];
  readonly closed: Promise<void>;

  private constructor(readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.received = Buffer.concat([this.received, chunk]);
      for (const wake of this.waiters.splice(0)) wake();
    });
    socket.on('error', () => undefined);
    this.closed = new Promise((resolve) => socket.once('close', () => resolve()));
  }

  /** A TCP connection from `from` (a loopback address): resolves once it is established. */
  static open(port: number, from = '127.0.0.1'): Promise<Raw> {
    return new Promise((resolve, reject) => {
      const socket = connect({ port, host: '127.0.0.1', localAddress: from });
      socket.once('connect', () => resolve(new Raw(socket)));
      socket.once('error', reject);
    });
  }

  /** Sends a valid CONNECT of an access point and waits for the broker to accept it. */
  async authenticate(apId: string): Promise<void> {
    this.socket.write(connectPacket(apUsername(apId), apUsername(apId), SECRETS[apId] ?? ''));
    await this.receive(CONNACK_ACCEPTED);
  }

  /** Waits until the broker has sent `bytes` (from the start of what it sent); fails if it closes first. */
  async receive(bytes: Buffer): Promise<void> {
    const closed = this.closed.then(() => 'closed' as const);
    while (this.received.length < bytes.length) {
      const woken = new Promise<'data'>((resolve) => this.waiters.push(() => resolve('data')));
      if ((await Promise.race([woken, closed])) === 'closed') assert.fail('the broker closed the connection');
    }
    assert.deepEqual(this.received.subarray(0, bytes.length), bytes);
    this.received = this.received.subarray(bytes.length);
  }
}

describe('the embedded broker: limits before authentication', () => {
  let rig: Rig;
  let port: number;
  const opened: Raw[] = [];
  const open = async (from?: string): Promise<Raw> => {
    const raw = await Raw.open(port, from);
    opened.push(raw);
    return raw;
  };
  const refusals = async (): Promise<Record<string, number>> => {
    const { body } = await rig.t.server.metrics.scrape();
    const counts: Record<string, number> = {};
    for (const [, reason = '', count = '0'] of body.matchAll(
      /^lockcloud_device_connections_refused_total\{reason="([a-z_]+)"\} (\d+)$/gm,
    ))
      counts[reason] = Number(count);
    return counts;
  };

  before(async () => {
    // The server's own connection to its broker comes from 127.0.0.1 and counts too: 1 of 6.
    rig = await startRig('embedded', {
      simulator: false,
      flags: ['--mqtt-max-connections', '6', '--mqtt-max-connections-per-address', '3'],
    });
    port = rig.t.server.devices.broker?.port ?? 0;
  });
  after(async () => {
    for (const raw of opened) raw.socket.destroy();
    await rig.close();
  });

  it('refuses connections over the limit per client address and in all, and counts them', async () => {
    const first = [await open('127.0.0.2'), await open('127.0.0.2'), await open('127.0.0.2')];
    const fourth = await open('127.0.0.2');
    await fourth.closed;
    const others = [await open('127.0.0.3'), await open('127.0.0.3')];
    const seventh = await open('127.0.0.4');
    await seventh.closed;
    // The admitted ones are real connections: an access point logs in over one of them.
    await others[1]?.authenticate(AP_HOME);
    const counts = await refusals();
    assert.equal(counts.address_limit, 1);
    assert.equal(counts.total_limit, 1);
    // A connection closed frees its place.
    first[0]?.socket.destroy();
    await first[0]?.closed;
    await eventually(
      'the place to be freed',
      async () => (rig.t.server.devices.broker?.connections ?? 0) === 5,
    );
    const { body } = await rig.t.server.metrics.scrape();
    assert.match(body, /^lockcloud_device_connections_open 5$/m);
    await (await open('127.0.0.2')).authenticate(AP_GARAGE);
    for (const raw of [...first, ...others]) raw.socket.destroy();
    await Promise.all([...first, ...others].map((raw) => raw.closed));
  });

  it('closes a connection that has not authenticated when the clock passes its CONNECT deadline', async () => {
    await eventually(
      'the earlier connections to be gone',
      async () => (rig.t.server.devices.broker?.connections ?? 0) <= 2,
    );
    const silent = await open('127.0.0.5');
    const half = await open('127.0.0.6');
    half.socket.write(connectPacket('x', 'y', 'z').subarray(0, 6));
    const logged = await open('127.0.0.7');
    await logged.authenticate(AP_HOME);
    const before = (await refusals()).connect_timeout ?? 0;
    await rig.t.server.clock.advance(CONNECT_TIMEOUT_MS);
    await Promise.all([silent.closed, half.closed]);
    assert.equal((await refusals()).connect_timeout, before + 2);
    // The authenticated one is still there: it answers a PINGREQ.
    logged.socket.write(Buffer.from([0xc0, 0x00]));
    await logged.receive(Buffer.from([0xd0, 0x00]));
    logged.socket.destroy();
  });

  it('closes a connection whose CONNECT announces more than 4 KiB, or that begins with another packet', async () => {
    const before = await refusals();
    const big = await open();
    big.socket.write(Buffer.from([0x10, 0x89, 0x27])); // a CONNECT of 5,001 bytes, none of them sent
    await big.closed;
    const huge = await open();
    huge.socket.write(Buffer.from([0x10, 0xff, 0xff, 0xff, 0x7f])); // 256 MB
    await huge.closed;
    const publish = await open();
    publish.socket.write(Buffer.from([0x30, 0x02, 0x00, 0x00])); // a PUBLISH before any CONNECT
    await publish.closed;
    const after = await refusals();
    assert.equal(after.too_large, (before.too_large ?? 0) + 2);
    assert.equal(after.malformed, (before.malformed ?? 0) + 1);
  });
});

describe('the embedded broker: what an access point keeps retained', () => {
  let rig: Rig;
  const MADE_UP = [1, 2, 3].map((i) => `b0000000-0000-4000-8000-00000000fa0${i}`);
  const retainedTopics = async (): Promise<string[]> =>
    ((await rig.t.server.devices.broker?.retained()) ?? []).map((r) => r.topic).sort();
  const STATE = { v: 1, locked: true, battery: 50, reachable: true, app_open: false };
  const stateTopic = (lock: string) => rig.topics.lock(AP_GARAGE, lock, 'state');

  before(async () => {
    rig = await startRig('embedded', { simulator: false });
  });
  after(() => rig.close());

  it('keeps a state report only for a lock its pairing list names, and forgets it when the lock leaves', async () => {
    const garage = await rig.raw(AP_GARAGE);
    await garage.online();
    for (const lock of MADE_UP) await garage.state(lock, { seq: 1, locked: true, battery: 50 });
    await garage.pair([{ device_id: NEW_LOCK, serial: 'SERIALNEW1', nickname: 'Shed' }]);
    await garage.state(NEW_LOCK, { seq: 2, locked: true, battery: 50 });
    // Too large for a state report, though paired: delivered, not kept.
    const padded = JSON.stringify({ ...STATE, seq: 3, pad: 'x'.repeat(5000) });
    await garage.publish(stateTopic(NEW_LOCK), padded, true);
    const expected = [rig.topics.status(AP_GARAGE), rig.topics.locks(AP_GARAGE), stateTopic(NEW_LOCK)].sort();
    await eventually('the retained messages', async () => (await retainedTopics()).length === 3);
    assert.deepEqual(await retainedTopics(), expected);
    const kept = (await rig.t.server.devices.broker?.retained()) ?? [];
    assert.ok(
      kept.every((r) => r.bytes < 4096),
      JSON.stringify(kept),
    );

    await garage.pair([]);
    await eventually(
      'the state of the unpaired lock to be forgotten',
      async () => !(await retainedTopics()).includes(stateTopic(NEW_LOCK)),
    );
    assert.deepEqual(
      await retainedTopics(),
      [rig.topics.status(AP_GARAGE), rig.topics.locks(AP_GARAGE)].sort(),
    );
    garage.end();
  });
});
