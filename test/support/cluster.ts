/**
 * A deployment as docs/deploy.md describes it, on one machine: N lockcloud server processes on one
 * PostgreSQL database, one Redis prefix and one Mosquitto configured by `lockcloud admin mqtt-acl`,
 * with the simulated devices in a `lockcloud sim` process of their own.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import type { Seed } from '../../src/app/seed/schema.ts';
import { runAdmin } from './admin-cli.ts';
import { eventually } from './eventually.ts';
import { freePort, MOSQUITTO_BIN, portOpen } from './mosquitto.ts';
import { createTestDatabase, type TestDatabase } from './postgres.ts';
import { type ServerProcess, startProcess } from './process.ts';

export const REDIS_URL = process.env.LOCKCLOUD_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

export interface ClusterOptions {
  readonly servers: number;
  readonly seed: Seed;
  /** Flags every server process gets (after the deployment's own); `{dir}` is the cluster's directory. */
  readonly flags?: readonly string[];
  /** Files written into the cluster's directory before anything starts, by name. */
  readonly files?: Readonly<Record<string, string>>;
}

export interface Cluster {
  readonly dir: string;
  readonly db: TestDatabase;
  readonly redisPrefix: string;
  readonly mqttUrl: string;
  readonly servers: ServerProcess[];
  /** Everything the simulator process printed. */
  simOutput(): string;
  /** Closes it all and removes what it made: database, Redis keys, files. */
  close(): Promise<void>;
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

async function stopChild(child: ChildProcess | undefined): Promise<void> {
  if (!child) return;
  const done = exited(child);
  child.kill('SIGTERM');
  // A deadline, not a wait: what has not ended 5 s after SIGTERM is killed.
  const deadline = setTimeout(() => child.kill('SIGKILL'), 5000);
  await done;
  clearTimeout(deadline);
}

export async function startCluster(options: ClusterOptions): Promise<Cluster> {
  const dir = mkdtempSync(join(tmpdir(), 'lockcloud-cluster-'));
  const tag = randomBytes(4).toString('hex');
  const redisPrefix = `lockcloud-test-cluster-${process.pid}-${tag}:`;
  const topicPrefix = `cluster-${tag}/`;
  const cloudPassword = randomBytes(18).toString('base64url');
  const db = await createTestDatabase();
  const env: Record<string, string> = {
    DATABASE_URL: db.url,
    REDIS_URL,
    REDIS_PREFIX: redisPrefix,
    LOCKCLOUD_MQTT_PREFIX: topicPrefix,
    // Every process seals and opens the same secrets (webhook secrets, simulated devices' keys).
    LOCKCLOUD_SECRET_KEY: randomBytes(32).toString('base64'),
    LOCKCLOUD_DATA: dir,
  };
  for (const [name, text] of Object.entries(options.files ?? {})) writeFileSync(join(dir, name), text);
  writeFileSync(join(dir, 'seed.json'), JSON.stringify(options.seed));

  const servers: ServerProcess[] = [];
  let broker: ChildProcess | undefined;
  let brokerLog = '';
  let sim: ChildProcess | undefined;
  let simOut = '';
  const close = async (): Promise<void> => {
    await Promise.allSettled(servers.map((server) => server.stop()));
    await stopChild(sim);
    await stopChild(broker);
    await db.drop();
    const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
    try {
      const keys = await redis.keys(`${redisPrefix}*`);
      if (keys.length > 0) await redis.del(...keys);
    } finally {
      redis.disconnect();
    }
    rmSync(dir, { recursive: true, force: true });
  };

  try {
    const admin = async (args: readonly string[]): Promise<string> => {
      const run = await runAdmin([...args], env);
      if (run.code !== 0) throw new Error(`admin ${args.join(' ')} exited ${run.code}: ${run.stderr}`);
      return run.stdout;
    };
    const port = await freePort();
    const mqttAcl = (): Promise<string> =>
      admin([
        'mqtt-acl',
        '--out',
        join(dir, 'mosquitto'),
        '--cloud-users',
        String(options.servers),
        '--cloud-password',
        cloudPassword,
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
      ]);
    // The broker first (the servers need it to start), knowing only the servers' users.
    await mqttAcl();
    const conf = join(dir, 'mosquitto.conf');
    // As root Mosquitto would switch to its own user, who cannot read the 0600 files.
    const asRoot = process.getuid?.() === 0 ? 'user root\n' : '';
    writeFileSync(conf, `${readFileSync(join(dir, 'mosquitto', 'mosquitto.conf'), 'utf8')}${asRoot}`);
    broker = spawn(MOSQUITTO_BIN, ['-c', conf], { stdio: ['ignore', 'pipe', 'pipe'] });
    broker.stderr?.on('data', (chunk: Buffer) => {
      brokerLog += chunk.toString();
    });
    const started = broker;
    await eventually(
      'mosquitto to listen',
      async () => {
        if (started.exitCode !== null) throw new Error('mosquitto exited');
        return portOpen(port);
      },
      { everyMs: 25 },
    ).catch((error: Error) => {
      throw new Error(`mosquitto did not start (${error.message}): ${brokerLog}`);
    });
    const mqttUrl = (n: number): string => `mqtt://cloud-${n}:${cloudPassword}@127.0.0.1:${port}`;
    const serverArgs = (n: number): string[] => [
      '--production',
      '--no-simulator',
      '--mqtt-url',
      options.servers === 1 ? mqttUrl(1).replace('cloud-1', 'cloud') : mqttUrl(n),
      ...(options.flags ?? []).map((flag) => flag.replaceAll('{dir}', dir)),
    ];
    // The first process loads the seed into the empty database; the others find it there.
    servers.push(await startProcess([...serverArgs(1), '--seed', join(dir, 'seed.json')], env));
    // The seed registered the access points: the broker learns them (the operator's reload).
    await mqttAcl();
    broker.kill('SIGHUP');
    // Mosquitto logs this, then reloads before it reads another packet: the simulator's access
    // points, which connect after it, are known.
    await eventually('mosquitto to reload its configuration', () => /Reloading config/.test(brokerLog));
    for (let n = 2; n <= options.servers; n++) servers.push(await startProcess(serverArgs(n), env));

    sim = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        'src/bin/sim.ts',
        '--mqtt-url',
        `mqtt://127.0.0.1:${port}`,
        '--mqtt-prefix',
        topicPrefix,
        '--seed',
        join(dir, 'seed.json'),
        '--log-level',
        'warn',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    sim.stdout?.on('data', (chunk: Buffer) => {
      simOut += chunk.toString();
    });
    sim.stderr?.on('data', (chunk: Buffer) => {
      simOut += chunk.toString();
    });
    const simulator = sim;
    await eventually(
      'the simulator to connect',
      () => {
        if (simulator.exitCode !== null) throw new Error('the simulator exited');
        return /connected to/.test(simOut);
      },
      { timeoutMs: 30_000, everyMs: 50 },
    ).catch((error: Error) => {
      throw new Error(`${error.message}: ${simOut}\n${brokerLog}`);
    });
    return {
      dir,
      db,
      redisPrefix,
      mqttUrl: `mqtt://127.0.0.1:${port}`,
      servers,
      simOutput: () => simOut,
      close,
    };
  } catch (error) {
    await close().catch(() => undefined);
    throw error;
  }
}
