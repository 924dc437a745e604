import { type Kysely, sql } from 'kysely';

/**
 * A delivery log is one account's messages to one receiver (the API Settings webhook, endpoint_id
 * '', or one endpoint), but no index began with both: the bound on the log (`trim`: the 500th
 * newest) and the backlog count took the index by endpoint, and for the webhook's '' that index
 * holds every account's messages, so each walked all accounts' logs (measured: 190 to 270 µs a
 * statement at 500 changes a second, a third of the webhook path's SQLite time). The log's index
 * now starts with the account and the receiver; the open messages' index (009) gains the receiver
 * too, so counting a backlog reads that receiver's open messages only, and the outbox's per-lock
 * order check finds a lock's earlier message with every column of its condition in the index.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('webhook_deliveries_log')
    .on('webhook_deliveries')
    .columns(['account_id', 'endpoint_id', 'seq'])
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_open_by_receiver')
    .on('webhook_deliveries')
    .columns(['account_id', 'endpoint_id', 'device_id', 'seq'])
    .where(sql.ref('status'), 'in', sql`('pending', 'sending')`)
    .execute();
  await db.schema.dropIndex('webhook_deliveries_open').execute();
}
