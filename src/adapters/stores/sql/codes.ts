import type { Kysely, Selectable } from 'kysely';
import type { CodeStore } from '../../../app/ports.ts';
import type { CodePurpose, OneTimeCode } from '../../../domain/one-time-code.ts';
import type { Database, OneTimeCodesTable } from './tables.ts';

function toCode(row: Selectable<OneTimeCodesTable>): OneTimeCode {
  return {
    id: row.id,
    accountId: row.account_id,
    purpose: row.purpose as CodePurpose,
    hash: row.code_hash,
    createdAt: Number(row.created_at),
    expiresAt: Number(row.expires_at),
    attempts: row.attempts,
    usedAt: row.used_at === null ? null : Number(row.used_at),
  };
}

export class SqlCodeStore implements CodeStore {
  constructor(private readonly db: Kysely<Database>) {}

  async replace(code: OneTimeCode): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx
        .deleteFrom('one_time_codes')
        .where('account_id', '=', code.accountId)
        .where('purpose', '=', code.purpose)
        .execute();
      await trx
        .insertInto('one_time_codes')
        .values({
          id: code.id,
          account_id: code.accountId,
          purpose: code.purpose,
          code_hash: code.hash,
          created_at: code.createdAt,
          expires_at: code.expiresAt,
          attempts: code.attempts,
          used_at: code.usedAt,
        })
        .execute();
    });
  }

  async find(accountId: string, purpose: CodePurpose): Promise<OneTimeCode | undefined> {
    const row = await this.db
      .selectFrom('one_time_codes')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('purpose', '=', purpose)
      .executeTakeFirst();
    return row && toCode(row);
  }

  async countAttempt(id: string, max: number): Promise<boolean> {
    // The bound is in the WHERE clause, so concurrent attempts cannot together go past it.
    const result = await this.db
      .updateTable('one_time_codes')
      .set((eb) => ({ attempts: eb('attempts', '+', 1) }))
      .where('id', '=', id)
      .where('attempts', '<', max)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  async use(id: string, at: number): Promise<boolean> {
    const result = await this.db
      .updateTable('one_time_codes')
      .set({ used_at: at })
      .where('id', '=', id)
      .where('used_at', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  async purgeExpiredBefore(cutoff: number): Promise<number> {
    const result = await this.db
      .deleteFrom('one_time_codes')
      .where('expires_at', '<', cutoff)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
