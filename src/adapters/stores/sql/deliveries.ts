import { type Kysely, type Selectable, sql } from 'kysely';
import type { DeliveryStore, DueSkip } from '../../../app/ports.ts';
import type { Delivery, DeliveryOutcome, DeliveryStatus, DueMessage } from '../../../domain/delivery.ts';
import { EVENT_TYPES, type EventType } from '../../../domain/event.ts';
import { KeptSql } from './kept-sql.ts';
import { bool, type Database, type WebhookDeliveriesTable } from './tables.ts';

// The outbox's statements of every message, from kept text (kept-sql.ts).
const DUE = new KeptSql();
const CLAIM = new KeptSql();
const RECORD = new KeptSql();
const COUNT_OPEN = new KeptSql();
const LOG_CUTOFF = new KeptSql();

const num = (v: number | null): number | null => (v === null ? null : Number(v));
const STATUSES: readonly DeliveryStatus[] = ['pending', 'sending', 'delivered', 'failed'];
const isEventType = (v: string): v is EventType => (EVENT_TYPES as readonly string[]).includes(v);

function eventOf(r: Selectable<WebhookDeliveriesTable>): Delivery['event'] {
  if (r.event === 'test') return 'test';
  // An endpoint's message carries an event of the log; only known types are written.
  if (r.endpoint_id !== '' && isEventType(r.event)) return r.event;
  return 'lock.state_changed';
}

/** Row values of a message (shared with the relay, which writes them in its own transaction). */
export function deliveryRow(d: Delivery, relayKey: string | null = null) {
  return {
    id: d.id,
    account_id: d.accountId,
    device_id: d.deviceId,
    event: d.event,
    url: d.url,
    host: d.host,
    method: d.method,
    body: d.body,
    locked: bool(d.locked),
    retries: bool(d.retries),
    seq: d.seq,
    created_at: d.createdAt,
    status: d.status,
    attempts: d.attempts,
    next_attempt_at: d.nextAttemptAt,
    last_attempt_at: d.lastAttemptAt,
    response_status: d.responseStatus,
    error: d.error,
    latency_ms: d.latencyMs,
    endpoint_id: d.endpointId ?? '',
    event_id: d.eventId,
    relay_key: relayKey,
  };
}

function toDelivery(r: Selectable<WebhookDeliveriesTable>): Delivery {
  return {
    id: r.id,
    accountId: r.account_id,
    deviceId: r.device_id,
    event: eventOf(r),
    endpointId: r.endpoint_id === '' ? null : r.endpoint_id,
    eventId: r.event_id,
    url: r.url,
    host: r.host,
    method: r.method === 'GET' ? 'GET' : 'POST',
    body: r.body,
    // Rows from before the column: a POST body still tells the state.
    locked: r.locked === null ? r.body?.includes('"locked":true') === true : r.locked === 1,
    retries: r.retries === 1,
    seq: Number(r.seq),
    createdAt: Number(r.created_at),
    status: (STATUSES as readonly string[]).includes(r.status) ? (r.status as DeliveryStatus) : 'failed',
    attempts: r.attempts,
    nextAttemptAt: num(r.next_attempt_at),
    lastAttemptAt: num(r.last_attempt_at),
    responseStatus: r.response_status,
    error: r.error,
    latencyMs: r.latency_ms,
  };
}

/**
 * How many of one receiver's messages (endpoint_id '' for the webhook) wait or are out, counted no
 * further than `atMost`: through the open index by receiver (023), so it reads that receiver's open
 * messages only, and a full backlog costs a bounded read.
 */
export async function countOpenIn(
  db: Kysely<Database>,
  accountId: string,
  endpointId: string,
  atMost: number,
): Promise<number> {
  const { rows } = await COUNT_OPEN.run(db, [accountId, endpointId, atMost], () =>
    db
      .selectFrom((inner) =>
        inner
          .selectFrom('webhook_deliveries')
          .select('seq')
          .where('account_id', '=', accountId)
          .where('endpoint_id', '=', endpointId)
          // Literal, not bound: only then can the planner prove the partial index applies.
          .where(sql<boolean>`status in ('pending', 'sending')`)
          .limit(atMost)
          .as('open'),
      )
      .select((eb) => eb.fn.countAll<number | string | bigint>().as('n')),
  );
  return Number(rows[0]?.n ?? 0);
}

export class SqlDeliveryStore implements DeliveryStore {
  constructor(private readonly db: Kysely<Database>) {}

  async insert(d: Delivery): Promise<void> {
    await this.db.insertInto('webhook_deliveries').values(deliveryRow(d)).execute();
  }

  async get(accountId: string, id: string, endpointId = ''): Promise<Delivery | undefined> {
    const row = await this.db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('id', '=', id)
      .where('account_id', '=', accountId)
      .where('endpoint_id', '=', endpointId)
      .executeTakeFirst();
    return row && toDelivery(row);
  }

  async listForAccount(
    accountId: string,
    limit: number,
    endpointId = '',
    beforeSeq?: number,
  ): Promise<Delivery[]> {
    let query = this.db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('endpoint_id', '=', endpointId);
    if (beforeSeq !== undefined) query = query.where('seq', '<', beforeSeq);
    const rows = await query.orderBy('seq', 'desc').limit(limit).execute();
    return rows.map(toDelivery);
  }

  async due(now: number, limit: number, skip: DueSkip): Promise<DueMessage[]> {
    const dueQuery = () => this.dueQuery(now, limit, skip);
    // The usual shape, with nothing left out, from kept text: building it is most of its cost.
    const plain = skip.accounts.length === 0 && skip.hosts.length === 0 && skip.accountHosts.length === 0;
    const { rows } = plain
      ? await DUE.run(this.db, [now, limit], dueQuery)
      : await this.db.executeQuery(dueQuery().compile());
    return rows.map((r) => ({
      id: r.id,
      accountId: r.account_id,
      deviceId: r.device_id,
      host: r.host,
      seq: Number(r.seq),
    }));
  }

