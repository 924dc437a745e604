import type { Kysely } from 'kysely';
import type { ApiKeyStore, NewApiKey } from '../../../app/ports.ts';
import type { Account } from '../../../domain/account.ts';
import type { ApiKey } from '../../../domain/api-key.ts';
import type { LockEvent } from '../../../domain/event.ts';
import { ACCOUNT_COLUMNS, toAccount } from './accounts.ts';
import { insertEvents, withEvents } from './events.ts';
import type { Database } from './tables.ts';

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
      })
      .execute();
  }

  async findByHash(hash: string): Promise<{ key: ApiKey; account: Account } | undefined> {
    const row = await this.db
      .selectFrom('api_keys as k')
      .innerJoin('accounts as a', 'a.id', 'k.account_id')
      .select([
        'k.id as key_id',
        'k.prefix',
        'k.created_at as key_created_at',
        'k.last_used_at',
        ...ACCOUNT_COLUMNS,
      ])
      .where('k.key_hash', '=', hash)
      .executeTakeFirst();
    if (!row) return undefined;
    return {
      key: {
        id: row.key_id,
        accountId: row.id,
        prefix: row.prefix,
        createdAt: Number(row.key_created_at),
        lastUsedAt: row.last_used_at === null ? null : Number(row.last_used_at),
      },
      account: toAccount(row),
    };
  }

  async touch(id: string, at: number): Promise<void> {
    await this.db.updateTable('api_keys').set({ last_used_at: at }).where('id', '=', id).execute();
  }

  async listForAccount(accountId: string): Promise<ApiKey[]> {
    const rows = await this.db
      .selectFrom('api_keys')
      .select(['id', 'account_id', 'prefix', 'created_at', 'last_used_at'])
      .where('account_id', '=', accountId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map((row) => ({
      id: row.id,
      accountId: row.account_id,
      prefix: row.prefix,
      createdAt: Number(row.created_at),
      lastUsedAt: row.last_used_at === null ? null : Number(row.last_used_at),
    }));
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
        .returning(['id', 'account_id', 'prefix', 'created_at', 'last_used_at'])
        .executeTakeFirst();
      if (!row) return false;
      if (events) {
        const key: ApiKey = {
          id: row.id,
          accountId: row.account_id,
          prefix: row.prefix,
          createdAt: Number(row.created_at),
          lastUsedAt: row.last_used_at === null ? null : Number(row.last_used_at),
        };
        await insertEvents(db, events(key));
      }
      return true;
    });
  }
}
