import { type Kysely, type Selectable, sql } from 'kysely';
import type { EventQuery, EventStore, SequencedEvent } from '../../../app/ports.ts';
import {
  ACTOR_KINDS,
  type Actor,
  type ActorKind,
  EVENT_TYPES,
  type EventType,
  eventIdFloor,
  GUEST_EVENT_TYPES,
  LOCK_METHODS,
  type LockEvent,
  type LockMethod,
} from '../../../domain/event.ts';
import { guestSees } from './guest-access.ts';
import { KeptSql } from './kept-sql.ts';
import type { Database, EventsTable } from './tables.ts';

const isActorKind = (v: string): v is ActorKind => (ACTOR_KINDS as readonly string[]).includes(v);
const isType = (v: string): v is EventType => (EVENT_TYPES as readonly string[]).includes(v);
const isMethod = (v: string | null): v is LockMethod =>
  v !== null && (LOCK_METHODS as readonly string[]).includes(v);

export function actorJson(actor: Actor): string {
  return JSON.stringify(actor);
}

export function actorFromJson(text: string | null): Actor | undefined {
  if (text === null) return undefined;
  try {
    const value = JSON.parse(text) as Partial<Actor>;
    if (typeof value.kind !== 'string' || !isActorKind(value.kind)) return undefined;
    return {
      kind: value.kind,
      ...(typeof value.accountId === 'string' ? { accountId: value.accountId } : {}),
      ...(typeof value.keyPrefix === 'string' ? { keyPrefix: value.keyPrefix } : {}),
      ...(typeof value.grantId === 'string' ? { grantId: value.grantId } : {}),
      ...(typeof value.appId === 'string' ? { appId: value.appId } : {}),
      ...(typeof value.appName === 'string' ? { appName: value.appName } : {}),
    };
  } catch {
    return undefined;
  }
}

function toEvent(row: Selectable<EventsTable>): LockEvent {
  let data: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(row.data);
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed))
      data = parsed as Record<string, unknown>;
  } catch {
    // Only this store writes the column; an unreadable value is shown as no data.
  }
  const kind = isActorKind(row.actor_kind) ? row.actor_kind : 'system';
  return {
    id: row.id,
    // Only known types are written; an unknown one (a newer server's) reads as the nearest kind.
    type: isType(row.type) ? row.type : 'lock.online',
    occurredAt: Number(row.occurred_at),
    accountId: row.account_id,
    deviceId: row.device_id,
    actor: {
      kind,
      ...(row.actor_account_id === null ? {} : { accountId: row.actor_account_id }),
      ...(row.actor_key_prefix === null ? {} : { keyPrefix: row.actor_key_prefix }),
      ...(row.actor_grant_id === null || row.actor_grant_id === undefined
        ? {}
        : { grantId: row.actor_grant_id }),
      ...(row.actor_app_id === null || row.actor_app_id === undefined ? {} : { appId: row.actor_app_id }),
      ...(row.actor_app_name === null || row.actor_app_name === undefined
        ? {}
        : { appName: row.actor_app_name }),
    },
    method: isMethod(row.method) ? row.method : null,
    taskId: row.task_id,
    data,
  };
}

/** An event's row, its columns in the order the insert names them. */
function eventRow(e: LockEvent, seq: number) {
  return {
    id: e.id,
    type: e.type,
    occurred_at: e.occurredAt,
    account_id: e.accountId,
    device_id: e.deviceId,
    actor_kind: e.actor.kind,
    actor_account_id: e.actor.accountId ?? null,
    actor_key_prefix: e.actor.keyPrefix ?? null,
    actor_grant_id: e.actor.grantId ?? null,
    actor_app_id: e.actor.appId ?? null,
    actor_app_name: e.actor.appName ?? null,
    method: e.method,
    task_id: e.taskId,
    data: JSON.stringify(e.data),
    seq,
  };
}

/**
 * The two statements that write events are the same on every command but for the values (kept-sql.ts):
 * the counter's, and the insert's per number of events up to MAX_KEPT_BATCH (a command's change
 * writes one to three; a larger batch, rare, is compiled each time).
 */
const TAKE = new KeptSql();
// The relay's read of the log, once a batch (kept-sql.ts).
const SINCE = new KeptSql();
const MAX_KEPT_BATCH = 16;
const INSERTS = Array.from({ length: MAX_KEPT_BATCH }, () => new KeptSql());

/**
 * Writes events with `db`, which is the transaction of the change they record, as its last
 * statement: taking positions locks the counter's row until the transaction ends (migration 012),
 * so positions follow commit order, and a transaction that takes no other lock after it cannot
 * deadlock on it. Outside a transaction (an event with no change) it opens its own.
 */
