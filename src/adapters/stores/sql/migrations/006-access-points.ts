import type { Kysely } from 'kysely';

/**
 * The device link: access points registered to accounts (their MQTT secret only as a hash), the
 * access point each lock is paired with, and the credentials and pairing of simulated devices run
 * inside the server (sealed, like webhook secrets: a simulated device must present its secret).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('access_points')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('secret_hash', 'text', (c) => c.notNull())
    // The same secret hashed the way an external broker checks it (Mosquitto's PBKDF2 format).
    .addColumn('broker_hash', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('online', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_seen_at', 'bigint')
    .execute();
  await db.schema.createIndex('access_points_account').on('access_points').column('account_id').execute();
  await db.schema.alterTable('locks').addColumn('ap_id', 'text').execute();
  await db.schema.createIndex('locks_ap').on('locks').column('ap_id').execute();
  await db.schema
    .createTable('sim_access_points')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('sealed_secret', 'text', (c) => c.notNull())
    .execute();
  await db.schema.alterTable('sim_devices').addColumn('ap_id', 'text').execute();
  await db.schema.alterTable('sim_devices').addColumn('serial', 'text').execute();
  await db.schema.alterTable('sim_devices').addColumn('nickname', 'text').execute();
}
