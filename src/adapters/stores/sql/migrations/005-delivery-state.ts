import type { Kysely } from 'kysely';

/**
 * The state each webhook message reports, so a resend tells the same state: a GET message carries it
 * only in its URL, and only where the template put {state}. Rows from before have none (null).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('webhook_deliveries').addColumn('locked', 'integer').execute();
}
