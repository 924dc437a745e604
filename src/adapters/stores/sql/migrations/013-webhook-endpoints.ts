import { type Kysely, sql } from 'kysely';

/**
 * Webhook endpoints (issue 21, point 4), fed by the event log. An endpoint's messages go through
 * the webhook outbox (004), so claims across processes, the retry schedule, the address policy,
 * per-lock order and the fair shares apply as they do to the API Settings webhook: a message names
 * its endpoint (`endpoint_id`, '' for the API Settings webhook) and the event it carries. The order
 * rule compares the endpoint too, so one endpoint's retries never hold back another's or the
 * webhook's. `relay_key` (endpoint and event) is unique: the relay cannot write one event to one
 * endpoint twice; resends have none.
 *
 * `webhook_relay` is one row: the last log position turned into messages, and the last `seq` given
 * to a relayed message (the row is locked by the relaying transaction, so positions and seqs
 * increase across processes). Like `event_sequence`, not a data table: a sandbox reset keeps it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('webhook_endpoints')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('url', 'text', (c) => c.notNull())
    // JSON arrays of strings.
    .addColumn('types', 'text', (c) => c.notNull())
    .addColumn('device_ids', 'text', (c) => c.notNull())
    .addColumn('retries', 'integer', (c) => c.notNull())
    .addColumn('secret', 'text', (c) => c.notNull())
    .addColumn('previous_secret', 'text')
    .addColumn('previous_until', 'bigint')
    .addColumn('enabled', 'integer', (c) => c.notNull())
    .addColumn('disabled_at', 'bigint')
    .addColumn('disabled_reason', 'text')
    .addColumn('failing_since', 'bigint')
    .addColumn('from_seq', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('webhook_endpoints_account')
    .on('webhook_endpoints')
    .columns(['account_id', 'created_at'])
    .execute();

  await db.schema
    .alterTable('webhook_deliveries')
    .addColumn('endpoint_id', 'text', (c) => c.notNull().defaultTo(''))
    .execute();
  await db.schema.alterTable('webhook_deliveries').addColumn('event_id', 'text').execute();
  await db.schema.alterTable('webhook_deliveries').addColumn('relay_key', 'text').execute();
  await db.schema
    .createIndex('webhook_deliveries_relay_key')
    .unique()
    .on('webhook_deliveries')
    .column('relay_key')
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_endpoint')
    .on('webhook_deliveries')
    .columns(['endpoint_id', 'seq'])
    .execute();

  await db.schema
    .createTable('webhook_relay')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('position', 'bigint', (c) => c.notNull())
    .addColumn('last_seq', 'bigint', (c) => c.notNull())
    .execute();
  // Endpoints start with the log as it is now: nothing before them is relayed.
  await sql`INSERT INTO webhook_relay (name, position, last_seq)
    SELECT 'endpoints', coalesce(max(value), 0), 0 FROM event_sequence`.execute(db);
}