export async function insertEvents(db: Kysely<Database>, events: readonly LockEvent[]): Promise<void> {
  if (events.length === 0) return;
  if (!db.isTransaction) return db.transaction().execute((trx) => insertEvents(trx, events));
  const n = events.length;
  const taken = await TAKE.run<{ value: number | string | bigint }>(db, [n, 'events'], () =>
    db
      .updateTable('event_sequence')
      .set((eb) => ({ value: eb('value', '+', n) }))
      .where('name', '=', 'events')
      .returning('value'),
  );
  const last = taken.rows[0]?.value;
  if (last === undefined) throw new Error('the event log has no counter (migration 012)');
  const first = Number(last) - n + 1;
  const rows = events.map((e, i) => eventRow(e, first + i));
  const insert = () => db.insertInto('events').values(rows);
  const kept = INSERTS[n - 1];
  if (kept === undefined) await insert().execute();
  else
    await kept.run(
      db,
      rows.flatMap((row) => Object.values(row)),
      insert,
    );
}

/**
 * Runs `change` and writes its events in one transaction; with no events to write, just the change
 * (no transaction is opened for nothing).
 */
export function withEvents<T>(
  db: Kysely<Database>,
  events: boolean,
  change: (db: Kysely<Database>) => Promise<T>,
): Promise<T> {
  return events ? db.transaction().execute((trx) => change(trx)) : change(db);
}

export class SqlEventStore implements EventStore {
  constructor(private readonly db: Kysely<Database>) {}

  append(events: readonly LockEvent[]): Promise<void> {
    return insertEvents(this.db, events);
  }

  async list(query: EventQuery): Promise<LockEvent[]> {
    const desc = query.order === 'newest-first';
    let q = this.db.selectFrom('events').selectAll();
    if (query.deviceId !== undefined) {
      // One lock: walks the (device_id, id) index from the end asked for, whatever the log's size.
      const deviceId = query.deviceId;
      q = q
        .where('device_id', '=', deviceId)
        .where((eb) =>
          eb.or([
            eb('account_id', '=', query.readerId),
            eb.and([
              eb('type', 'in', [...GUEST_EVENT_TYPES]),
              eb.exists(
                eb
                  .selectFrom('grants')
                  .select('grants.device_id')
                  .where('grants.device_id', '=', deviceId)
                  .where(guestSees(query.readerId)),
              ),
            ]),
          ]),
        );
    } else {
      q = q.where((eb) =>
        eb.or([
          eb('account_id', '=', query.readerId),
          eb.and([
            eb('type', 'in', [...GUEST_EVENT_TYPES]),
            eb(
              'device_id',
              'in',
              eb.selectFrom('grants').select('grants.device_id').where(guestSees(query.readerId)),
            ),
          ]),
        ]),
      );
    }
    if (query.typePrefix !== undefined) {
      // Compared as text rather than LIKE: no wildcard in the prefix can widen it, and no collation bends it.
      const prefix = query.typePrefix;
      q = q.where(sql<string>`substr(type, 1, ${prefix.length})`, '=', prefix);
    }
    if (query.deviceIds !== undefined) q = q.where('device_id', 'in', [...query.deviceIds]);
    if (query.after !== undefined) q = q.where('id', '>', query.after);
    if (query.before !== undefined) q = q.where('id', '<', query.before);
    const rows = await q
      .orderBy('id', desc ? 'desc' : 'asc')
      .limit(query.limit)
      .execute();
    return rows.map(toEvent);
  }

  async since(seq: number, limit: number): Promise<SequencedEvent[]> {
    const { rows } = await SINCE.run(this.db, [seq, limit], () =>
      this.db.selectFrom('events').selectAll().where('seq', '>', seq).orderBy('seq', 'asc').limit(limit),
    );
    return rows.map((row) => ({ seq: Number(row.seq), event: toEvent(row) }));
  }

  async positionOf(id: string): Promise<number | undefined> {
    const row = await this.db.selectFrom('events').select('seq').where('id', '=', id).executeTakeFirst();
    return row === undefined ? undefined : Number(row.seq);
  }

  async head(): Promise<number> {
    const row = await this.db
      .selectFrom('event_sequence')
      .select('value')
      .where('name', '=', 'events')
      .executeTakeFirst();
    return row === undefined ? 0 : Number(row.value);
  }

  async purgeBefore(cutoff: number): Promise<number> {
    // Ids begin with their time: the purge is a range of the primary key.
    const result = await this.db
      .deleteFrom('events')
      .where('id', '<', eventIdFloor(cutoff))
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
