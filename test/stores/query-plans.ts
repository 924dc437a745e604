/**
 * SQLite's plans for the store's own SQL, as it runs: a store on a fresh migrated file logs each
 * statement a call makes, and each is explained on the same file. What the index tests of
 * sqlite.test.ts read, so a query that stops using its index fails there.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CompiledQuery, Kysely, type LogEvent, SqliteDialect } from 'kysely';
import { SqlStore } from '../../src/adapters/stores/sql/store.ts';
import type { Database } from '../../src/adapters/stores/sql/tables.ts';
import { BetterSqlite3, type SqliteConnection } from '../../src/adapters/stores/sqlite/better-sqlite3.ts';
import { openSqliteStore, SQLITE_FILE_NAME } from '../../src/adapters/stores/sqlite/open.ts';

export interface QueryPlans {
  /** One per statement the call ran, in order: the plan's rows' details joined by ' | '. */
  readonly plans: string[];
  /** Whatever `read` answered of the file's schema after the call. */
  readonly schema: unknown;
  /** The statements themselves, in the same order. */
  readonly statements: readonly CompiledQuery[];
}

/**
 * Runs `call` on a store over a fresh file and answers the plans of the statements it ran; `read`
 * may look at the file (sqlite_master) before it is closed and removed.
 */
export async function queryPlans(
  call: (store: SqlStore) => Promise<unknown>,
  read: (raw: SqliteConnection) => unknown = () => undefined,
): Promise<QueryPlans> {
  const dir = mkdtempSync(join(tmpdir(), 'lockcloud-store-'));
  try {
    await (await openSqliteStore(dir)).close();
    const raw = new BetterSqlite3(join(dir, SQLITE_FILE_NAME));
    const queries: CompiledQuery[] = [];
    const db = new Kysely<Database>({
      dialect: new SqliteDialect({ database: raw }),
      log: (event: LogEvent) => {
        queries.push(event.query);
      },
    });
    try {
      await call(new SqlStore(db, async () => undefined));
      const plans = queries.map((query) =>
        (
          raw.prepare(`EXPLAIN QUERY PLAN ${query.sql}`).all(...(query.parameters as unknown[])) as {
            detail: string;
          }[]
        )
          .map((row) => row.detail)
          .join(' | '),
      );
      return { plans, schema: read(raw), statements: queries };
    } finally {
      await db.destroy();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
