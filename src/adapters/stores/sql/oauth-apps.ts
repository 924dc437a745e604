import type { Kysely, Selectable } from 'kysely';
import type { NewOAuthApp, OAuthAppStore } from '../../../app/ports.ts';
import type { LockEvent } from '../../../domain/event.ts';
import type { AppKind, OAuthApp, OAuthConsent } from '../../../domain/oauth-app.ts';
import type { Scope } from '../../../domain/scope.ts';
import { insertEvents, withEvents } from './events.ts';
import type { Database, OAuthAppsTable, OAuthConsentsTable } from './tables.ts';

const APP_COLUMNS = [
  'id',
  'account_id',
  'name',
  'redirect_uris',
  'kind',
  'secret_prefix',
  'created_at',
  'updated_at',
] as const;

type AppRow = Pick<Selectable<OAuthAppsTable>, (typeof APP_COLUMNS)[number]>;

function toApp(row: AppRow): OAuthApp {
  return {
    id: row.id,
    accountId: row.account_id,
    name: row.name,
    redirectUris: JSON.parse(row.redirect_uris) as string[],
    kind: row.kind as AppKind,
    secretPrefix: row.secret_prefix,
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
}

function toConsent(row: Selectable<OAuthConsentsTable>): OAuthConsent {
  return {
    accountId: row.account_id,
    appId: row.app_id,
    scopes: JSON.parse(row.scopes) as Scope[],
    lockIds: row.lock_ids === null ? null : (JSON.parse(row.lock_ids) as string[]),
    grantId: row.grant_id,
    grantedAt: Number(row.granted_at),
    lastUsedAt: row.last_used_at === null ? null : Number(row.last_used_at),
  };
}

/** Registered apps and owners' consents to them (issue 24). */
export class SqlOAuthAppStore implements OAuthAppStore {
  constructor(private readonly db: Kysely<Database>) {}

  async insert(app: NewOAuthApp): Promise<void> {
    await this.db
      .insertInto('oauth_apps')
      .values({
        id: app.id,
        account_id: app.accountId,
        name: app.name,
        redirect_uris: JSON.stringify(app.redirectUris),
        kind: app.kind,
        secret_hash: app.secretHash,
        secret_prefix: app.secretPrefix,
        created_at: app.createdAt,
        updated_at: app.updatedAt,
      })
      .execute();
  }

  async find(id: string): Promise<OAuthApp | undefined> {
    const row = await this.db
      .selectFrom('oauth_apps')
      .select(APP_COLUMNS)
      .where('id', '=', id)
      .executeTakeFirst();
    return row && toApp(row);
  }

  async secretHash(id: string): Promise<string | undefined> {
    const row = await this.db
      .selectFrom('oauth_apps')
      .select('secret_hash')
      .where('id', '=', id)
      .executeTakeFirst();
    return row?.secret_hash ?? undefined;
  }

  async listForAccount(accountId: string): Promise<OAuthApp[]> {
    const rows = await this.db
      .selectFrom('oauth_apps')
      .select(APP_COLUMNS)
      .where('account_id', '=', accountId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map(toApp);
  }

  async update(
    accountId: string,
    id: string,
    patch: Pick<OAuthApp, 'name' | 'redirectUris' | 'updatedAt'>,
  ): Promise<boolean> {
    const result = await this.db
      .updateTable('oauth_apps')
      .set({
        name: patch.name,
        redirect_uris: JSON.stringify(patch.redirectUris),
        updated_at: patch.updatedAt,
      })
      .where('id', '=', id)
      .where('account_id', '=', accountId)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async replaceSecret(
    accountId: string,
    id: string,
    secretHash: string,
    secretPrefix: string,
    at: number,
  ): Promise<boolean> {
    const result = await this.db
      .updateTable('oauth_apps')
      .set({ secret_hash: secretHash, secret_prefix: secretPrefix, updated_at: at })
      .where('id', '=', id)
      .where('account_id', '=', accountId)
      .where('kind', '=', 'confidential')
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async delete(accountId: string, id: string, events: readonly LockEvent[] = []): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      // Consents first: SQLite may run without foreign keys enforced on an old file.
      await trx
        .deleteFrom('oauth_consents')
        .where('app_id', 'in', (eb) =>
          eb.selectFrom('oauth_apps').select('id').where('id', '=', id).where('account_id', '=', accountId),
        )
        .execute();
      const result = await trx
        .deleteFrom('oauth_apps')
        .where('id', '=', id)
        .where('account_id', '=', accountId)
        .executeTakeFirst();
      const deleted = Number(result.numDeletedRows) > 0;
      if (deleted) await insertEvents(trx, events);
      return deleted;
    });
  }

  async findConsent(accountId: string, appId: string): Promise<OAuthConsent | undefined> {
    const row = await this.db
      .selectFrom('oauth_consents')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('app_id', '=', appId)
      .executeTakeFirst();
    return row && toConsent(row);
  }

  async putConsent(consent: OAuthConsent, events: readonly LockEvent[] = []): Promise<void> {
    const values = {
      scopes: JSON.stringify(consent.scopes),
      lock_ids: consent.lockIds === null ? null : JSON.stringify(consent.lockIds),
      grant_id: consent.grantId,
      granted_at: consent.grantedAt,
      last_used_at: consent.lastUsedAt,
    };
    await withEvents(this.db, events.length > 0, async (db) => {
      await db
        .insertInto('oauth_consents')
        .values({ account_id: consent.accountId, app_id: consent.appId, ...values })
        .onConflict((oc) => oc.columns(['account_id', 'app_id']).doUpdateSet(values))
        .execute();
      await insertEvents(db, events);
    });
  }

  async listConsents(accountId: string): Promise<{ consent: OAuthConsent; app: OAuthApp }[]> {
    const rows = await this.db
      .selectFrom('oauth_consents as c')
      .innerJoin('oauth_apps as p', 'p.id', 'c.app_id')
      .select([
        'c.account_id',
        'c.app_id',
        'c.scopes',
        'c.lock_ids',
        'c.grant_id',
        'c.granted_at',
        'c.last_used_at',
        'p.account_id as app_account_id',
        'p.name',
        'p.redirect_uris',
        'p.kind',
        'p.secret_prefix',
        'p.created_at',
        'p.updated_at',
      ])
      .where('c.account_id', '=', accountId)
      .orderBy('c.granted_at', 'desc')
      .orderBy('c.app_id')
      .execute();
    return rows.map((row) => ({
      consent: toConsent(row),
      app: toApp({ ...row, id: row.app_id, account_id: row.app_account_id }),
    }));
  }

  async consentsOf(appId: string): Promise<OAuthConsent[]> {
    const rows = await this.db
      .selectFrom('oauth_consents')
      .selectAll()
      .where('app_id', '=', appId)
      .orderBy('account_id')
      .execute();
    return rows.map(toConsent);
  }

  async deleteConsent(
    accountId: string,
    appId: string,
    events?: (gone: OAuthConsent) => readonly LockEvent[],
  ): Promise<OAuthConsent | undefined> {
    return this.db.transaction().execute(async (trx) => {
      const row = await trx
        .selectFrom('oauth_consents')
        .selectAll()
        .where('account_id', '=', accountId)
        .where('app_id', '=', appId)
        .executeTakeFirst();
      if (!row) return undefined;
      await trx
        .deleteFrom('oauth_consents')
        .where('account_id', '=', accountId)
        .where('app_id', '=', appId)
        .execute();
      const gone = toConsent(row);
      if (events) await insertEvents(trx, events(gone));
      return gone;
    });
  }

  async touchConsent(grantId: string, at: number): Promise<void> {
    await this.db
      .updateTable('oauth_consents')
      .set({ last_used_at: at })
      .where('grant_id', '=', grantId)
      .execute();
  }
}
