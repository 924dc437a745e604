import type { Kysely } from 'kysely';

/**
 * Several server processes on one database (issue 8). A lock's status is written by compare-and-set
 * on `status_version`, so two processes applying reports of the same lock cannot both announce one
 * change; the device report last applied is remembered by its access point, epoch and sequence number,
 * so a late report handled by another process cannot overwrite a newer one. A webhook delivery
 * records when it was claimed, so a process can tell a delivery cut short by a dead process (claimed
 * long ago) from one another process is sending now.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('locks')
    .addColumn('status_version', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('locks').addColumn('report_ap', 'text').execute();
  await db.schema.alterTable('locks').addColumn('report_epoch', 'text').execute();
  await db.schema.alterTable('locks').addColumn('report_seq', 'bigint').execute();
  await db.schema.alterTable('webhook_deliveries').addColumn('claimed_at', 'bigint').execute();
}
