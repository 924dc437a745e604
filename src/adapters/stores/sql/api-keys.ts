import type { Kysely } from 'kysely';
import type { ApiKeyStore, NewApiKey } from '../../../app/ports.ts';
import type { Account } from '../../../domain/account.ts';
import type { ApiKey } from '../../../domain/api-key.ts';
import type { LockEvent } from '../../../domain/event.ts';
import { FULL_ACCESS, type KeyLimits, type Scope } from '../../../domain/scope.ts';
import { ACCOUNT_COLUMNS, toAccount } from './accounts.ts';
import { insertEvents, withEvents } from './events.ts';
import type { ApiKeysTable, Database } from './tables.ts';

/** What is read of a key wherever one is answered (aliased in findByHash, beside its account's). */
const KEY_COLUMNS = [
  'id',
  'account_id',
  'prefix',
  'created_at',
  'last_used_at',
  'scopes',
  'lock_ids',
  'expires_at',
  'name',
  'last_used_ip',
] as const;

type KeyRow = Pick<ApiKeysTable, (typeof KEY_COLUMNS)[number]>;

/** A stored list, or null (no limit); written by this file only, from checked KeyLimits. */
const listOf = <T extends string>(text: string | null): readonly T[] | null =>
  text === null ? null : (JSON.parse(text) as T[]);

function toApiKey(row: KeyRow): ApiKey {
  return {
    id: row.id,
    accountId: row.account_id,
    prefix: row.prefix,
    createdAt: Number(row.created_at),
    lastUsedAt: row.last_used_at === null ? null : Number(row.last_used_at),
    limits: {
      scopes: listOf<Scope>(row.scopes),
      lockIds: listOf<string>(row.lock_ids),
      expiresAt: row.expires_at === null ? null : Number(row.expires_at),
    },
    name: row.name,
    lastUsedIp: row.last_used_ip,
  };
}

/** The limit columns: null is no limit, so FULL_ACCESS writes the row a key from before limits has. */
function limitColumns(limits: KeyLimits) {
  return {
    scopes: limits.scopes === null ? null : JSON.stringify(limits.scopes),
    lock_ids: limits.lockIds === null ? null : JSON.stringify(limits.lockIds),
    expires_at: limits.expiresAt,
  };
}

export class SqlApiKeyStore implements ApiKeyStore {
  constructor(private readonly db: Kysely<Database>) {}

  async insert(key: NewApiKey, events: readonly LockEvent[] = []): Promise<void> {
    await withEvents(this.db, events.length > 0, async (db) => {
      await this.insertKey(db, key);
      await insertEvents(db, events);
    });
  }

  private async insertKey(db: Kysely<Database>, key: NewApiKey): Promise<void> {
    await db
      .insertInto('api_keys')
      .values({
        id: key.id,
        account_id: key.accountId,
        key_hash: key.hash,
        prefix: key.prefix,
        created_at: key.createdAt,
        last_used_at: null,
        ...limitColumns(key.limits ?? FULL_ACCESS),
        name: key.name ?? null,
        last_used_ip: null,
      })
      .execute();
  }

  async findByHash(hash: string): Promise<{ key: ApiKey; account: Account } | undefined> {
    // One indexed lookup on every request's path: the key's limits are columns of its row.
    const row = await this.db
      .selectFrom('api_keys as k')
      .innerJoin('accounts as a', 'a.id', 'k.account_id')
      .select([
        'k.id as key_id',
        'k.prefix',
        'k.created_at as key_created_at',
        'k.last_used_at',
        'k.scopes',
        'k.lock_ids',
        'k.expires_at',
        'k.name',
        'k.last_used_ip',
        ...ACCOUNT_COLUMNS,
      ])
      .where('k.key_hash', '=', hash)
      .executeTakeFirst();
    if (!row) return undefined;
    return {
      key: toApiKey({ ...row, id: row.key_id, account_id: row.id, created_at: row.key_created_at }),
      account: toAccount(row),
    };
  }

  async touch(id: string, at: number, ip?: string): Promise<void> {
    await this.db
      .updateTable('api_keys')
      .set({ last_used_at: at, ...(ip === undefined ? {} : { last_used_ip: ip }) })
      .where('id', '=', id)
      .execute();
  }

  async listForAccount(accountId: string): Promise<ApiKey[]> {
    const rows = await this.db
      .selectFrom('api_keys')
      .select(KEY_COLUMNS)
      .where('account_id', '=', accountId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map(toApiKey);
  }

  async remove(
    accountId: string,
    id: string,
    events?: (key: ApiKey) => readonly LockEvent[],
  ): Promise<boolean> {
    return withEvents(this.db, events !== undefined, async (db) => {
      const row = await db
        .deleteFrom('api_keys')
        .where('id', '=', id)
        .where('account_id', '=', accountId)
        .returning(KEY_COLUMNS)
        .executeTakeFirst();
      if (!row) return false;
      if (events) await insertEvents(db, events(toApiKey(row)));
      return true;
    });
  }
}
