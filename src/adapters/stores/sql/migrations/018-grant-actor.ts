import type { Kysely } from 'kysely';

/**
 * A guest's use of a lock is an event with the grant as actor (issue 23): the event names the grant
 * it went through, next to the guest's account. Null for every other actor, and for older rows.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('events').addColumn('actor_grant_id', 'text').execute();
}
