import type { Kysely, Selectable } from 'kysely';
import type { AccountStore } from '../../../app/ports.ts';
import type { Account } from '../../../domain/account.ts';
import type { LockEvent } from '../../../domain/event.ts';
import { insertEvents, withEvents } from './events.ts';
import { type AccountsTable, bool, type Database } from './tables.ts';

/** The account's columns under the alias `a`, for queries that join an account to its credential. */
export const ACCOUNT_COLUMNS = [
  'a.id',
  'a.email',
  'a.password_hash',
  'a.verified',
  'a.deleted_at',
  'a.password_changed_at',
  'a.created_at',
] as const;

export function toAccount(row: Selectable<AccountsTable>): Account {
  return {
    id: row.id,
    email: row.email,
    passwordHash: row.password_hash,
    verified: row.verified === 1,
    deletedAt: row.deleted_at === null ? null : Number(row.deleted_at),
    passwordChangedAt: row.password_changed_at === null ? null : Number(row.password_changed_at),
    createdAt: Number(row.created_at),
  };
}

export class SqlAccountStore implements AccountStore {
  constructor(private readonly db: Kysely<Database>) {}

  async insert(a: Account): Promise<void> {
    await this.db
      .insertInto('accounts')
      .values({
        id: a.id,
        email: a.email,
        password_hash: a.passwordHash,
        verified: bool(a.verified),
        deleted_at: a.deletedAt,
        password_changed_at: a.passwordChangedAt,
        created_at: a.createdAt,
      })
      .execute();
  }

  async findByEmail(email: string): Promise<Account | undefined> {
    const row = await this.db
      .selectFrom('accounts')
      .selectAll()
      .where('email', '=', email)
      .executeTakeFirst();
    return row && toAccount(row);
  }

  async findById(id: string): Promise<Account | undefined> {
    const row = await this.db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirst();
    return row && toAccount(row);
  }

  async update(
    id: string,
    patch: Partial<Pick<Account, 'passwordHash' | 'verified' | 'deletedAt' | 'passwordChangedAt'>>,
    events: readonly LockEvent[] = [],
  ): Promise<void> {
    const values: Partial<AccountsTable> = {};
    if (patch.passwordHash !== undefined) values.password_hash = patch.passwordHash;
    if (patch.verified !== undefined) values.verified = bool(patch.verified);
    if (patch.deletedAt !== undefined) values.deleted_at = patch.deletedAt;
    if (patch.passwordChangedAt !== undefined) values.password_changed_at = patch.passwordChangedAt;
    if (Object.keys(values).length === 0) return;
    await withEvents(this.db, events.length > 0, async (db) => {
      await db.updateTable('accounts').set(values).where('id', '=', id).execute();
      await insertEvents(db, events);
    });
  }

  async list(): Promise<Account[]> {
    const rows = await this.db.selectFrom('accounts').selectAll().orderBy('email').execute();
    return rows.map(toAccount);
  }
}
