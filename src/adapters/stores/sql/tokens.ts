import type { Kysely } from 'kysely';
import type { TokenStore } from '../../../app/ports.ts';
import type { Account } from '../../../domain/account.ts';
import type { LoginToken } from '../../../domain/token.ts';
import { ACCOUNT_COLUMNS, toAccount } from './accounts.ts';
import type { Database } from './tables.ts';

export class SqlTokenStore implements TokenStore {
  constructor(private readonly db: Kysely<Database>) {}

  async insert(token: LoginToken & { readonly hash: string }): Promise<void> {
    await this.db
      .insertInto('login_tokens')
      .values({
        id: token.id,
        account_id: token.accountId,
        token_hash: token.hash,
        issued_at: token.issuedAt,
      })
      .execute();
  }

  async findByHash(hash: string): Promise<{ token: LoginToken; account: Account } | undefined> {
    const row = await this.db
      .selectFrom('login_tokens as t')
      .innerJoin('accounts as a', 'a.id', 't.account_id')
      .select(['t.id as token_id', 't.issued_at', ...ACCOUNT_COLUMNS])
      .where('t.token_hash', '=', hash)
      .executeTakeFirst();
    if (!row) return undefined;
    return {
      token: { id: row.token_id, accountId: row.id, issuedAt: Number(row.issued_at) },
      account: toAccount(row),
    };
  }

  async purgeIssuedBefore(cutoff: number): Promise<number> {
    const result = await this.db
      .deleteFrom('login_tokens')
      .where('issued_at', '<', cutoff)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
