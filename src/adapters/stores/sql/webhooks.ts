import type { Kysely } from 'kysely';
import type { WebhookConfig, WebhookStore } from '../../../app/ports.ts';
import type { Database } from './tables.ts';

export class SqlWebhookStore implements WebhookStore {
  constructor(private readonly db: Kysely<Database>) {}

  async set(config: WebhookConfig): Promise<void> {
    await this.db
      .insertInto('webhooks')
      .values({ account_id: config.accountId, url: config.url, method: config.method })
      .onConflict((oc) => oc.column('account_id').doUpdateSet({ url: config.url, method: config.method }))
      .execute();
  }

  async get(accountId: string): Promise<WebhookConfig | undefined> {
    const row = await this.db
      .selectFrom('webhooks')
      .selectAll()
      .where('account_id', '=', accountId)
      .executeTakeFirst();
    if (!row) return undefined;
    return { accountId: row.account_id, url: row.url, method: row.method === 'GET' ? 'GET' : 'POST' };
  }
}
