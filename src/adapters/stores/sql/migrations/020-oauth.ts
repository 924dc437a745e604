import { type Kysely, sql } from 'kysely';

/**
 * Third-party apps and OAuth 2.0 (issue 24, docs/oauth.md).
 *
 * - `oauth_apps`: the apps accounts register. The secret of a confidential app is kept as its hash
 *   only (shown once); a public app has none.
 * - `oauth_consents`: an owner's authorization of an app, one per account and app, with the scopes
 *   and locks picked. `grant_id` ties it to oidc-provider's grant, whose tokens die with it.
 * - `oauth_records`: what oidc-provider stores (codes, tokens, grants, sessions, interactions), one
 *   table for every model. A record is found by the SHA-256 of its id, never by the id: the id of a
 *   code or a token is the secret itself. The columns beside the payload are what is looked up or
 *   revoked by (a grant's records, a session's uid) and what a bearer token needs per request
 *   (its account, app, scope and expiry) without reading the JSON.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('oauth_apps')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    // JSON list, matched exactly.
    .addColumn('redirect_uris', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('secret_hash', 'text')
    .addColumn('secret_prefix', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addCheckConstraint('oauth_apps_kind', sql`kind IN ('confidential', 'public')`)
    .addCheckConstraint(
      'oauth_apps_secret',
      sql`(kind = 'public' AND secret_hash IS NULL) OR (kind = 'confidential' AND secret_hash IS NOT NULL)`,
    )
    .execute();
  await db.schema.createIndex('oauth_apps_account').on('oauth_apps').column('account_id').execute();

  await db.schema
    .createTable('oauth_consents')
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('app_id', 'text', (c) => c.notNull().references('oauth_apps.id').onDelete('cascade'))
    // JSON lists; lock_ids null: every lock of the account.
    .addColumn('scopes', 'text', (c) => c.notNull())
    .addColumn('lock_ids', 'text')
    .addColumn('grant_id', 'text', (c) => c.notNull().unique())
    .addColumn('granted_at', 'bigint', (c) => c.notNull())
    .addColumn('last_used_at', 'bigint')
    .addPrimaryKeyConstraint('oauth_consents_pk', ['account_id', 'app_id'])
    .execute();
  await db.schema.createIndex('oauth_consents_app').on('oauth_consents').column('app_id').execute();

  await db.schema
    .createTable('oauth_records')
    .addColumn('model', 'text', (c) => c.notNull())
    .addColumn('id_hash', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('grant_id', 'text')
    .addColumn('uid', 'text')
    .addColumn('account_id', 'text')
    .addColumn('client_id', 'text')
    .addColumn('scope', 'text')
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('consumed_at', 'bigint')
    .addPrimaryKeyConstraint('oauth_records_pk', ['id_hash', 'model'])
    .execute();
  await db.schema.createIndex('oauth_records_grant').on('oauth_records').column('grant_id').execute();
  await db.schema.createIndex('oauth_records_uid').on('oauth_records').columns(['uid', 'model']).execute();
  await db.schema.createIndex('oauth_records_expiry').on('oauth_records').column('expires_at').execute();
}
