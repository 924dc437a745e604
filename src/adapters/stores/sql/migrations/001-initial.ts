import { type Kysely, sql } from 'kysely';

// Migrations take Kysely<unknown>: they must not depend on today's table types.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('accounts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('email', 'text', (c) => c.notNull().unique())
    .addColumn('password_hash', 'text')
    .addColumn('verified', 'integer', (c) => c.notNull())
    .addColumn('deleted_at', 'bigint')
    .addColumn('password_changed_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('key_hash', 'text', (c) => c.notNull().unique())
    .addColumn('prefix', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('last_used_at', 'bigint')
    .execute();
  await db.schema.createIndex('api_keys_account').on('api_keys').column('account_id').execute();

  await db.schema
    .createTable('locks')
    .addColumn('device_id', 'text', (c) => c.primaryKey())
    .addColumn('serial', 'text', (c) => c.notNull())
    .addColumn('nickname', 'text', (c) => c.notNull())
    .addColumn('owner_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('locked', 'integer', (c) => c.notNull())
    .addColumn('battery', 'integer', (c) => c.notNull())
    .addColumn('responsive', 'integer', (c) => c.notNull())
    .addColumn('integration', 'integer', (c) => c.notNull())
    .addColumn('access_point', 'integer', (c) => c.notNull())
    .addColumn('app_open', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('locks_owner').on('locks').columns(['owner_id', 'created_at']).execute();

  await db.schema
    .createTable('lock_shares')
    .addColumn('device_id', 'text', (c) => c.notNull().references('locks.device_id').onDelete('cascade'))
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addPrimaryKeyConstraint('lock_shares_pk', ['device_id', 'account_id'])
    .execute();
  await db.schema.createIndex('lock_shares_account').on('lock_shares').column('account_id').execute();

  await db.schema
    .createTable('tasks')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('device_id', 'text', (c) => c.notNull())
    .addColumn('command', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('successful', 'integer')
    .addColumn('error', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('deadline', 'bigint', (c) => c.notNull())
    .addColumn('ended_at', 'bigint')
    .execute();
  // One processing task per lock, enforced by the database so it holds across processes.
  await db.schema
    .createIndex('tasks_one_processing_per_lock')
    .on('tasks')
    .column('device_id')
    .unique()
    .where(sql.ref('status'), '=', 'processing')
    .execute();
  await db.schema.createIndex('tasks_status_deadline').on('tasks').columns(['status', 'deadline']).execute();
  await db.schema.createIndex('tasks_ended_at').on('tasks').column('ended_at').execute();

  await db.schema
    .createTable('webhooks')
    .addColumn('account_id', 'text', (c) => c.primaryKey().references('accounts.id').onDelete('cascade'))
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('method', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('sim_devices')
    .addColumn('device_id', 'text', (c) => c.primaryKey())
    .addColumn('locked', 'integer', (c) => c.notNull())
    .addColumn('battery', 'integer', (c) => c.notNull())
    .addColumn('responsive', 'integer', (c) => c.notNull())
    .addColumn('access_point', 'integer', (c) => c.notNull())
    .addColumn('app_open', 'integer', (c) => c.notNull())
    .addColumn('latency_ms', 'integer', (c) => c.notNull())
    .addColumn('fail_next', 'text')
    .execute();

  await db.schema
    .createTable('meta')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .execute();
}
