import type { Kysely } from 'kysely';
import type { SessionStore } from '../../../app/ports.ts';
import type { Account } from '../../../domain/account.ts';
import type { Session } from '../../../domain/session.ts';
import { ACCOUNT_COLUMNS, toAccount } from './accounts.ts';
import type { Database } from './tables.ts';

export class SqlSessionStore implements SessionStore {
  constructor(private readonly db: Kysely<Database>) {}

  async insert(session: Session & { readonly hash: string }): Promise<void> {
    await this.db
      .insertInto('sessions')
      .values({
        id: session.id,
        account_id: session.accountId,
        token_hash: session.hash,
        created_at: session.createdAt,
        expires_at: session.expiresAt,
        api_unlocked_until: session.apiUnlockedUntil,
      })
      .execute();
  }

  async findByHash(hash: string): Promise<{ session: Session; account: Account } | undefined> {
    const row = await this.db
      .selectFrom('sessions as s')
      .innerJoin('accounts as a', 'a.id', 's.account_id')
      .select([
        's.id as session_id',
        's.created_at as session_created_at',
        's.expires_at',
        's.api_unlocked_until',
        ...ACCOUNT_COLUMNS,
      ])
      .where('s.token_hash', '=', hash)
      .executeTakeFirst();
    if (!row) return undefined;
    return {
      session: {
        id: row.session_id,
        accountId: row.id,
        createdAt: Number(row.session_created_at),
        expiresAt: Number(row.expires_at),
        apiUnlockedUntil: row.api_unlocked_until === null ? null : Number(row.api_unlocked_until),
      },
      account: toAccount(row),
    };
  }

  async setApiUnlockedUntil(id: string, until: number | null): Promise<void> {
    await this.db.updateTable('sessions').set({ api_unlocked_until: until }).where('id', '=', id).execute();
  }

  async remove(id: string): Promise<void> {
    await this.db.deleteFrom('sessions').where('id', '=', id).execute();
  }

  async removeForAccount(accountId: string): Promise<number> {
    const result = await this.db
      .deleteFrom('sessions')
      .where('account_id', '=', accountId)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  async purgeExpiredBefore(cutoff: number): Promise<number> {
    const result = await this.db.deleteFrom('sessions').where('expires_at', '<', cutoff).executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
