/**
 * compose.yaml's services run as Compose would start them, as far as this machine allows (no
 * container engine runs here: docs/container.md): its `setup` job, `server-1` and `sim` each in the
 * image with buildah, with the environment and command compose.yaml gives them; PostgreSQL, Redis and
 * Mosquitto are the machine's own programs, Mosquitto run as the image's user on the files `setup`
 * wrote. Only what Compose's network would resolve changes: the service names become loopback
 * addresses and free ports. The three servers together are test/cluster's; here one is enough to
 * show the pieces fit: the owner that `setup` made signs in, the locks of the access points it
 * registered appear, and a v1 command reaches one and comes back.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, chownSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import {
  buildahMissing,
  buildImage,
  Container,
  type ImageConfig,
  imageConfig,
  type Running,
  stopRunning,
} from '../support/buildah.ts';
import { REDIS_URL } from '../support/cluster.ts';
import { type ComposeService, interpolateAll, loadCompose } from '../support/compose.ts';
import { eventually } from '../support/eventually.ts';
import { freePort, MOSQUITTO_BIN, portOpen } from '../support/mosquitto.ts';
import { createTestDatabase, type TestDatabase } from '../support/postgres.ts';

const missing = buildahMissing();
const ci = process.env.CI === 'true';
const UID = 10001;
const OWNER = 'owner@example.com';
// What .env would hold (docs/container.md).
const ENV = {
  POSTGRES_PASSWORD: 'not-used-here',
  LOCKCLOUD_SECRET_KEY: randomBytes(32).toString('base64'),
  MQTT_CLOUD_PASSWORD: randomBytes(18).toString('hex'),
  LOCKCLOUD_OWNER_PASSWORD: `owner ${randomBytes(6).toString('hex')}`,
};
const compose = interpolateAll(loadCompose(), ENV);
const service = (name: string): ComposeService => {
  const found = compose.services[name];
  assert.ok(found, `compose.yaml has no ${name}`);
  return found;
};

describe('compose.yaml’s setup job, a server and the simulator, each in the image', {
  skip: !ci && missing,
}, () => {
  let image: string;
  let config: ImageConfig;
  let db: TestDatabase;
  let dir: string;
  const redisPrefix = `lockcloud-test-image-${process.pid}-${randomBytes(4).toString('hex')}:`;
  const containers: Container[] = [];
  const running: { run: Running; command: string[] }[] = [];
  let setup: Container;
  let broker: ChildProcess | undefined;
  let brokerLog = '';

  before(async () => {
    assert.equal(missing, undefined, `CI tests the image: ${missing}`);
    ({ image } = await buildImage());
    ({ config } = await imageConfig(image));
    db = await createTestDatabase();
    dir = mkdtempSync(join(tmpdir(), 'lockcloud-compose-'));
  });

  after(async () => {
    await Promise.all(running.map(({ run, command }) => stopRunning(run, command)));
    if (broker && broker.exitCode === null) {
      const gone = new Promise((resolve) => broker?.once('exit', resolve));
      broker.kill('SIGTERM');
      await gone;
    }
    await Promise.all(containers.map((c) => c.remove()));
    await db?.drop();
    const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
    try {
      const keys = await redis.keys(`${redisPrefix}*`);
      if (keys.length > 0) await redis.del(...keys);
    } finally {
      redis.disconnect();
    }
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** A container of the image with a service's environment, its hosts replaced by this machine's. */
  async function containerOf(name: string, replace: Record<string, string>): Promise<Container> {
    const env = { ...(service(name).environment ?? {}), ...replace };
    const container = await Container.create(image, env);
    containers.push(container);
    return container;
  }

  function start(container: Container, command: string[]): Running {
    const run = container.start(command);
    running.push({ run, command });
    return run;
  }

  it('setup: the schema, the owner, two access points and the broker’s files; run again, it adds nothing', async (t) => {
    const job = service('setup');
    assert.match(job.environment?.DATABASE_URL ?? '', /@postgres:5432\/lockcloud$/);
    setup = await containerOf('setup', { DATABASE_URL: db.url });
    const script = [...(job.entrypoint ?? []), ...(job.command ?? [])];
    const first = await setup.exec(script);
    assert.equal(first.code, 0, `${first.stdout}\n${first.stderr}`);
    assert.match(first.stdout, new RegExp(`created account ${OWNER} \\(verified, with a password\\)`));
    assert.match(first.stdout, /setup: registered 2 access points for the simulator/);
    assert.match(
      first.stdout,
      /wrote \/data\/mosquitto\/passwd \(the cloud as cloud-1, cloud-2, cloud-3, and 2 access points\)/,
    );
    assert.doesNotMatch(first.stdout, /warning|cloud password \(shown this once\)/);

    const second = await setup.exec(script);
    assert.equal(second.code, 0, `${second.stdout}\n${second.stderr}`);
    assert.match(second.stdout, new RegExp(`setup: ${OWNER} exists`));
    assert.match(second.stdout, /setup: the simulator's access points exist/);
    assert.doesNotMatch(second.stdout, /created account|registered/);
    assert.match(second.stdout, /and 2 access points\)/);
    t.diagnostic(second.stdout.trim().split('\n').join(' | '));

    const aps = await setup.exec(['lockcloud', 'admin', 'access-points', '--json']);
    assert.equal((JSON.parse(aps.stdout) as unknown[]).length, 2, aps.stdout);
    const files = await setup.exec([
      'sh',
      '-c',
      'stat -c "%n %u %a" /data/access-points.json /data/mosquitto/*',
    ]);
    for (const file of [
      'access-points.json',
      'mosquitto/acl',
      'mosquitto/mosquitto.conf',
      'mosquitto/passwd',
    ])
      assert.match(files.stdout, new RegExp(`^/data/${file} ${UID} 600$`, 'm'), files.stdout);
  });

  it('Mosquitto on those files as the image’s user, server-1 and the simulator: the owner’s locks answer a v1 command', async (t) => {
    assert.ok(setup, 'the setup of the previous test');
    // The broker's files, as the mosquitto service reads them from the volume, at a free port.
    const read = async (file: string): Promise<string> => {
      const out = await setup.exec(['cat', `/data/mosquitto/${file}`]);
      assert.equal(out.code, 0, out.stderr);
      return out.stdout;
    };
    const port = await freePort();
    const conf = await read('mosquitto.conf');
    assert.match(conf, /^listener 1883$/m);
    assert.match(conf, /^password_file \/data\/mosquitto\/passwd$/m);
    chownSync(dir, UID, UID);
    chmodSync(dir, 0o700);
    for (const [name, text] of [
      ['passwd', await read('passwd')],
      ['acl', await read('acl')],
      [
        'mosquitto.conf',
        conf
          .replace(/^listener 1883$/m, `listener ${port} 127.0.0.1`)
          .replaceAll('/data/mosquitto/', `${dir}/`),
      ],
    ] as const) {
      writeFileSync(join(dir, name), text, { mode: 0o600 });
      chownSync(join(dir, name), UID, UID);
    }
    const user = service('mosquitto').user ?? '';
    const [uid, gid] = user.split(':');
    assert.equal(user, `${UID}:${UID}`);
    broker = spawn(
      'setpriv',
      [
        `--reuid=${uid}`,
        `--regid=${gid}`,
        '--clear-groups',
        MOSQUITTO_BIN,
        '-c',
        join(dir, 'mosquitto.conf'),
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    broker.stderr?.on('data', (chunk: Buffer) => {
      brokerLog += chunk.toString();
    });
    const started = broker;
    await eventually('mosquitto to listen', async () => {
      if (started.exitCode !== null) throw new Error(`mosquitto exited: ${brokerLog}`);
      return portOpen(port);
    });
    const mqtt = (url: string): string => {
      assert.match(url, /@?mosquitto:1883$/);
      return url.replace(/mosquitto:1883$/, `127.0.0.1:${port}`);
    };

    const httpPort = await freePort();
    const s1 = service('server-1');
    const server = await containerOf('server-1', {
      DATABASE_URL: db.url,
      REDIS_URL,
      REDIS_PREFIX: redisPrefix,
      MQTT_URL: mqtt(s1.environment?.MQTT_URL ?? ''),
      LOCKCLOUD_PORT: String(httpPort),
    });
    const serving = start(server, [...config.Entrypoint, ...(s1.command ?? [])]);
    await eventually(
      'server-1 to listen',
      () => {
        if (serving.child.exitCode !== null)
          throw new Error(`server-1 exited:\n${serving.stdout()}\n${serving.stderr()}`);
        return /listening on \S+ +\(production mode\)/.test(serving.stdout());
      },
      { timeoutMs: 60_000, everyMs: 50 },
    );

    // The sim service mounts the setup volume: here it runs in the setup job's container, whose it is.
    const sim = service('sim');
    await setup.setEnv({ MQTT_URL: mqtt(sim.environment?.MQTT_URL ?? '') });
    const simulating = start(setup, [...config.Entrypoint, ...(sim.command ?? [])]);
    await eventually(
      'the simulator to connect',
      () => {
        if (simulating.child.exitCode !== null)
          throw new Error(`sim exited:\n${simulating.stdout()}\n${simulating.stderr()}\n${brokerLog}`);
        return /2 access points with 6 locks connected/.test(simulating.stdout());
      },
      { timeoutMs: 60_000, everyMs: 50 },
    );

    const url = `http://127.0.0.1:${httpPort}`;
    const login = await fetch(`${url}/v1/accounts/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: OWNER, password: ENV.LOCKCLOUD_OWNER_PASSWORD }),
    });
    assert.equal(login.status, 200, await login.clone().text());
    const { authorization } = (await login.json()) as { authorization: string };
    const headers = { 'x-authorization': authorization, 'content-type': 'application/json' };
    type V1Lock = { device_id: string; is_unlocked: boolean; api_enabled: boolean };
    const locks = await eventually(
      'the six simulated locks, usable',
      async () => {
        const { locks: listed } = (await (await fetch(`${url}/v1/locks`, { headers })).json()) as {
          locks: V1Lock[];
        };
        return listed.length === 6 && listed.every((l) => l.api_enabled) && listed;
      },
      { timeoutMs: 30_000, everyMs: 100 },
    );
    const lock = locks[0];
    assert.ok(lock && !lock.is_unlocked, JSON.stringify(lock));
    const control = await fetch(`${url}/v1/locks/${lock.device_id}/control`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ type: 'unlock' }),
    });
    assert.equal(control.status, 204, await control.text());
    const state = (await (await fetch(`${url}/v1/locks/${lock.device_id}`, { headers })).json()) as V1Lock;
    assert.equal(state.is_unlocked, true);
    const ready = await fetch(`${url}/readyz`);
    assert.equal(ready.status, 200, await ready.clone().text());
    t.diagnostic(`readyz: ${await ready.text()}`);
  });
});
