import { type Kysely, sql } from 'kysely';

/**
 * The event log's commit order (issue 21, points 3 and 4: the live stream and the webhook
 * endpoints read the log as it grows). Event ids sort by the time they were made, which on
 * PostgreSQL with several processes is not the order their transactions commit in: a reader that
 * remembered "the last id I saw" could skip an event committed a moment later with an earlier id.
 *
 * So every event also gets `seq`, a position taken from the one-row counter `event_sequence` by
 * the transaction that writes it, as its last statement. The counter's row stays locked until that
 * transaction ends, so positions are handed out in commit order: once a reader sees position N,
 * every position below N is committed or was rolled back (a gap, never filled later). SQLite
 * serialises writers anyway. The counter is not a data table: a sandbox reset never moves it back.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('event_sequence')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('value', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.alterTable('events').addColumn('seq', 'bigint').execute();
  // Events written before this migration take positions in id order (one process wrote them, or
  // their order across processes is lost already).
  await sql`UPDATE events SET seq = ranked.n
    FROM (SELECT id, row_number() OVER (ORDER BY id) AS n FROM events) AS ranked
    WHERE events.id = ranked.id`.execute(db);
  await sql`INSERT INTO event_sequence (name, value)
    SELECT 'events', coalesce(max(seq), 0) FROM events`.execute(db);
  await db.schema.createIndex('events_seq').unique().on('events').column('seq').execute();
}
