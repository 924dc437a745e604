import type { Kysely, Selectable } from 'kysely';
import type {
  RelayLimits,
  RelayPlan,
  RelayTargets,
  SequencedEvent,
  WebhookEndpointStore,
} from '../../../app/ports.ts';
import { openKey } from '../../../domain/delivery.ts';
import type { LockEvent } from '../../../domain/event.ts';
import type { StoredSecrets, WebhookConfig } from '../../../domain/webhook.ts';
import type { WebhookEndpoint } from '../../../domain/webhook-endpoint.ts';
import { countOpenIn, deliveryRow } from './deliveries.ts';
import { insertEvents, SqlEventStore, withEvents } from './events.ts';
import { KeptSql } from './kept-sql.ts';
import { bool, type Database, type WebhookEndpointsTable } from './tables.ts';
import { toWebhookConfig } from './webhooks.ts';

// The relay's statements of every batch, from kept text (kept-sql.ts).
const TAKE_CURSOR = new KeptSql();
const INSERT_MESSAGE = new KeptSql();
const MOVE_CURSOR = new KeptSql();

const num = (v: number | null): number | null => (v === null ? null : Number(v));

function strings(text: string): string[] {
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
  } catch {
    return [];
  }
}

function toEndpoint(r: Selectable<WebhookEndpointsTable>): WebhookEndpoint {
  return {
    id: r.id,
    accountId: r.account_id,
    url: r.url,
    types: strings(r.types),
    deviceIds: strings(r.device_ids),
    retries: r.retries === 1,
    enabled: r.enabled === 1,
    disabledAt: num(r.disabled_at),
    disabledReason: r.disabled_reason,
    failingSince: num(r.failing_since),
    fromSeq: Number(r.from_seq),
    createdAt: Number(r.created_at),
  };
}

const settings = (e: WebhookEndpoint) => ({
  url: e.url,
  types: JSON.stringify(e.types),
  device_ids: JSON.stringify(e.deviceIds),
  retries: bool(e.retries),
  enabled: bool(e.enabled),
  disabled_at: e.disabledAt,
  disabled_reason: e.disabledReason,
  failing_since: e.failingSince,
});

export class SqlWebhookEndpointStore implements WebhookEndpointStore {
  constructor(private readonly db: Kysely<Database>) {}

  async insert(e: WebhookEndpoint, secrets: StoredSecrets, events: readonly LockEvent[] = []): Promise<void> {
    await withEvents(this.db, events.length > 0, async (db) => {
      await db
        .insertInto('webhook_endpoints')
        .values({
          id: e.id,
          account_id: e.accountId,
          ...settings(e),
          secret: secrets.current,
          previous_secret: secrets.previous,
          previous_until: secrets.previousUntil,
          from_seq: e.fromSeq,
          created_at: e.createdAt,
        })
        .execute();
      await insertEvents(db, events);
    });
  }

  async get(accountId: string, id: string): Promise<WebhookEndpoint | undefined> {
    const row = await this.db
      .selectFrom('webhook_endpoints')
      .selectAll()
      .where('id', '=', id)
      .where('account_id', '=', accountId)
      .executeTakeFirst();
    return row && toEndpoint(row);
  }

