/**
 * The steps of a server's start, each made to fail for real (test/process/startup-failure.test.ts
 * says what is checked after each): what an attempt needs (its own directory, ports and Redis
 * prefix) and, per step, how to make it fail and what must be gone afterwards.
 */
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer as createNetServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import pg from 'pg';
import pino from 'pino';
import { BetterSqlite3 } from '../../src/adapters/stores/sqlite/better-sqlite3.ts';
import { openSqliteStore, SQLITE_FILE_NAME } from '../../src/adapters/stores/sqlite/open.ts';
import { scryptHasher } from '../../src/adapters/system/crypto.ts';
import { SERVER_KEY_FILE } from '../../src/adapters/webhooks/secret-box.ts';
import { SeedError } from '../../src/app/seed/validate.ts';
import { loadConfig } from '../../src/config/config.ts';
import { createServer, StartupError } from '../../src/main.ts';
import { REDIS_URL } from '../support/cluster.ts';
import { deviceSeed } from '../support/devices.ts';
import { freePort } from '../support/mosquitto.ts';
import type { TestDatabase } from '../support/postgres.ts';
import { standardSeed } from '../support/server.ts';

export const cheapPasswords = scryptHasher({ N: 1024, r: 8, p: 1 });

/** Where one attempt runs: its own data directory, ports it names, and a Redis prefix of its own. */
export interface Attempt {
  readonly dir: string;
  readonly dataDir: string;
  readonly apiPort: number;
  readonly mqttPort: number;
  readonly metricsPort: number;
  readonly redisPrefix: string;
  /** Flags every attempt gets: fixed ports (so they can be checked afterwards), the data directory. */
  readonly flags: string[];
  /** A file in `dir` holding `text`. */
  file(name: string, text: string): string;
  /** Listens on `port` (127.0.0.1) until the attempt is over. */
  take(port: number): Promise<void>;
}

export interface Failure {
  readonly flags?: readonly string[];
  readonly env?: Readonly<Record<string, string>>;
  /** StartupError and SeedError: a one-line reason and exit 2; anything else: exit 1 with its stack. */
  readonly kind: typeof StartupError | typeof SeedError | 'unexpected';
  readonly message: RegExp;
  /** In process only: a logger of the test's own. */
  readonly logger?: pino.Logger;
  /** What else must be gone once the start has failed. */
  readonly gone?: () => Promise<void>;
}

export interface Step {
  readonly step: string;
  /** What was open when it failed, and had to be closed. */
  readonly opened: string;
  /** false: only in process (an injected failure a child process cannot be given). */
  readonly child?: boolean;
  prepare(attempt: Attempt): Promise<Failure>;
}

export const silentFlags = ['--host', '127.0.0.1', '--log-level', 'silent'];

const takenServers: Server[] = [];
/** Every attempt's directory, removed by the test's after(). */
export const dirs: string[] = [];

export async function newAttempt(): Promise<Attempt> {
  const dir = mkdtempSync(join(tmpdir(), 'lockcloud-startfail-'));
  dirs.push(dir);
  const dataDir = join(dir, 'data');
  const [apiPort, mqttPort, metricsPort] = [await freePort(), await freePort(), await freePort()];
  const redisPrefix = `lockcloud-test:startfail:${randomUUID()}:`;
  return {
    dir,
    dataDir,
    apiPort,
    mqttPort,
    metricsPort,
    redisPrefix,
    flags: ['--data', dataDir, '--port', String(apiPort), '--mqtt-port', String(mqttPort)],
    file(name, text) {
      const path = join(dir, name);
      writeFileSync(path, text);
      return path;
    },
    async take(port) {
      const server = createNetServer();
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, '127.0.0.1', resolve);
      });
      takenServers.push(server);
    },
  };
}

export async function releaseTaken(): Promise<void> {
  for (const server of takenServers.splice(0)) await new Promise((resolve) => server.close(resolve));
}

/** A SQLite data directory already migrated, with a trigger that refuses every new account. */
async function refusingAccounts(dataDir: string): Promise<void> {
  await (await openSqliteStore(dataDir)).close();
  const raw = new BetterSqlite3(join(dataDir, SQLITE_FILE_NAME));
  raw.exec(
    "CREATE TRIGGER refuse_accounts BEFORE INSERT ON accounts BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END",
  );
  raw.close();
}

async function noSubscriber(prefix: string): Promise<void> {
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  try {
    const [, count] = (await redis.call('PUBSUB', 'NUMSUB', `${prefix}events`)) as [string, number];
    assert.equal(count, 0, 'an event-bus subscriber is still connected');
  } finally {
    redis.disconnect();
  }
}

