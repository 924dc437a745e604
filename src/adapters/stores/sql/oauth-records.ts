import type { Kysely, Selectable } from 'kysely';
import type { BearerGrant, OAuthRecord, OAuthRecordStore } from '../../../app/ports.ts';
import { requestedScopes } from '../../../domain/oauth-app.ts';
import { ACCOUNT_COLUMNS, toAccount } from './accounts.ts';
import type { Database, OAuthRecordsTable } from './tables.ts';

const RECORD_COLUMNS = [
  'payload',
  'grant_id',
  'uid',
  'account_id',
  'client_id',
  'scope',
  'expires_at',
  'consumed_at',
] as const;

type RecordRow = Pick<Selectable<OAuthRecordsTable>, (typeof RECORD_COLUMNS)[number]>;

function toRecord(row: RecordRow): OAuthRecord {
  return {
    payload: row.payload,
    grantId: row.grant_id,
    uid: row.uid,
    accountId: row.account_id,
    clientId: row.client_id,
    scope: row.scope,
    expiresAt: Number(row.expires_at),
    consumedAt: row.consumed_at === null ? null : Number(row.consumed_at),
  };
}

/** oidc-provider's records, each by the hash of its id (issue 24, migration 020). */
export class SqlOAuthRecordStore implements OAuthRecordStore {
  constructor(private readonly db: Kysely<Database>) {}

  async upsert(model: string, idHash: string, record: OAuthRecord): Promise<void> {
    const values = {
      payload: record.payload,
      grant_id: record.grantId,
      uid: record.uid,
      account_id: record.accountId,
      client_id: record.clientId,
      scope: record.scope,
      expires_at: record.expiresAt,
      consumed_at: record.consumedAt,
    };
    await this.db
      .insertInto('oauth_records')
      .values({ model, id_hash: idHash, ...values })
      .onConflict((oc) => oc.columns(['id_hash', 'model']).doUpdateSet(values))
      .execute();
  }

  async find(model: string, idHash: string): Promise<OAuthRecord | undefined> {
    const row = await this.db
      .selectFrom('oauth_records')
      .select(RECORD_COLUMNS)
      .where('id_hash', '=', idHash)
      .where('model', '=', model)
      .executeTakeFirst();
    return row && toRecord(row);
  }

  async findByUid(model: string, uid: string): Promise<{ idHash: string; record: OAuthRecord } | undefined> {
    const row = await this.db
      .selectFrom('oauth_records')
      .select(['id_hash', ...RECORD_COLUMNS])
      .where('uid', '=', uid)
      .where('model', '=', model)
      .executeTakeFirst();
    return row && { idHash: row.id_hash, record: toRecord(row) };
  }

  async consume(model: string, idHash: string, at: number): Promise<void> {
    await this.db
      .updateTable('oauth_records')
      .set({ consumed_at: at })
      .where('id_hash', '=', idHash)
      .where('model', '=', model)
      .execute();
  }

  async destroy(model: string, idHash: string): Promise<void> {
    await this.db
      .deleteFrom('oauth_records')
      .where('id_hash', '=', idHash)
      .where('model', '=', model)
      .execute();
  }

  async revokeGrant(grantId: string, model?: string): Promise<void> {
    let query = this.db.deleteFrom('oauth_records').where('grant_id', '=', grantId);
    if (model !== undefined) query = query.where('model', '=', model);
    await query.execute();
  }

  async revokeClient(clientId: string): Promise<void> {
    await this.db.deleteFrom('oauth_records').where('client_id', '=', clientId).execute();
  }

  async findBearer(idHash: string): Promise<BearerGrant | undefined> {
    // One indexed lookup on every request a token makes: the token, its consent (the owner may have
    // narrowed the locks or withdrawn it), its app (for the actor) and the account.
    const row = await this.db
      .selectFrom('oauth_records as r')
      .innerJoin('oauth_consents as c', 'c.grant_id', 'r.grant_id')
      .innerJoin('oauth_apps as p', 'p.id', 'c.app_id')
      .innerJoin('accounts as a', 'a.id', 'c.account_id')
      .select([
        'r.scope',
        'r.expires_at',
        'r.grant_id',
        'c.lock_ids',
        'c.last_used_at',
        'p.id as app_id',
        'p.name as app_name',
        ...ACCOUNT_COLUMNS,
      ])
      .where('r.id_hash', '=', idHash)
      .where('r.model', '=', 'AccessToken')
      .whereRef('r.account_id', '=', 'c.account_id')
      .whereRef('r.client_id', '=', 'c.app_id')
      .executeTakeFirst();
    if (!row || row.grant_id === null) return undefined;
    return {
      account: toAccount(row),
      app: { id: row.app_id, name: row.app_name },
      grantId: row.grant_id,
      scopes: requestedScopes(row.scope ?? ''),
      lockIds: row.lock_ids === null ? null : (JSON.parse(row.lock_ids) as string[]),
      expiresAt: Number(row.expires_at),
      lastUsedAt: row.last_used_at === null ? null : Number(row.last_used_at),
    };
  }

  async purgeExpired(before: number): Promise<number> {
    const result = await this.db
      .deleteFrom('oauth_records')
      .where('expires_at', '<', before)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