  async list(accountId: string): Promise<WebhookEndpoint[]> {
    const rows = await this.db
      .selectFrom('webhook_endpoints')
      .selectAll()
      .where('account_id', '=', accountId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map(toEndpoint);
  }

  async count(accountId: string): Promise<number> {
    const row = await this.db
      .selectFrom('webhook_endpoints')
      .select((eb) => eb.fn.countAll<number | string | bigint>().as('n'))
      .where('account_id', '=', accountId)
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  }

  async update(e: WebhookEndpoint, events: readonly LockEvent[] = []): Promise<boolean> {
    return withEvents(this.db, events.length > 0, async (db) => {
      const result = await db
        .updateTable('webhook_endpoints')
        .set(settings(e))
        .where('id', '=', e.id)
        .where('account_id', '=', e.accountId)
        .executeTakeFirst();
      const updated = Number(result.numUpdatedRows) > 0;
      if (updated) await insertEvents(db, events);
      return updated;
    });
  }

  async remove(accountId: string, id: string, events: readonly LockEvent[] = []): Promise<boolean> {
    return withEvents(this.db, true, async (db) => {
      const result = await db
        .deleteFrom('webhook_endpoints')
        .where('id', '=', id)
        .where('account_id', '=', accountId)
        .executeTakeFirst();
      if (Number(result.numDeletedRows) === 0) return false;
      // Its log goes with it; a message out now finishes and is then forgotten with nothing to list it.
      await db
        .deleteFrom('webhook_deliveries')
        .where('endpoint_id', '=', id)
        .where('status', '!=', 'sending')
        .execute();
      await insertEvents(db, events);
      return true;
    });
  }

  async setSecrets(id: string, secrets: StoredSecrets): Promise<void> {
    await this.db
      .updateTable('webhook_endpoints')
      .set({
        secret: secrets.current,
        previous_secret: secrets.previous,
        previous_until: secrets.previousUntil,
      })
      .where('id', '=', id)
      .execute();
  }

  async getSecrets(id: string): Promise<StoredSecrets | undefined> {
    const row = await this.db
      .selectFrom('webhook_endpoints')
      .select(['secret', 'previous_secret', 'previous_until'])
      .where('id', '=', id)
      .executeTakeFirst();
    if (!row) return undefined;
    return { current: row.secret, previous: row.previous_secret, previousUntil: num(row.previous_until) };
  }

  async markDelivered(id: string): Promise<void> {
    await this.db
      .updateTable('webhook_endpoints')
      .set({ failing_since: null })
      .where('id', '=', id)
      .where('failing_since', 'is not', null)
      .execute();
  }

  async markFailing(id: string, at: number): Promise<number | undefined> {
    await this.db
      .updateTable('webhook_endpoints')
      .set({ failing_since: at })
      .where('id', '=', id)
      .where('failing_since', 'is', null)
      .execute();
    const row = await this.db
      .selectFrom('webhook_endpoints')
      .select('failing_since')
      .where('id', '=', id)
      .executeTakeFirst();
    return row ? (num(row.failing_since) ?? undefined) : undefined;
  }

  async disable(
    id: string,
    at: number,
    reason: string,
    error: string,
    events: readonly LockEvent[] = [],
  ): Promise<boolean> {
    return withEvents(this.db, true, async (db) => {
      const result = await db
        .updateTable('webhook_endpoints')
        .set({ enabled: 0, disabled_at: at, disabled_reason: reason })
        .where('id', '=', id)
        .where('enabled', '=', 1)
        .executeTakeFirst();
      if (Number(result.numUpdatedRows) === 0) return false;
      await db
        .updateTable('webhook_deliveries')
        .set({ status: 'failed', error, next_attempt_at: null })
        .where('endpoint_id', '=', id)
        .where('status', '=', 'pending')
        .execute();
      await insertEvents(db, events);
      return true;
    });
  }

  async receivingAccounts(): Promise<string[]> {
    const rows = await this.db
      .selectFrom('webhooks')
      .select('webhooks.account_id')
      .innerJoin('accounts', 'accounts.id', 'webhooks.account_id')
      .where('accounts.deleted_at', 'is', null)
      .union((db) =>
        db
          .selectFrom('webhook_endpoints')
          .select('webhook_endpoints.account_id')
          .innerJoin('accounts', 'accounts.id', 'webhook_endpoints.account_id')
          .where('webhook_endpoints.enabled', '=', 1)
          .where('accounts.deleted_at', 'is', null),
      )
      .execute();
    return rows.map((r) => r.account_id);
  }

  relay(limits: RelayLimits, plan: RelayPlan): Promise<number> {
    return this.db.transaction().execute(async (trx) => {
      // An UPDATE, not SELECT FOR UPDATE (which SQLite lacks): it locks the row on PostgreSQL until
      // this transaction ends, so a second process waits and then reads the position moved on.
      const cursor = (
        await TAKE_CURSOR.run(trx, ['endpoints'], () =>
          trx
            .updateTable('webhook_relay')
            .set((eb) => ({ position: eb.ref('position') }))
            .where('name', '=', 'endpoints')
            .returning(['position', 'last_seq', 'webhook_from']),
        )
      ).rows[0];
      if (!cursor) return 0;
      if (limits.skipWithoutReceivers && (await skippedToHead(trx))) return 0;
      const batch = await new SqlEventStore(trx).since(Number(cursor.position), limits.batch);
      const last = batch.at(-1);
      if (!last) return 0;
      const targets = await relayTargets(trx, batch, limits.open, Number(cursor.webhook_from));
      let seq = Number(cursor.last_seq);
      for (const { message, eventId } of plan(batch, targets)) {
        // Increasing across processes too (the row is ours): one lock's messages keep the log's order.
        seq = Math.max(seq + 1, message.seq);
        const row = deliveryRow({ ...message, seq }, `${message.endpointId ?? 'webhook'}:${eventId}`);
        await INSERT_MESSAGE.run(trx, Object.values(row), () =>
          trx
            .insertInto('webhook_deliveries')
            .values(row)
            .onConflict((oc) => oc.column('relay_key').doNothing()),
        );
      }
      const moved = { position: last.seq, last_seq: seq };
      await MOVE_CURSOR.run(trx, [...Object.values(moved), 'endpoints'], () =>
        trx.updateTable('webhook_relay').set(moved).where('name', '=', 'endpoints'),
      );
      return batch.length;
    });
  }
}

/**
 * Moves the relay's position to the log's head when no account, in any process, has a webhook or
 * an enabled endpoint: the events past it have nothing to be written for them. One statement, so
 * on PostgreSQL one snapshot: a receiver committed before it is seen and nothing moves; one
 * committed after it has a `from_seq` at or past the head this statement read, so no event it
 * takes is skipped. Whether it moved.
 */
async function skippedToHead(trx: Kysely<Database>): Promise<boolean> {
  // At most once a poll (200 ms), and only while the log moves: built each time, not kept.
  const head = () => trx.selectFrom('event_sequence').select('value').where('name', '=', 'events');
  const webhooks = trx
    .selectFrom('webhooks')
    .innerJoin('accounts', 'accounts.id', 'webhooks.account_id')
    .select('webhooks.account_id')
    .where('accounts.deleted_at', 'is', null);
  const endpoints = trx
    .selectFrom('webhook_endpoints')
    .innerJoin('accounts', 'accounts.id', 'webhook_endpoints.account_id')
    .select('webhook_endpoints.account_id')
    .where('webhook_endpoints.enabled', '=', 1)
    .where('accounts.deleted_at', 'is', null);
  const result = await trx
    .updateTable('webhook_relay')
    .set({ position: head() })
    .where('name', '=', 'endpoints')
    .where('position', '<', head())
    .where(({ and, exists, not }) => and([not(exists(webhooks)), not(exists(endpoints))]))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** The endpoints, webhooks and backlogs of the batch's accounts (RelayTargets). */
async function relayTargets(
  trx: Kysely<Database>,
  batch: readonly SequencedEvent[],
  openAtMost: number,
  webhookFrom: number,
): Promise<RelayTargets> {
  const accounts = [...new Set(batch.map(({ event }) => event.accountId))];
  // One after the other: a transaction is one connection. A deleted account is sent nothing more.
  const endpointRows = await trx
    .selectFrom('webhook_endpoints')
    .innerJoin('accounts', 'accounts.id', 'webhook_endpoints.account_id')
    .selectAll('webhook_endpoints')
    .where('webhook_endpoints.account_id', 'in', accounts)
    .where('webhook_endpoints.enabled', '=', 1)
    .where('accounts.deleted_at', 'is', null)
    .execute();
  const webhookRows = await trx
    .selectFrom('webhooks')
    .innerJoin('accounts', 'accounts.id', 'webhooks.account_id')
    .selectAll('webhooks')
    .where('webhooks.account_id', 'in', accounts)
    .where('accounts.deleted_at', 'is', null)
    .execute();
  const endpoints = endpointRows.map(toEndpoint);
  const webhooks = new Map<string, WebhookConfig>(webhookRows.map((r) => [r.account_id, toWebhookConfig(r)]));
  const from = new Map(webhookRows.map((r) => [r.account_id, Math.max(webhookFrom, Number(r.from_seq))]));
  const open = new Map<string, number>();
  const owners = [...new Set([...webhooks.keys(), ...endpoints.map((e) => e.accountId)])];
  for (const accountId of owners) {
    // Per backlog through the open index (009), and no further than the bound: a full backlog of
    // one receiver costs a bounded read, however long it is.
    const keys = [
      ...(webhooks.has(accountId) ? [''] : []),
      ...endpoints.filter((e) => e.accountId === accountId).map((e) => e.id),
    ];
    for (const endpointId of keys)
      open.set(
        openKey(accountId, endpointId || null),
        await countOpenIn(trx, accountId, endpointId, openAtMost),
      );
  }
  return { endpoints, webhooks, open, webhookFrom: from };
}
