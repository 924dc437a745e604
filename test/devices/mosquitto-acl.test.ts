/**
 * `lockcloud admin mqtt-acl` against a real Mosquitto 2: access points registered through the CLI,
 * the files it writes, and a broker of the test's own (never the machine's, never port 1883) that
 * must then apply the device protocol's rules as the embedded broker does.
 *
 * With MQTT 3.1.1 Mosquitto drops a refused PUBLISH silently, and it grants any SUBSCRIBE but
 * delivers only what the subscriber may read, so refusals are checked by absence, after a positive
 * control message sent later has arrived. That is enough: Mosquitto handles one packet at a time
 * and queues each subscriber's messages in the order it handled them, so a message it would have
 * delivered, published (and acknowledged) before the control message, arrives before it.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { connect, type MqttClient } from 'mqtt';
import { apUsername, Topics } from '../../src/device-protocol/topics.ts';
import { runAdmin } from '../support/admin-cli.ts';
import { eventually } from '../support/eventually.ts';
import { freePort, portOpen } from '../support/mosquitto.ts';

const MOSQUITTO = '/usr/sbin/mosquitto';
const LOCK = '0f0f0f0f-0f0f-4f0f-8f0f-0f0f0f0f0f0f';
const OTHER_LOCK = '1e1e1e1e-1e1e-4e1e-8e1e-1e1e1e1e1e1e';

interface Credentials {
  readonly id: string;
  readonly username: string;
  readonly password: string;
}

async function ok(args: readonly string[]): Promise<string> {
  const run = await runAdmin(args);
  assert.equal(run.code, 0, `lockcloud admin ${args.join(' ')}: ${run.stderr}`);
  return run.stdout;
}

/** Resolves once the broker listens; fails at once if it exited. */
function waitForPort(port: number, broker: ChildProcess, log: () => string): Promise<true> {
  return eventually(
    `mosquitto to listen on ${port}`,
    async () => {
      if (broker.exitCode !== null) throw new Error(`mosquitto exited with ${broker.exitCode}:\n${log()}`);
      return portOpen(port);
    },
    { everyMs: 50 },
  );
}

function mqttConnect(port: number, username: string, password: string): Promise<MqttClient> {
  return new Promise((resolve, reject) => {
    const client = connect(`mqtt://127.0.0.1:${port}`, {
      username,
      password,
      protocolVersion: 4,
      reconnectPeriod: 0,
      connectTimeout: 5000,
    });
    client.once('connect', () => resolve(client));
    client.once('error', (error) => {
      client.end(true);
      reject(error);
    });
  });
}

