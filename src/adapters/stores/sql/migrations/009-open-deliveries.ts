import { type Kysely, sql } from 'kysely';

/**
 * The outbox's order rule ("a lock's message waits while an earlier one is pending or out") asks,
 * for every due message, whether its lock has an earlier open one. Through the account index that
 * walked the account's whole delivery log (up to 500 rows) per message, most of a busy server's CPU
 * at a few hundred changes a second. Open messages are few: this index holds only them, by lock.
 * The second walks the pending messages in their order, so the outbox stops at the first few that
 * may leave instead of sorting the whole backlog on every pass; it replaces the index by due time,
 * which the planner preferred and which made every pass read and sort the whole backlog.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('webhook_deliveries_open')
    .on('webhook_deliveries')
    .columns(['account_id', 'device_id', 'seq'])
    .where(sql.ref('status'), 'in', sql`('pending', 'sending')`)
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_pending')
    .on('webhook_deliveries')
    .column('seq')
    .where(sql.ref('status'), '=', sql`'pending'`)
    .execute();
  await db.schema.dropIndex('webhook_deliveries_due').execute();
}