  private dueQuery(now: number, limit: number, skip: DueSkip) {
    let query = this.db
      .selectFrom('webhook_deliveries')
      // What scheduling needs, no more: reading a whole message is three times the cost of the
      // query (measured: 64 due rows, 320 µs against 97), and most are not started by the pass
      // that read them. The one taken comes whole from claim.
      .select(['id', 'account_id', 'device_id', 'host', 'seq'])
      // Literal, as below: the pending index (009) is walked in order, with no sort of the backlog.
      .where(sql<boolean>`status = 'pending'`)
      .where('next_attempt_at', '<=', now)
      // Per lock, first come first out: nothing overtakes a message that is out or waits for a retry.
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom('webhook_deliveries as earlier')
              .select('earlier.id')
              .whereRef('earlier.account_id', '=', 'webhook_deliveries.account_id')
              .whereRef('earlier.device_id', '=', 'webhook_deliveries.device_id')
              // Per endpoint: one receiver's retries never hold back another's (or the webhook's).
              .whereRef('earlier.endpoint_id', '=', 'webhook_deliveries.endpoint_id')
              // Literal, not bound: only then can the planner prove the partial index (009) applies.
              .where(sql<boolean>`earlier.status in ('pending', 'sending')`)
              .whereRef('earlier.seq', '<', 'webhook_deliveries.seq'),
          ),
        ),
      );
    if (skip.accounts.length > 0) query = query.where('account_id', 'not in', [...skip.accounts]);
    if (skip.hosts.length > 0) query = query.where('host', 'not in', [...skip.hosts]);
    if (skip.accountHosts.length > 0)
      query = query.where(({ and, or, not, eb }) =>
        not(
          or(
            skip.accountHosts.map(([account, host]) =>
              and([eb('account_id', '=', account), eb('host', '=', host)]),
            ),
          ),
        ),
      );
    return query.orderBy('seq').limit(limit);
  }

  countOpen(accountId: string, atMost: number): Promise<number> {
    // The API Settings webhook's bound: endpoints' messages are not counted against it.
    return countOpenIn(this.db, accountId, '', atMost);
  }

  async claim(id: string, now: number): Promise<Delivery | undefined> {
    const set = { status: 'sending', claimed_at: now } as const;
    const { rows } = await CLAIM.run(this.db, [...Object.values(set), id, 'pending'], () =>
      this.db
        .updateTable('webhook_deliveries')
        .set(set)
        .where('id', '=', id)
        .where('status', '=', 'pending')
        .returningAll(),
    );
    const row = rows[0];
    return row && toDelivery(row);
  }

  async record(id: string, o: DeliveryOutcome): Promise<void> {
    const set = {
      status: o.status,
      attempts: o.attempts,
      next_attempt_at: o.nextAttemptAt,
      last_attempt_at: o.lastAttemptAt,
      response_status: o.responseStatus,
      error: o.error,
      latency_ms: o.latencyMs,
    };
    const result = await RECORD.run(this.db, [...Object.values(set), id, ''], () =>
      this.db
        .updateTable('webhook_deliveries')
        .set(set)
        .where('id', '=', id)
        // A message whose endpoint was removed while it was out has no log left to be listed in.
        .where((eb) =>
          eb.or([
            eb('endpoint_id', '=', ''),
            eb.exists(
              eb
                .selectFrom('webhook_endpoints')
                .select('webhook_endpoints.id')
                .whereRef('webhook_endpoints.id', '=', 'webhook_deliveries.endpoint_id'),
            ),
          ]),
        ),
    );
    // Then it goes, as the rest of that log went: one more statement, only in that rare case.
    if (Number(result.numAffectedRows) === 0)
      await this.db.deleteFrom('webhook_deliveries').where('id', '=', id).execute();
  }

  async failInterrupted(now: number, claimedBefore?: number): Promise<number> {
    let query = this.db
      .updateTable('webhook_deliveries')
      .set({
        status: 'failed',
        // The attempt under way when the process died is one made.
        attempts: sql<number>`attempts + 1`,
        error: 'interrupted by a restart; not sent again',
        last_attempt_at: now,
      })
      .where('status', '=', 'sending');
    if (claimedBefore !== undefined)
      query = query.where((eb) =>
        eb.or([eb('claimed_at', 'is', null), eb('claimed_at', '<', claimedBefore)]),
      );
    const result = await query.executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  async cancelPending(accountId: string, error: string, endpointId = ''): Promise<number> {
    const result = await this.db
      .updateTable('webhook_deliveries')
      .set({ status: 'failed', error, next_attempt_at: null })
      .where('account_id', '=', accountId)
      .where('endpoint_id', '=', endpointId)
      .where('status', '=', 'pending')
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  async trim(accountId: string, keep: number, endpointId = ''): Promise<number> {
    const { rows } = await LOG_CUTOFF.run(this.db, [accountId, endpointId, 1, keep], () =>
      this.db
        .selectFrom('webhook_deliveries')
        .select('seq')
        .where('account_id', '=', accountId)
        .where('endpoint_id', '=', endpointId)
        .orderBy('seq', 'desc')
        .offset(keep)
        .limit(1),
    );
    const cutoff = rows[0];
    if (!cutoff) return 0;
    // Only finished entries are dropped: a waiting message is never lost to the log's bound.
    const result = await this.db
      .deleteFrom('webhook_deliveries')
      .where('account_id', '=', accountId)
      .where('endpoint_id', '=', endpointId)
      .where('seq', '<=', cutoff.seq)
      .where('status', 'in', ['delivered', 'failed'])
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
