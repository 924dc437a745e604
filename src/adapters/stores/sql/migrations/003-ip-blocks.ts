import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('ip_blocks')
    .addColumn('ip', 'text', (c) => c.primaryKey())
    .addColumn('blocked_at', 'bigint', (c) => c.notNull())
    .addColumn('until', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('ip_blocks_until').on('ip_blocks').column('until').execute();
}
