/**
 * Part of the composition root: which store backend the configuration names. Kept apart from
 * main.ts so the admin CLI opens the store without loading the HTTP stack.
 */
import { openSqliteStore } from './adapters/stores/sqlite/open.ts';
import type { Store } from './app/ports.ts';
import type { Config } from './config/config.ts';

/** Today the embedded SQLite file; PostgreSQL joins here. */
export function openStore(config: Pick<Config, 'dataDir'>): Promise<Store> {
  return openSqliteStore(config.dataDir);
}
