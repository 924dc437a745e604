import { type Kysely, type Selectable, sql } from 'kysely';
import type { WebhookStore } from '../../../app/ports.ts';
import type { LockEvent } from '../../../domain/event.ts';
import type { StoredSecrets, WebhookConfig } from '../../../domain/webhook.ts';
import { insertEvents, withEvents } from './events.ts';
import { KeptSql } from './kept-sql.ts';
import { bool, type Database, type WebhooksTable } from './tables.ts';

export function toWebhookConfig(row: Selectable<WebhooksTable>): WebhookConfig {
  return {
    accountId: row.account_id,
    url: row.url,
    method: row.method === 'GET' ? 'GET' : 'POST',
    retries: row.retries === 1,
  };
}

const SECRETS = new KeptSql();

export class SqlWebhookStore implements WebhookStore {
  constructor(private readonly db: Kysely<Database>) {}

  async set(config: WebhookConfig, events: readonly LockEvent[] = []): Promise<void> {
    await withEvents(this.db, events.length > 0, async (db) => {
      await this.upsert(db, config);
      await insertEvents(db, events);
    });
  }

  private async upsert(db: Kysely<Database>, config: WebhookConfig): Promise<void> {
    const values = { url: config.url, method: config.method, retries: bool(config.retries) };
    await db
      .insertInto('webhooks')
      .values({
        account_id: config.accountId,
        ...values,
        secret: null,
        previous_secret: null,
        previous_until: null,
        // Where the log is as the webhook is made: it reports the changes after (migration 019).
        // A change of URL or method keeps it, so no change falls between the old and the new.
        from_seq: sql<number>`(SELECT value FROM event_sequence WHERE name = 'events')`,
      })
      .onConflict((oc) => oc.column('account_id').doUpdateSet(values))
      .execute();
  }

  async get(accountId: string): Promise<WebhookConfig | undefined> {
    const row = await this.db
      .selectFrom('webhooks')
      .selectAll()
      .where('account_id', '=', accountId)
      .executeTakeFirst();
    return row && toWebhookConfig(row);
  }

  async remove(accountId: string, events: readonly LockEvent[] = []): Promise<boolean> {
    return withEvents(this.db, events.length > 0, async (db) => {
      const result = await db.deleteFrom('webhooks').where('account_id', '=', accountId).executeTakeFirst();
      const removed = Number(result.numDeletedRows) > 0;
      if (removed) await insertEvents(db, events);
      return removed;
    });
  }

  async setSecrets(accountId: string, secrets: StoredSecrets): Promise<void> {
    await this.db
      .updateTable('webhooks')
      .set({
        secret: secrets.current,
        previous_secret: secrets.previous,
        previous_until: secrets.previousUntil,
      })
      .where('account_id', '=', accountId)
      .execute();
  }

  async getSecrets(accountId: string): Promise<StoredSecrets | undefined> {
    // Read for every message signed (kept-sql.ts).
    const { rows } = await SECRETS.run(this.db, [accountId], () =>
      this.db
        .selectFrom('webhooks')
        .select(['secret', 'previous_secret', 'previous_until'])
        .where('account_id', '=', accountId),
    );
    const row = rows[0];
    if (!row || row.secret === null) return undefined;
    return {
      current: row.secret,
      previous: row.previous_secret,
      previousUntil: row.previous_until === null ? null : Number(row.previous_until),
    };
  }
}
