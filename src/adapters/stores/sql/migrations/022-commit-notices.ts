import { type Kysely, PostgresAdapter, sql } from 'kysely';

/**
 * The tables a server's read cache holds rows of (adapters/stores/read-cache.ts). On PostgreSQL
 * every committed change to one of them is announced, so each server's cache can drop what another
 * process changed before its next request (postgres/commits-elsewhere.ts).
 */
export const CACHED_TABLES = [
  'accounts',
  'api_keys',
  'login_tokens',
  'locks',
  'grants',
  'tasks',
  'oauth_apps',
  'oauth_consents',
  'oauth_records',
] as const;

/** The channel the announcements go to; its payload is empty: which rows changed is not needed. */
export const COMMIT_CHANNEL = 'lockcloud_commits';

/**
 * A statement trigger, not a row trigger: one call per statement whatever it touched, and
 * PostgreSQL folds a transaction's identical notifications into one, sent at its commit (none when
 * it rolls back). TRUNCATE is included (the tests' and an operator's). SQLite needs none: there a
 * server reads the file's change counter (PRAGMA data_version) instead.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await sql`CREATE FUNCTION lockcloud_commit_notice() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM pg_notify(${sql.lit(COMMIT_CHANNEL)}, '');
      RETURN NULL;
    END $$`.execute(db);
  for (const table of CACHED_TABLES)
    await sql`CREATE TRIGGER ${sql.id(`${table}_commit_notice`)}
      AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON ${sql.table(table)}
      FOR EACH STATEMENT EXECUTE FUNCTION lockcloud_commit_notice()`.execute(db);
}
