/**
 * Part of the composition root: which store backend the configuration names. Kept apart from
 * main.ts so the admin CLI opens the store without loading the HTTP stack.
 */
import {
  migratePostgres,
  openCachedPostgresStore,
  openPostgresStore,
} from './adapters/stores/postgres/open.ts';
import type { StoreTraffic } from './adapters/stores/sql/store-traffic.ts';
import { migrateSqlite, openCachedSqliteStore, openSqliteStore } from './adapters/stores/sqlite/open.ts';
import type { Store } from './app/ports.ts';
import type { Config } from './config/config.ts';

export type StoreConfig = Pick<Config, 'dataDir' | 'databaseUrl' | 'databasePoolSize'> &
  Partial<Pick<Config, 'databaseReadCache'>>;

/**
 * PostgreSQL when DATABASE_URL names one, else the embedded SQLite file in the data directory. A
 * server asks for `readCache`: credentials, locks and tasks are then read from memory while no other
 * process has written (adapters/stores/read-cache.ts). On PostgreSQL the configuration can turn it
 * off (`databaseReadCache`: a pooler that cannot LISTEN).
 */
export function openStore(
  config: StoreConfig,
  options: {
    readCache?: boolean;
    onCheckpointError?: (error: Error) => void;
    /** Counts the statements the store sends (metrics); none: not counted. */
    storeTraffic?: StoreTraffic;
  } = {},
): Promise<Store> {
  const { storeTraffic } = options;
  if (config.databaseUrl !== undefined) {
    const open =
      options.readCache === true && config.databaseReadCache !== false
        ? openCachedPostgresStore
        : openPostgresStore;
    return open(config.databaseUrl, {
      poolSize: config.databasePoolSize,
      ...(storeTraffic === undefined ? {} : { storeTraffic }),
    });
  }
  return options.readCache === true
    ? openCachedSqliteStore(config.dataDir, options.onCheckpointError, storeTraffic)
    : openSqliteStore(config.dataDir, storeTraffic);
}

/** Brings the configured store's schema to the latest version; the names of the migrations applied. */
export function migrateStore(config: StoreConfig): Promise<string[]> {
  if (config.databaseUrl !== undefined) return migratePostgres(config.databaseUrl);
  return migrateSqlite(config.dataDir);
}

/** Where the configured store is, for messages: never a password. */
export function describeStore(config: StoreConfig): string {
  if (config.databaseUrl === undefined) return `SQLite in ${config.dataDir}`;
  try {
    const url = new URL(config.databaseUrl);
    return `PostgreSQL ${url.host}${url.pathname}`;
  } catch {
    return 'PostgreSQL';
  }
}