/** Every message a client receives, by topic. */
function inbox(client: MqttClient): { topics: string[]; next(topic: string): Promise<string> } {
  const topics: string[] = [];
  const waiters: { topic: string; resolve: (payload: string) => void }[] = [];
  client.on('message', (topic, payload) => {
    topics.push(topic);
    for (const waiter of waiters.filter((w) => w.topic === topic)) {
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve(payload.toString());
    }
  });
  return {
    topics,
    next: (topic) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no message on ${topic} within 5 s`)), 5000);
        waiters.push({
          topic,
          resolve: (payload) => {
            clearTimeout(timer);
            resolve(payload);
          },
        });
      }),
  };
}

const SAMPLE_ID = '12345678-1234-4234-8234-123456789abc';
/** Mosquitto's password file splits a line at its first ':' (see the report of mqtt-acl). */
const usernameFitsMosquitto = !apUsername(SAMPLE_ID).includes(':');

describe('mqtt-acl against a real Mosquitto', {
  skip: !existsSync(MOSQUITTO) && 'mosquitto is not installed',
}, () => {
  it("access points' MQTT user names fit Mosquitto's password file (no ':')", () => {
    assert.ok(
      usernameFitsMosquitto,
      `apUsername() gives "${apUsername(SAMPLE_ID)}": Mosquitto reads "user:hash" lines up to the first ':' ` +
        '(and mosquitto_passwd refuses such names), so these access points could never connect to it',
    );
  });

  describe('the generated files, served by mosquitto', {
    skip: !usernameFitsMosquitto && "user names hold ':'",
  }, () => {
    const topics = new Topics();
    let dir: string;
    let port: number;
    let broker: ChildProcess | undefined;
    let brokerLog = '';
    let cloudPassword: string;
    let a: Credentials;
    let b: Credentials;
    const clients: MqttClient[] = [];

    const client = async (username: string, password: string): Promise<MqttClient> => {
      const c = await mqttConnect(port, username, password);
      clients.push(c);
      return c;
    };

    before(async () => {
      dir = mkdtempSync(join(tmpdir(), 'lockcloud-mosquitto-acl-'));
      const data = ['--data', dir];
      await ok(['create-account', 'owner@example.com', '--password', 'owner-password', ...data]);
      const registered = JSON.parse(
        await ok(['register-ap', 'owner@example.com', '--count', '2', '--json', ...data]),
      ) as Credentials[];
      assert.equal(registered.length, 2);
      for (const ap of registered) assert.deepEqual(Object.keys(ap), ['id', 'username', 'password']);
      [a, b] = registered as [Credentials, Credentials];

      port = await freePort();
      const out = join(dir, 'mosquitto');
      const printed = await ok([
        'mqtt-acl',
        '--out',
        out,
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--max-connections',
        '50',
        ...data,
      ]);
      const match = /mqtt:\/\/cloud:(\S+)@host:port/.exec(printed);
      assert.ok(match?.[1], printed);
      cloudPassword = match[1];
      assert.match(printed, /the cloud and 2 access points/);

      let conf = join(out, 'mosquitto.conf');
      if (process.getuid?.() === 0) {
        // As root Mosquitto would switch to its own user, who cannot read the test's 0600 files.
        const asRoot = join(dir, 'mosquitto-as-root.conf');
        writeFileSync(asRoot, `${readFileSync(conf, 'utf8')}user root\n`);
        conf = asRoot;
      }
      broker = spawn(MOSQUITTO, ['-c', conf], { stdio: ['ignore', 'pipe', 'pipe'] });
      broker.stdout?.on('data', (chunk: Buffer) => {
        brokerLog += chunk.toString();
      });
      broker.stderr?.on('data', (chunk: Buffer) => {
        brokerLog += chunk.toString();
      });
      await waitForPort(port, broker, () => brokerLog);
    });

    after(async () => {
      await Promise.all(clients.map((c) => c.endAsync(true).catch(() => undefined)));
      if (broker && broker.exitCode === null && broker.signalCode === null) {
        const exited = new Promise((resolve) => broker?.once('exit', resolve));
        broker.kill('SIGTERM');
        await exited;
      }
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it('lets an access point in with its secret, and refuses a wrong secret or an unknown user', async () => {
      await client(a.username, a.password);
      await assert.rejects(mqttConnect(port, a.username, `${a.password}x`), /Not authorized|Bad username/i);
      await assert.rejects(mqttConnect(port, a.username, b.password), /Not authorized|Bad username/i);
      await assert.rejects(mqttConnect(port, 'cloud', a.password), /Not authorized|Bad username/i);
      await assert.rejects(
        mqttConnect(port, apUsername(SAMPLE_ID), a.password),
        /Not authorized|Bad username/i,
      );
    });

    it('closes a connection whose packet is over the limit it sets, before authentication or after', async () => {
      const conf = readFileSync(join(dir, 'mosquitto', 'mosquitto.conf'), 'utf8');
      assert.match(conf, /^max_connections 50$/m);
      assert.match(conf, /^max_packet_size \d+$/m);
      // A stranger's CONNECT announcing 256 MB: refused at its header.
      const stranger = createConnection({ port, host: '127.0.0.1' });
      stranger.on('error', () => undefined);
      const strangerGone = new Promise<void>((resolve) => stranger.once('close', () => resolve()));
      stranger.write(Buffer.from([0x10, 0xff, 0xff, 0xff, 0x7f]));
      await strangerGone;
      // An access point's state report of 300 KiB, over the protocol's 256 KiB.
      const apA = await client(a.username, a.password);
      const apGone = new Promise<void>((resolve) => apA.once('close', () => resolve()));
      const state = JSON.stringify({ v: 1, seq: 1, pad: 'x'.repeat(300 * 1024) });
      void apA.publishAsync(topics.lock(a.id, LOCK, 'state'), state, { qos: 1 }).catch(() => undefined);
      await apGone;
      assert.match(brokerLog, /oversize packet/);
    });

    it("delivers an access point's own state to the cloud, never one published under another's topic", async () => {
      const cloud = await client('cloud', cloudPassword);
      const cloudInbox = inbox(cloud);
      await cloud.subscribeAsync(topics.cloudFilters(), { qos: 1 });
      const apA = await client(a.username, a.password);

      const own = topics.lock(a.id, LOCK, 'state');
      const forged = topics.lock(b.id, LOCK, 'state');
      const forgedStatus = topics.status(b.id);
      const arrived = cloudInbox.next(own);
      await apA.publishAsync(forged, '{"v":1,"seq":99,"locked":false}', { qos: 1 });
      await apA.publishAsync(forgedStatus, '{"v":1,"online":false}', { qos: 1 });
      await apA.publishAsync(own, '{"v":1,"seq":1,"locked":true}', { qos: 1 });
      assert.equal(await arrived, '{"v":1,"seq":1,"locked":true}');
      assert.ok(!cloudInbox.topics.includes(forged), 'a state under B was delivered');
      assert.ok(!cloudInbox.topics.includes(forgedStatus), 'a status of B was delivered');
    });

    it('keeps every device message for a cloud that reads slower than the devices speak', async () => {
      const cloud = await client('cloud', cloudPassword);
      // Like the gateway past its bound (admission.ts), the cloud takes no packet off the socket until
      // released: Mosquitto holds the rest, unacknowledged, in its queue for the cloud.
      let held: (() => void) | undefined;
      cloud.handleMessage = (_packet, done) => {
        held = () => done();
      };
      let received = 0;
      cloud.on('message', () => received++);
      await cloud.subscribeAsync(topics.cloudFilters(), { qos: 1 });
      const apA = await client(a.username, a.password);
      // Three times what Mosquitto keeps for a client by default (max_queued_messages 1000).
      const count = 3000;
      for (let seq = 1; seq <= count; seq++)
        await apA.publishAsync(topics.lock(a.id, LOCK, 'state'), `{"v":1,"seq":${seq},"locked":true}`, {
          qos: 1,
        });
      const control = topics.lock(a.id, OTHER_LOCK, 'state');
      const controlArrived = new Promise<void>((resolve) =>
        cloud.on('message', (topic) => topic === control && resolve()),
      );
      await apA.publishAsync(control, '{"v":1,"seq":1,"locked":true}', { qos: 1 });
      cloud.handleMessage = (_packet, done) => done();
      held?.();
      // Mosquitto delivers in order: once the control message is in, every one it kept is. A broker
      // that dropped messages past its queue dropped the control message too.
      await Promise.race([
        controlArrived,
        new Promise((_, reject) =>
          setTimeout(() => reject(new Error(`${received} of ${count + 1} messages arrived`)), 10_000).unref(),
        ),
      ]);
      assert.equal(received, count + 1);
    });

    it('lets the cloud subscribe through a shared subscription ($share), as several servers do', async () => {
      const cloud = await client('cloud', cloudPassword);
      const cloudInbox = inbox(cloud);
      const granted = await cloud.subscribeAsync(
        topics.cloudFilters().map((filter) => `$share/lockcloud/${filter}`),
        { qos: 1 },
      );
      assert.ok(
        granted.every((g) => g.qos === 1),
        JSON.stringify(granted),
      );
      const apA = await client(a.username, a.password);
      const own = topics.lock(a.id, LOCK, 'ack');
      const arrived = cloudInbox.next(own);
      await apA.publishAsync(own, '{"v":1,"task_id":"t"}', { qos: 1 });
      assert.equal(await arrived, '{"v":1,"task_id":"t"}');
    });

    it("gives an access point its own commands, never another's, even through wildcards", async () => {
      const cloud = await client('cloud', cloudPassword);
      const apA = await client(a.username, a.password);
      const apB = await client(b.username, b.password);
      const inboxA = inbox(apA);
      const inboxB = inbox(apB);
      const filters = [...topics.apFilters(a.id), ...topics.apFilters(b.id), 'lc/1/#', '#'];
      // Mosquitto 2.0 grants these (no 0x80 code): it checks the read ACL on every message it delivers.
      await apA.subscribeAsync(filters, { qos: 1 });
      await apB.subscribeAsync(topics.apFilters(b.id), { qos: 1 });

      const toA = topics.lock(a.id, LOCK, 'cmd');
      const toB = topics.lock(b.id, LOCK, 'cmd');
      const bGot = inboxB.next(toB);
      await cloud.publishAsync(toB, '{"v":1,"task_id":"for-b"}', { qos: 1 });
      assert.equal(await bGot, '{"v":1,"task_id":"for-b"}', 'B receives its own command');
      const aGot = inboxA.next(toA);
      await cloud.publishAsync(toA, '{"v":1,"task_id":"for-a"}', { qos: 1 });
      assert.equal(await aGot, '{"v":1,"task_id":"for-a"}');
      assert.deepEqual(
        inboxA.topics,
        [toA],
        "A received a message not its own (B's command, or an up-going topic)",
      );
    });

    it('keeps an access point from writing down-going topics (a command to itself)', async () => {
      const apA = await client(a.username, a.password);
      const apB = await client(b.username, b.password);
      const inboxB = inbox(apB);
      await apB.subscribeAsync(topics.apFilters(b.id), { qos: 1 });
      const control = topics.lock(b.id, LOCK, 'sim');
      const cloud = await client('cloud', cloudPassword);
      await apA.publishAsync(topics.lock(b.id, LOCK, 'cmd'), '{"v":1,"task_id":"forged"}', { qos: 1 });
      const got = inboxB.next(control);
      await cloud.publishAsync(control, '{"v":1}', { qos: 1 });
      await got;
      assert.deepEqual(inboxB.topics, [control], 'A wrote a command to B');
    });

    it('shuts a removed access point out once the files are written again and the broker reloaded', async () => {
      const data = ['--data', dir];
      const out = join(dir, 'mosquitto');
      await ok(['remove-ap', b.id, ...data]);
      const printed = await ok([
        'mqtt-acl',
        '--out',
        out,
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--cloud-password',
        cloudPassword,
        ...data,
      ]);
      assert.match(printed, /the cloud and 1 access points/);
      assert.doesNotMatch(printed, /cloud password/, 'a password given is not printed');
      assert.doesNotMatch(readFileSync(join(out, 'passwd'), 'utf8'), new RegExp(b.id));
      assert.doesNotMatch(readFileSync(join(out, 'acl'), 'utf8'), new RegExp(b.id));
      const apB = await client(b.username, b.password);
      const closed = new Promise<void>((resolve) => apB.once('close', () => resolve()));
      broker?.kill('SIGHUP');
      await closed; // Mosquitto checks the connected clients again on reload
      await assert.rejects(mqttConnect(port, b.username, b.password), /Not authorized|Bad username/i);
      await client(a.username, a.password);
      await client('cloud', cloudPassword);
    });
  });
});
