import type { Kysely } from 'kysely';

/**
 * The event log (issue 21, docs/events.md). An event is written in the transaction of its change.
 * Ids sort by time, so the primary key is also the log's order and the retention purge's range.
 * Reads go by lock (`device_id, id`: one lock's latest events, whatever the log's size) or by the
 * account whose log it is (`account_id, id`). A task remembers where its command came from, so the
 * movement it causes and its end are attributed to the key, token, partner or session that sent it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('occurred_at', 'bigint', (c) => c.notNull())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('device_id', 'text')
    .addColumn('actor_kind', 'text', (c) => c.notNull())
    .addColumn('actor_account_id', 'text')
    .addColumn('actor_key_prefix', 'text')
    .addColumn('method', 'text')
    .addColumn('task_id', 'text')
    .addColumn('data', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('events_device').on('events').columns(['device_id', 'id']).execute();
  await db.schema.createIndex('events_account').on('events').columns(['account_id', 'id']).execute();
  await db.schema.alterTable('tasks').addColumn('origin_actor', 'text').execute();
  await db.schema.alterTable('tasks').addColumn('origin_method', 'text').execute();
}
