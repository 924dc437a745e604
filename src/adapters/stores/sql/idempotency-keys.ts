import type { Kysely, Selectable } from 'kysely';
import type { IdempotencyKeyStore, IdempotencyRecord } from '../../../app/ports.ts';
import { KeptSql } from './kept-sql.ts';
import type { Database, IdempotencyKeysTable } from './tables.ts';

const KEY_RECORD = new KeptSql();

const toRecord = (row: Selectable<IdempotencyKeysTable>): IdempotencyRecord => ({
  accountId: row.account_id,
  keyHash: row.key_hash,
  fingerprint: row.fingerprint,
  taskId: row.task_id,
  createdAt: Number(row.created_at),
  expiresAt: Number(row.expires_at),
});

/** Reads and purges; records are made with their task (SqlTaskStore.createProcessing). */
export class SqlIdempotencyKeyStore implements IdempotencyKeyStore {
  constructor(private readonly db: Kysely<Database>) {}

  async get(accountId: string, keyHash: string): Promise<IdempotencyRecord | undefined> {
    // Asked by every command that carries a key (kept-sql.ts).
    const { rows } = await KEY_RECORD.run(this.db, [accountId, keyHash], () =>
      this.db
        .selectFrom('idempotency_keys')
        .selectAll()
        .where('account_id', '=', accountId)
        .where('key_hash', '=', keyHash),
    );
    const row = rows[0];
    return row && toRecord(row);
  }

  async purgeExpired(now: number): Promise<number> {
    const result = await this.db
      .deleteFrom('idempotency_keys')
      .where('expires_at', '<=', now)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
