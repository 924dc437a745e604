import { type Kysely, sql } from 'kysely';

/**
 * Device health (issue 22, docs/device-protocol.md version 2): what a lock reports of itself beyond
 * locked and battery (jammed, the door, its firmware), when it was last heard from, the owner's
 * settings (auto-lock, battery thresholds), and the bookkeeping behind the battery and offline
 * events (the battery state for the hysteresis, since when it is unresponsive and whether that was
 * announced, the battery's trend and the reading it is measured from). An access point keeps what its status said: firmware, signal, the version both speak.
 *
 * Existing locks get the defaults; their battery state follows their level, and those unresponsive
 * now count as announced offline: the old rule wrote `lock.offline` at once, so their return is a
 * `lock.online`.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const lockColumns: [string, 'integer' | 'text' | 'bigint', string | number | null][] = [
    ['jammed', 'integer', 0],
    ['door', 'text', null],
    ['firmware', 'text', null],
    ['last_seen_at', 'bigint', null],
    ['auto_lock_seconds', 'integer', 0],
    ['battery_low', 'integer', 20],
    ['battery_critical', 'integer', 10],
    ['battery_state', 'text', 'ok'],
    ['offline_since', 'bigint', null],
    ['offline_announced', 'integer', 0],
    // The battery's trend (tenths of a point per day) and the reading it is measured from.
    ['battery_per_day_tenths', 'integer', null],
    ['battery_ref_level', 'integer', null],
    ['battery_ref_at', 'bigint', null],
  ];
  // One column per statement: SQLite adds one at a time.
  for (const [name, type, fallback] of lockColumns) {
    await db.schema
      .alterTable('locks')
      .addColumn(name, type, (c) => (fallback === null ? c : c.notNull().defaultTo(fallback)))
      .execute();
  }
  await sql`UPDATE locks SET battery_state = CASE WHEN battery < 10 THEN 'critical' WHEN battery < 20 THEN 'low' ELSE 'ok' END, offline_announced = CASE WHEN responsive = 0 THEN 1 ELSE 0 END`.execute(
    db,
  );
  // The debounce sweeper looks for unresponsive locks whose offline is not announced yet. Partial:
  // every status write sets these columns, and an index holding every lock cost each of those
  // writes about half as much again (SQLite rewrites an index whose columns an UPDATE sets); this
  // one holds only the locks in an unannounced outage, so a write to any other touches nothing.
  await db.schema
    .createIndex('locks_offline_due')
    .on('locks')
    .column('offline_since')
    .where(sql.ref('offline_announced'), '=', 0)
    .where(sql.ref('offline_since'), 'is not', null)
    .execute();
  await db.schema.alterTable('access_points').addColumn('firmware', 'text').execute();
  await db.schema.alterTable('access_points').addColumn('signal', 'integer').execute();
  await db.schema
    .alterTable('access_points')
    .addColumn('protocol_version', 'integer', (c) => c.notNull().defaultTo(1))
    .execute();
}
