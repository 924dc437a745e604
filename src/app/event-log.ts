/**
 * The event log's use cases: giving each event its id and time (through the injectable clock and
 * random source), reading the log as an account may see it, and forgetting what is past retention.
 * The events themselves are written by the stores, in the transaction of their change.
 */
import { DomainError } from '../domain/errors.ts';
import { type EventDraft, formatEventId, isEventId, type LockEvent, redactFor } from '../domain/event.ts';
import type { Clock, EventOrder, EventStore, RandomSource } from './ports.ts';

export const DEFAULT_EVENT_RETENTION_DAYS = 90;
const DAY_MS = 24 * 60 * 60 * 1000;

export const DEFAULT_EVENT_LIMIT = 50;
export const MAX_EVENT_LIMIT = 500;

export interface EventFilters {
  readonly deviceId?: string | undefined;
  readonly type?: string | undefined;
  readonly after?: string | undefined;
  readonly before?: string | undefined;
  readonly limit?: number | undefined;
  readonly order?: EventOrder | undefined;
  /** Where the last page ended (its `next_cursor`): the page after it, in the same order. */
  readonly cursor?: string | undefined;
  /**
   * The reading API key's locks (null or absent: every lock): a key limited to locks reads their
   * events only, not the account's own, which tell of no lock (docs/security.md).
   */
  readonly lockIds?: readonly string[] | null | undefined;
}

export interface EventPage {
  readonly events: readonly LockEvent[];
  /** Pass as `cursor` for the next page; null when this page is the last for now. */
  readonly nextCursor: string | null;
}

const TYPE_PREFIX = /^[a-z_.]{1,64}$/;
const DEVICE_ID = /^[A-Za-z0-9_-]{1,128}$/;

function invalid(field: string, message: string): never {
  throw new DomainError('INVALID_INPUT', `${field}: ${message}`, { field });
}

/** The `type` and `device_id` filters, checked as GET /ext/events and the live stream both check them. */
export function checkEventFilters(filters: {
  readonly type?: string | undefined;
  readonly deviceId?: string | undefined;
}): void {
  if (filters.type !== undefined && !TYPE_PREFIX.test(filters.type))
    invalid('type', 'must be an event type or its start (lowercase letters, "_" and ".", up to 64)');
  if (filters.deviceId !== undefined && !DEVICE_ID.test(filters.deviceId))
    invalid('device_id', 'must be a lock id (letters, digits, "-" and "_", up to 128)');
}

export function eventIdParam(field: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (!isEventId(value)) invalid(field, 'must be an event id (evt_ and 28 lowercase hex digits)');
  return value;
}

export class EventLog {
  private lastMs = -1;
  private counter = 0;

  constructor(
    private readonly store: EventStore,
    private readonly clock: Clock,
    private readonly random: RandomSource,
    private readonly retentionDays: number = DEFAULT_EVENT_RETENTION_DAYS,
  ) {}

  /**
   * Gives an event its id and time. Ids made by this process strictly increase, also within one
   * millisecond and should the clock read earlier than before (a sandbox reset): the counter does.
   */
  stamp(draft: EventDraft): LockEvent {
    const now = this.clock.now();
    if (now > this.lastMs) {
      this.lastMs = now;
      this.counter = 0;
    } else {
      this.counter++;
    }
    const randomHex = this.random.uuid().replace(/-/g, '');
    return { ...draft, id: formatEventId(this.lastMs, this.counter, randomHex), occurredAt: now };
  }

  stampAll(drafts: readonly EventDraft[]): LockEvent[] {
    return drafts.map((draft) => this.stamp(draft));
  }

  /** Events with no other change to go with (a failed login). */
  append(drafts: readonly EventDraft[]): Promise<void> {
    return this.store.append(this.stampAll(drafts));
  }

  /**
   * A page of the log as `readerId` may see it: its own account's events and its locks', and the lock
   * events of locks shared with it, with the owner's side of the actor left out (domain/event.ts).
   */
  async list(readerId: string, filters: EventFilters): Promise<EventPage> {
    const limit = filters.limit ?? DEFAULT_EVENT_LIMIT;
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_EVENT_LIMIT)
      invalid('limit', `must be a whole number from 1 to ${MAX_EVENT_LIMIT}`);
    const order = filters.order ?? 'oldest-first';
    if (order !== 'oldest-first' && order !== 'newest-first')
      invalid('order', 'must be oldest-first or newest-first');
    checkEventFilters(filters);
    let after = eventIdParam('after', filters.after);
    let before = eventIdParam('before', filters.before);
    if (after !== undefined && before !== undefined && after >= before)
      invalid('before', 'must be later than after');
    const cursor = eventIdParam('cursor', filters.cursor);
    if (cursor !== undefined) {
      // The cursor is the last event of the previous page: the next one starts past it.
      if (order === 'oldest-first') after = after === undefined || cursor > after ? cursor : after;
      else before = before === undefined || cursor < before ? cursor : before;
    }
    const lockIds = filters.lockIds ?? null;
    const wanted = filters.deviceId?.toLowerCase();
    // A lock outside the key's is one it has no events of: an empty page, as for a lock with none.
    if (lockIds !== null && wanted !== undefined && !lockIds.includes(wanted))
      return { events: [], nextCursor: null };
    const rows = await this.store.list({
      readerId,
      ...(lockIds === null || wanted !== undefined ? {} : { deviceIds: lockIds }),
      ...(wanted === undefined ? {} : { deviceId: wanted }),
      ...(filters.type === undefined ? {} : { typePrefix: filters.type }),
      ...(after === undefined ? {} : { after }),
      ...(before === undefined ? {} : { before }),
      // One more than asked: whether a next page exists, without a count.
      limit: limit + 1,
      order,
    });
    const page = rows.slice(0, limit).map((event) => redactFor(event, readerId));
    const last = page.at(-1);
    return { events: page, nextCursor: rows.length > limit && last ? last.id : null };
  }

  /** Forgets events older than the retention (HourlyPurges). */
  purge(now: number): Promise<number> {
    return this.store.purgeBefore(now - this.retentionDays * DAY_MS);
  }
}
