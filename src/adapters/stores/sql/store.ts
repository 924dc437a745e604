import { type Kysely, sql } from 'kysely';
import type { Store, StoreSnapshot } from '../../../app/ports.ts';
import { SqlAccessPointStore } from './access-points.ts';
import { SqlAccountStore } from './accounts.ts';
import { SqlApiKeyStore } from './api-keys.ts';
import { SqlBlockStore } from './blocks.ts';
import { SqlCodeStore } from './codes.ts';
import { SqlDeliveryStore } from './deliveries.ts';
import { SqlEventStore } from './events.ts';
import { SqlGrantStore } from './grants.ts';
import { SqlIdempotencyKeyStore } from './idempotency-keys.ts';
import { SqlLockStore } from './locks.ts';
import { SqlOAuthAppStore } from './oauth-apps.ts';
import { SqlOAuthRecordStore } from './oauth-records.ts';
import { SqlSessionStore } from './sessions.ts';
import { SqlSimDeviceStore } from './sim-devices.ts';
import { DATA_TABLES, type Database } from './tables.ts';
import { SqlTaskStore } from './tasks.ts';
import { SqlTokenStore } from './tokens.ts';
import { SqlWebhookEndpointStore } from './webhook-endpoints.ts';
import { SqlWebhookStore } from './webhooks.ts';

const MAX_VALUES = 30_000;

/** The store over any Kysely dialect; backends differ only in how they open the connection. */
export class SqlStore implements Store {
  readonly accounts: SqlAccountStore;
  readonly apiKeys: SqlApiKeyStore;
  readonly locks: SqlLockStore;
  readonly grants: SqlGrantStore;
  readonly tasks: SqlTaskStore;
  readonly idempotencyKeys: SqlIdempotencyKeyStore;
  readonly webhooks: SqlWebhookStore;
  readonly deliveries: SqlDeliveryStore;
  readonly webhookEndpoints: SqlWebhookEndpointStore;
  readonly simDevices: SqlSimDeviceStore;
  readonly accessPoints: SqlAccessPointStore;
  readonly tokens: SqlTokenStore;
  readonly blocks: SqlBlockStore;
  readonly sessions: SqlSessionStore;
  readonly codes: SqlCodeStore;
  readonly events: SqlEventStore;
  readonly oauthApps: SqlOAuthAppStore;
  readonly oauthRecords: SqlOAuthRecordStore;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly onClose: () => Promise<void> = () => db.destroy(),
  ) {
    this.accounts = new SqlAccountStore(db);
    this.apiKeys = new SqlApiKeyStore(db);
    this.locks = new SqlLockStore(db);
    this.grants = new SqlGrantStore(db);
    this.tasks = new SqlTaskStore(db);
    this.idempotencyKeys = new SqlIdempotencyKeyStore(db);
    this.webhooks = new SqlWebhookStore(db);
    this.deliveries = new SqlDeliveryStore(db);
    this.webhookEndpoints = new SqlWebhookEndpointStore(db);
    this.simDevices = new SqlSimDeviceStore(db);
    this.accessPoints = new SqlAccessPointStore(db);
    this.tokens = new SqlTokenStore(db);
    this.blocks = new SqlBlockStore(db);
    this.sessions = new SqlSessionStore(db);
    this.codes = new SqlCodeStore(db);
    this.events = new SqlEventStore(db);
    this.oauthApps = new SqlOAuthAppStore(db);
    this.oauthRecords = new SqlOAuthRecordStore(db);
  }

  async getMeta(key: string): Promise<string | undefined> {
    const row = await this.db.selectFrom('meta').select('value').where('key', '=', key).executeTakeFirst();
    return row?.value;
  }

  async setMeta(key: string, value: string): Promise<void> {
    await this.db
      .insertInto('meta')
      .values({ key, value })
      .onConflict((oc) => oc.column('key').doUpdateSet({ value }))
      .execute();
  }

  async isEmpty(): Promise<boolean> {
    const row = await this.db
      .selectFrom('accounts')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n) === 0;
  }

  async snapshot(): Promise<StoreSnapshot> {
    const snapshot: Record<string, Record<string, unknown>[]> = {};
    for (const table of DATA_TABLES) snapshot[table] = await this.db.selectFrom(table).selectAll().execute();
    return snapshot;
  }

  async restore(snapshot: StoreSnapshot): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      for (const table of [...DATA_TABLES].reverse()) await trx.deleteFrom(table).execute();
      for (const table of DATA_TABLES) {
        const rows = snapshot[table] ?? [];
        // A statement binds at most 32,766 values on SQLite and 65,535 on PostgreSQL: a few rows at a time.
        const perStatement = Math.max(1, Math.floor(MAX_VALUES / Object.keys(rows[0] ?? {}).length));
        for (let i = 0; i < rows.length; i += perStatement) {
          // Rows come from our own snapshot of the same tables, so their shape is the table's.
          await trx
            .insertInto(table)
            .values(rows.slice(i, i + perStatement) as never)
            .execute();
        }
      }
    });
  }

  async ping(): Promise<void> {
    await sql`select 1`.execute(this.db);
  }

  close(): Promise<void> {
    return this.onClose();
  }
}