async function noDatabaseConnection(database: TestDatabase): Promise<void> {
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: string }>(
      "SELECT count(*) AS n FROM pg_stat_activity WHERE datname = $1 AND application_name = 'lockcloud'",
      [database.name],
    );
    assert.equal(Number(rows[0]?.n), 0, "lockcloud's pool is still connected");
  } finally {
    await client.end();
  }
}

/** Every step of a start, each made to fail; `db` is the test's PostgreSQL database (made in before()). */
export function startupSteps(db: () => TestDatabase): readonly Step[] {
  return [
    {
      step: 'reading the seed',
      opened: 'nothing',
      async prepare(a) {
        const seed = a.file('seed.json', '{"accounts": [{"email": "not an e-mail"');
        return { flags: ['--seed', seed], kind: SeedError, message: /seed/ };
      },
    },
    {
      step: 'opening the store: a data directory that cannot be written',
      opened: 'nothing',
      async prepare(a) {
        const blocker = a.file('not-a-directory', 'a file where the data directory should go');
        return {
          flags: ['--data', join(blocker, 'data')],
          kind: StartupError,
          message: /cannot open the store: .*ENOTDIR/,
        };
      },
    },
    {
      step: 'opening the store: a file that is not a database',
      opened: 'the SQLite file',
      async prepare(a) {
        mkdirSync(a.dataDir);
        writeFileSync(join(a.dataDir, SQLITE_FILE_NAME), randomBytes(8192));
        return { kind: StartupError, message: /cannot open the store: file is not a database/ };
      },
    },
    {
      step: 'migrating the store (SQLite)',
      opened: 'the SQLite file',
      async prepare(a) {
        mkdirSync(a.dataDir);
        const raw = new BetterSqlite3(join(a.dataDir, SQLITE_FILE_NAME));
        raw.exec('CREATE TABLE accounts (something_else INTEGER)');
        raw.close();
        return { kind: StartupError, message: /cannot open the store: database migration \S+ failed/ };
      },
    },
    {
      step: 'migrating the store (PostgreSQL)',
      opened: 'the PostgreSQL pool',
      async prepare() {
        const client = new pg.Client({ connectionString: db().url });
        await client.connect();
        await client.query('DROP TABLE IF EXISTS accounts CASCADE');
        await client.query('DROP TABLE IF EXISTS kysely_migration, kysely_migration_lock');
        await client.query('CREATE TABLE accounts (something_else integer)');
        await client.end();
        return {
          flags: ['--database-url', db().url],
          kind: StartupError,
          message: /cannot open the store: database migration \S+ failed/,
          gone: () => noDatabaseConnection(db()),
        };
      },
    },
    {
      step: 'opening the store: PostgreSQL not there',
      opened: 'nothing',
      async prepare() {
        const closed = await freePort();
        return {
          flags: ['--database-url', `postgres://lockcloud@127.0.0.1:${closed}/lockcloud`],
          kind: StartupError,
          message: /cannot open the store: .*ECONNREFUSED/,
        };
      },
    },
    {
      step: 'opening the event bus: Redis not there',
      opened: 'the store',
      async prepare() {
        const closed = await freePort();
        return {
          flags: ['--redis-url', `redis://127.0.0.1:${closed}`],
          kind: StartupError,
          message: /cannot reach Redis for the event bus: .*ECONNREFUSED/,
        };
      },
    },
    {
      step: 'the server key: a data directory that cannot be written (PostgreSQL store)',
      opened: 'the store and the event bus',
      async prepare(a) {
        await resetDatabase(db());
        const blocker = a.file('not-a-directory', 'a file where the data directory should go');
        return {
          flags: [
            '--database-url',
            db().url,
            '--redis-url',
            REDIS_URL,
            '--redis-prefix',
            a.redisPrefix,
            '--data',
            join(blocker, 'data'),
          ],
          kind: StartupError,
          message: /cannot read or make the server key: .*ENOTDIR/,
          gone: async () => {
            await noDatabaseConnection(db());
            await noSubscriber(a.redisPrefix);
          },
        };
      },
    },
    {
      step: 'the server key: unreadable',
      opened: 'the store, the event bus and the mailer',
      async prepare(a) {
        mkdirSync(join(a.dataDir, SERVER_KEY_FILE), { recursive: true });
        return {
          flags: ['--redis-url', REDIS_URL, '--redis-prefix', a.redisPrefix],
          kind: StartupError,
          message: /cannot read or make the server key: .*EISDIR/,
          gone: () => noSubscriber(a.redisPrefix),
        };
      },
    },
    {
      step: 'starting the embedded broker: its port already taken',
      opened: 'the store, the event bus and the mailer',
      async prepare(a) {
        await a.take(a.mqttPort);
        return {
          flags: ['--redis-url', REDIS_URL, '--redis-prefix', a.redisPrefix],
          kind: StartupError,
          // Issue 20: a taken port names the flag that picks another.
          message: new RegExp(
            `cannot start the device link: .*EADDRINUSE.*${a.mqttPort}; another program \\(another lockcloud\\?\\) has the port: give another with --mqtt-port N, or --mqtt-port 0 for any free one`,
          ),
          gone: () => noSubscriber(a.redisPrefix),
        };
      },
    },
    {
      step: 'connecting the gateway: an external broker not there',
      opened: 'the store, the event bus and the mailer',
      async prepare() {
        const closed = await freePort();
        return {
          flags: ['--mqtt-url', `mqtt://127.0.0.1:${closed}`],
          kind: StartupError,
          message: /cannot start the device link: .*ECONNREFUSED/,
        };
      },
    },
    {
      step: 'starting the application: the seed cannot be stored',
      opened: 'the store, the event bus, the mailer, the broker, the gateway and the rate-limit store',
      async prepare(a) {
        await refusingAccounts(a.dataDir);
        return {
          flags: ['--seed', a.file('seed.json', JSON.stringify(standardSeed())), ...redis(a)],
          kind: 'unexpected',
          message: /database or disk is full/,
          gone: () => noSubscriber(a.redisPrefix),
        };
      },
    },
    {
      step: 'starting the application: --production over demo data',
      opened: 'everything up to the application',
      async prepare(a) {
        const demo = await createServer(loadConfig({}, [...a.flags, ...silentFlags]), {
          passwords: cheapPasswords,
        });
        await demo.listen(); // the demo is made once the server listens
        await demo.close();
        return {
          flags: ['--production', ...redis(a)],
          kind: StartupError,
          message: /--production refuses to start with demo data/,
          gone: () => noSubscriber(a.redisPrefix),
        };
      },
    },
    {
      step: 'starting the simulated devices: their secrets sealed with another key',
      opened: 'everything up to the application, started',
      async prepare(a) {
        const seed = a.file('seed.json', JSON.stringify(deviceSeed()));
        const first = await createServer(loadConfig({}, [...a.flags, ...silentFlags, '--seed', seed]), {
          passwords: cheapPasswords,
        });
        await first.close();
        writeFileSync(join(a.dataDir, SERVER_KEY_FILE), `${randomBytes(32).toString('base64')}\n`);
        return {
          flags: redis(a),
          kind: StartupError,
          message: /cannot start the simulated devices: /,
          gone: () => noSubscriber(a.redisPrefix),
        };
      },
    },
    {
      step: 'building the HTTP front (injected: a logger fastify refuses)',
      opened: 'everything up to the simulated devices, started',
      child: false,
      async prepare(a) {
        const logger = pino({ level: 'silent' });
        Object.assign(logger, { child: undefined });
        return {
          flags: ['--seed', a.file('seed.json', JSON.stringify(deviceSeed())), ...redis(a)],
          kind: 'unexpected',
          message: /logger/i,
          logger,
          gone: () => noSubscriber(a.redisPrefix),
        };
      },
    },
    {
      step: 'listening: the API port already taken',
      opened: 'everything but the listeners',
      async prepare(a) {
        await a.take(a.apiPort);
        return {
          flags: ['--seed', a.file('seed.json', JSON.stringify(deviceSeed())), ...redis(a)],
          kind: StartupError,
          message: new RegExp(
            `cannot listen on 127\\.0\\.0\\.1:${a.apiPort}: .*EADDRINUSE.*: give another with --port N, or --port 0 for any free one`,
          ),
          gone: () => noSubscriber(a.redisPrefix),
        };
      },
    },
    {
      step: 'listening: the metrics port already taken',
      opened: 'everything, the API listening',
      async prepare(a) {
        await a.take(a.metricsPort);
        return {
          flags: [
            '--seed',
            a.file('seed.json', JSON.stringify(deviceSeed())),
            '--metrics-port',
            String(a.metricsPort),
            ...redis(a),
          ],
          kind: StartupError,
          message: new RegExp(
            `cannot serve metrics on 127\\.0\\.0\\.1:${a.metricsPort}: .*EADDRINUSE.*: give another with --metrics-port N, or --metrics-port 0 for any free one`,
          ),
          gone: () => noSubscriber(a.redisPrefix),
        };
      },
    },
  ];
}

function redis(a: Attempt): string[] {
  return ['--redis-url', REDIS_URL, '--redis-prefix', a.redisPrefix];
}

async function resetDatabase(db: TestDatabase): Promise<void> {
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  await client.query('DROP SCHEMA public CASCADE; CREATE SCHEMA public');
  await client.end();
}
