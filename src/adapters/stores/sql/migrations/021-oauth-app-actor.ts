import type { Kysely } from 'kysely';

/**
 * A third-party app's change, made with an OAuth access token for a user, is an event with the app
 * as actor: the event names the app (its client id) and its name as it was when it acted, next to
 * the user's account; a later rename does not rewrite the log. Null for every other actor, and for
 * older rows. (020 is the OAuth tables.)
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('events').addColumn('actor_app_id', 'text').execute();
  await db.schema.alterTable('events').addColumn('actor_app_name', 'text').execute();
}
