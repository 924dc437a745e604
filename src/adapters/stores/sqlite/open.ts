import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Kysely } from 'kysely';
import type { Store } from '../../../app/ports.ts';
import { withReadCache } from '../read-cache.ts';
import { migrateToLatest } from '../sql/migrate.ts';
import { SqlStore } from '../sql/store.ts';
import type { StoreTraffic } from '../sql/store-traffic.ts';
import type { Database } from '../sql/tables.ts';
import { BetterSqlite3, type SqliteConnection, type SqliteStatement } from './better-sqlite3.ts';
import { SERVER_AUTOCHECKPOINT_PAGES, WalCheckpointer } from './checkpointer.ts';
import { GroupCommitSqliteDialect } from './group-commit.ts';
import { walChangeCheck } from './wal-change-hint.ts';

const STATEMENT_CACHE_SIZE = 256;

/**
 * Kysely prepares every query anew; preparing is most of the cost of a point read on SQLite, and our
 * queries are a small fixed set, so prepared statements are kept by their SQL text.
 */
function statementCache(db: SqliteConnection): (sql: string) => SqliteStatement {
  const cache = new Map<string, SqliteStatement>();
  return (sql) => {
    let statement = cache.get(sql);
    if (!statement) {
      statement = db.prepare(sql);
      if (cache.size >= STATEMENT_CACHE_SIZE) cache.clear();
      cache.set(sql, statement);
    }
    return statement;
  };
}

export const SQLITE_FILE_NAME = 'lockcloud.sqlite';

/**
 * Opens (creating if needed) the embedded store in `dataDir`. WAL with synchronous=NORMAL: a write is
 * in the WAL file before the call returns, so it survives the process being killed (kill -9); only an
 * operating-system crash or power loss can take the last transactions.
 */
export async function openSqliteStore(dataDir: string, storeTraffic?: StoreTraffic): Promise<SqlStore> {
  const { db } = sqliteKysely(dataDir, storeTraffic);
  await migratedOrClosed(db);
  return new SqlStore(db);
}

/**
 * Migrates; on failure closes the file before throwing: an open connection would keep the WAL and
 * shared-memory files (`-wal`, `-shm`) beside it after the failed start.
 */
async function migratedOrClosed(db: Kysely<Database>): Promise<void> {
  try {
    await migrateToLatest(db as unknown as Kysely<unknown>);
  } catch (error) {
    await db.destroy();
    throw error;
  }
}

// Credentials, locks and tasks kept in memory: 100,000 of each is a few tens of MB at most.
const READ_CACHE_ENTRIES = 100_000;

/**
 * The store a server runs on: the SQLite store with the read cache in front (read-cache.ts). The
 * file is the server's own, so the only other writers are short-lived processes beside it (the admin
 * CLI); `PRAGMA data_version` changes when one of them commits, and the cache drops everything then.
 * It is asked only when the WAL-index header moved (wal-change-hint.ts), which is rare on reads.
 */
export async function openCachedSqliteStore(
  dataDir: string,
  /** Told when a checkpoint in the background fails (the server's own checkpoints go on). */
  onCheckpointError: (error: Error) => void = () => {},
  storeTraffic?: StoreTraffic,
): Promise<Store> {
  const { db, raw } = sqliteKysely(dataDir, storeTraffic);
  await migratedOrClosed(db);
  // The WAL is copied back by a worker thread (checkpointer.ts); the server's commits do it only
  // past a bound ten times SQLite's default.
  raw.pragma(`wal_autocheckpoint = ${SERVER_AUTOCHECKPOINT_PAGES}`);
  let checkpointer: WalCheckpointer;
  try {
    checkpointer = await WalCheckpointer.start(join(dataDir, SQLITE_FILE_NAME), onCheckpointError);
  } catch (error) {
    await db.destroy();
    throw error;
  }
  // Prepared once; asked only when the WAL-index header says a commit may have happened.
  const dataVersion = raw.prepare('PRAGMA data_version').pluck();
  const commits = walChangeCheck(join(dataDir, SQLITE_FILE_NAME), () => dataVersion.get() as number);
  const closeAll = async (): Promise<void> => {
    commits.close();
    await checkpointer.close();
    await db.destroy();
  };
  return withReadCache(new SqlStore(db, closeAll), {
    writesElsewhere: commits.dataVersion,
    maxEntries: READ_CACHE_ENTRIES,
  });
}

/** Brings the file in `dataDir` (made if missing) to the latest schema; the migrations applied. */
export async function migrateSqlite(dataDir: string): Promise<string[]> {
  const { db } = sqliteKysely(dataDir);
  try {
    return await migrateToLatest(db as unknown as Kysely<unknown>);
  } finally {
    await db.destroy();
  }
}

function sqliteKysely(
  dataDir: string,
  storeTraffic?: StoreTraffic,
): { db: Kysely<Database>; raw: SqliteConnection } {
  mkdirSync(dataDir, { recursive: true });
  const raw = new BetterSqlite3(join(dataDir, SQLITE_FILE_NAME));
  try {
    // The first statement is where a file that is not a database fails.
    raw.pragma('journal_mode = WAL');
    raw.pragma('synchronous = NORMAL');
    raw.pragma('foreign_keys = ON');
    raw.pragma('busy_timeout = 5000');
  } catch (error) {
    raw.close();
    throw error;
  }
  // Transactions that finish in the same turn of the event loop share one COMMIT (group-commit.ts).
  const dialect = new GroupCommitSqliteDialect({
    connection: raw,
    prepare: statementCache(raw),
    ...(storeTraffic === undefined ? {} : { traffic: storeTraffic }),
  });
  const db = new Kysely<Database>({ dialect });
  return { db, raw };
}
