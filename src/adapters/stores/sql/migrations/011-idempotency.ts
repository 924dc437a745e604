import type { Kysely } from 'kysely';

/**
 * Idempotency-Key on v3 commands (issue 21, point 5). One row per account and key, written in the
 * same transaction as the task it names: the primary key is what makes two requests with one key,
 * in one process or in several on one PostgreSQL, make one task, and a key is never stored without
 * its task (nor a task of a key without the key), whatever fails or crashes. The key is kept as its
 * SHA-256 (a bounded, index-friendly column; the client's string is never needed back). Rows are
 * forgotten 24 h after they were made, by the hourly purges.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('idempotency_keys')
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('key_hash', 'text', (c) => c.notNull())
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    .addColumn('task_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('idempotency_keys_pk', ['account_id', 'key_hash'])
    .execute();
  await db.schema
    .createIndex('idempotency_keys_expires_at')
    .on('idempotency_keys')
    .column('expires_at')
    .execute();
}
