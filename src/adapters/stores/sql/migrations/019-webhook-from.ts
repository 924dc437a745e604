import type { Kysely } from 'kysely';

/**
 * The API Settings webhook reports the lock changes logged after it was set up, never one from
 * before: `from_seq` is the log's position when the account's webhook row was made (kept while
 * it is changed, new when it is removed and set again). The relay reads the log a little behind
 * its head, so without it a change made just before the webhook existed could still reach it, or
 * not, depending on timing. 0 for the webhooks set before this migration: they read from
 * `webhook_relay.webhook_from` (014).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('webhooks')
    .addColumn('from_seq', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
}
