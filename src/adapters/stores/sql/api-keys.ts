import type { Kysely } from 'kysely';
import type { ApiKeyStore, NewApiKey } from '../../../app/ports.ts';
import type { Account } from '../../../domain/account.ts';
import type { ApiKey } from '../../../domain/api-key.ts';
import { ACCOUNT_COLUMNS, toAccount } from './accounts.ts';
import type { Database } from './tables.ts';

export class SqlApiKeyStore implements ApiKeyStore {
  constructor(private readonly db: Kysely<Database>) {}

  async insert(key: NewApiKey): Promise<void> {
    await this.db
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

  async remove(accountId: string, id: string): Promise<boolean> {
    const result = await this.db
      .deleteFrom('api_keys')
      .where('id', '=', id)
      .where('account_id', '=', accountId)
      .executeTakeFirst();
    return Number(result.numDeletedRows) === 1;
  }
}
