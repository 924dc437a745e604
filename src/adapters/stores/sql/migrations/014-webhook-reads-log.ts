import { type Kysely, sql } from 'kysely';

/**
 * The API Settings webhook becomes a reader of the event log (issue 21, point 1: one source of
 * truth). Until now each process wrote a webhook message for each lock change it stored, after the
 * change's commit, so a crash between the two lost the message; from now on the relay that feeds
 * the webhook endpoints (013) also writes the webhook's messages, from the log's `lock.locked` and
 * `lock.unlocked` events, in the transaction that moves its position.
 *
 * `webhook_from` is the log's position when this migration ran: the changes up to it had their
 * messages written the old way already, so the relay makes none for them (never a message twice).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('webhook_relay')
    .addColumn('webhook_from', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
  await sql`UPDATE webhook_relay SET webhook_from = (SELECT coalesce(max(value), 0) FROM event_sequence)`.execute(
    db,
  );
}
