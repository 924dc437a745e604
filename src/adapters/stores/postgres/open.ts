import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { Store } from '../../../app/ports.ts';
import { withReadCache } from '../read-cache.ts';
import { migrateToLatest } from '../sql/migrate.ts';
import { SqlStore } from '../sql/store.ts';
import type { StoreTraffic } from '../sql/store-traffic.ts';
import type { Database } from '../sql/tables.ts';
import { CommitsElsewhere } from './commits-elsewhere.ts';
import { NulTextPlugin } from './nul-text.ts';
import { guardedPool } from './unavailable.ts';

export interface PostgresStoreOptions {
  /** Connections this process keeps at most (default 10). */
  readonly poolSize?: number;
  /** How long to wait for a connection before failing (default 10 s): an unreachable host must not hang. */
  readonly connectTimeoutMs?: number;
  /** Counts the statements sent (metrics, the command bench); none: not counted. */
  readonly storeTraffic?: StoreTraffic;
  /** How long the listening connection waits before connecting again (the read cache; default 1 s). */
  readonly reconnectDelayMs?: number;
}

/** Entries per read-cache map, as on SQLite: the hot set of a large deployment. */
const READ_CACHE_ENTRIES = 100_000;

export const DEFAULT_POOL_SIZE = 10;

/**
 * int8 (bigint, and every count(*)) comes back from pg as a string, since it can exceed 2^53. Ours
 * are epoch milliseconds, sequence numbers and counts, all far below it, and the shared queries
 * expect numbers as SQLite gives them. Set on this pool's clients only, not on pg's global registry,
 * so another user of pg in the same process keeps its own parsing.
 */
const types: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
    if (oid === pg.types.builtins.INT8 && format !== 'binary') return (value: string) => Number(value);
    return pg.types.getTypeParser(oid, format);
  }) as pg.CustomTypesConfig['getTypeParser'],
};

/** A Kysely over a pool on `url`; its schema not yet migrated. */
export function postgresKysely(url: string, options: PostgresStoreOptions = {}): Kysely<Database> {
  return kyselyOver(postgresPool(url, options), options);
}

function postgresPool(url: string, options: PostgresStoreOptions): pg.Pool {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize ?? DEFAULT_POOL_SIZE,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 10_000,
    application_name: 'lockcloud',
    types,
  });
  // An idle connection the server drops (a restart, a failover) is reported here; without a
  // listener that report would end the process. The pool replaces the connection on the next query.
  pool.on('error', () => {});
  return pool;
}

function kyselyOver(pool: pg.Pool, options: PostgresStoreOptions): Kysely<Database> {
  // A database that cannot be reached fails as BackendUnavailableError: 503, not 500 (unavailable.ts).
  return new Kysely<Database>({
    dialect: new PostgresDialect({
      pool: guardedPool(pool),
      ...(options.storeTraffic === undefined ? {} : { onCreateConnection: options.storeTraffic.counting }),
    }),
    plugins: [new NulTextPlugin()],
  });
}

/**
 * Opens the store on an existing PostgreSQL database and brings its schema to the latest version.
 * Kysely's migrator holds an advisory lock while it migrates, so processes starting together on one
 * database migrate it once.
 */
export async function openPostgresStore(url: string, options: PostgresStoreOptions = {}): Promise<SqlStore> {
  const db = postgresKysely(url, options);
  await migrated(db);
  return new SqlStore(db);
}

async function migrated(db: Kysely<Database>): Promise<void> {
  try {
    await migrateToLatest(db as unknown as Kysely<unknown>);
  } catch (error) {
    await db.destroy();
    throw error;
  }
}

/**
 * As a server opens it: the read cache in front (read-cache.ts), kept exact with every other process
 * on the database by a connection that listens for their commits (commits-elsewhere.ts).
 */
export async function openCachedPostgresStore(
  url: string,
  options: PostgresStoreOptions = {},
): Promise<Store> {
  const { storeTraffic } = options;
  const commits = new CommitsElsewhere({
    url,
    timeoutMs: options.connectTimeoutMs ?? 10_000,
    ...(options.reconnectDelayMs === undefined ? {} : { reconnectDelayMs: options.reconnectDelayMs }),
    ...(storeTraffic === undefined ? {} : { onFence: () => storeTraffic.countFence() }),
  });
  const pool = postgresPool(url, options);
  commits.ownPool(pool);
  const db = kyselyOver(pool, options);
  await migrated(db);
  try {
    await commits.start();
  } catch (error) {
    await db.destroy();
    throw error;
  }
  const closeAll = async (): Promise<void> => {
    await commits.close();
    await db.destroy();
  };
  return withReadCache(new SqlStore(db, closeAll), {
    writesElsewhere: commits.writesElsewhere,
    maxEntries: READ_CACHE_ENTRIES,
  });
}

/** Brings the database at `url` to the latest schema; the names of the migrations applied. */
export async function migratePostgres(url: string, options: PostgresStoreOptions = {}): Promise<string[]> {
  const db = postgresKysely(url, { poolSize: 2, ...options });
  try {
    return await migrateToLatest(db as unknown as Kysely<unknown>);
  } finally {
    await db.destroy();
  }
}
