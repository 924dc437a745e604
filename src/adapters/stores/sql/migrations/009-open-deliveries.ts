import { type Kysely, sql } from 'kysely';

/**
 * The outbox's order rule ("a lock's message waits while an earlier one is pending or out") asks,
 * for every due message, whether its lock has an earlier open one. Through the account index that
 * walked the account's whole delivery log (up to 500 rows) per message, most of a busy server's CPU
 * at a few hundred changes a second. Open messages are few: this index holds only them, by lock.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('webhook_deliveries_open')
    .on('webhook_deliveries')
    .columns(['account_id', 'device_id', 'seq'])
    .where(sql.ref('status'), 'in', sql`('pending', 'sending')`)
    .execute();
}
