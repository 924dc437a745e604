import { type Kysely, sql } from 'kysely';

/**
 * The simulated locks play device protocol 2's health (issue 22): a jam, a door sensor, firmware and
 * the auto-lock delay the cloud set, kept so a restart finds them as they were. Existing simulated
 * locks get a closed door sensor, no jam, the simulator's firmware and auto-lock off.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const columns: [string, 'integer' | 'text', string | number | null][] = [
    ['jammed', 'integer', 0],
    ['door', 'text', null],
    ['firmware', 'text', 'lockcloud-sim-lock/2'],
    ['auto_lock_seconds', 'integer', 0],
  ];
  // One column per statement: SQLite adds one at a time.
  for (const [name, type, fallback] of columns) {
    await db.schema
      .alterTable('sim_devices')
      .addColumn(name, type, (c) => (fallback === null ? c : c.notNull().defaultTo(fallback)))
      .execute();
  }
  // Existing simulated locks had no sensor to speak of; they get a closed door, as a new one does.
  await sql`UPDATE sim_devices SET door = 'closed'`.execute(db);
}
