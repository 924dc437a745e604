/**
 * The live stream's use case (docs/events.md, "The live stream"): each reader's view of the log as it
 * grows, with GET /ext/events's visibility and filters, resumable by event id with no gap and no
 * duplicate. The process's one EventFollower reads the log and hands each batch here once; the
 * StreamIndex takes each event to the streams it concerns; this decides what each reader gets.
 */
import { DomainError } from '../domain/errors.ts';
import { GUEST_EVENT_TYPES, guestView, type LockEvent } from '../domain/event.ts';
import type { EventFollower } from './event-follower.ts';
import { checkEventFilters, eventIdParam } from './event-log.ts';
import type { Cancel, Clock, EventStore, LockStore, SequencedEvent } from './ports.ts';
import { type IndexedStream, StreamIndex } from './stream-index.ts';

export type StreamCloseReason = 'too_slow' | 'shutting_down' | 'unauthorized';

/** Where a stream's events go: the HTTP response. */
export interface StreamSink {
  /** The event as the reader may see it (already redacted). */
  event(event: LockEvent): void;
  heartbeat(): void;
  /** Resolves once the client has taken what was sent: the backlog is read no faster than it reads. */
  ready(): Promise<void>;
  /** The server ends the stream; `lastEventId` is the last event sent (or the resume id), for resuming. */
  close(reason: StreamCloseReason, lastEventId: string | null): void;
}

export interface StreamRequest {
  readonly deviceId?: string | undefined;
  readonly type?: string | undefined;
  /** Resume after this event (Last-Event-ID); none: only events committed from now on. */
  readonly lastEventId?: string | undefined;
  /** The API key the stream was opened with: its deletion ends the stream `unauthorized`. */
  readonly keyId?: string | undefined;
  /** The key's locks (null or absent: every lock): a lock-limited key sees only their events. */
  readonly lockIds?: readonly string[] | null | undefined;
  /** When the key expires (epoch ms): the stream ends `unauthorized` then, as at its deletion. */
  readonly expiresAt?: number | null | undefined;
}

export interface StreamLimits {
  /** Streams one account may hold open on one process at once. */
  readonly perAccount: number;
  /** Real time between heartbeats. */
  readonly heartbeatMs: number;
  /** A client leaving more than this unread (past the socket's buffers) is closed `too_slow`. */
  readonly bufferBytes: number;
}

export const DEFAULT_STREAM_LIMITS: StreamLimits = {
  perAccount: 20,
  heartbeatMs: 15_000,
  bufferBytes: 1024 * 1024,
};

/** An opened stream: start() sends the backlog (if resuming) then the live events. */
export interface OpenedStream {
  start(): Promise<void>;
  /** The client went away (or the sink closed it): forgets it. */
  end(): void;
  /** Ends it from the server's side with a reason. */
  close(reason: StreamCloseReason): void;
}

const GUEST_TYPES = new Set<string>(GUEST_EVENT_TYPES);
const BACKFILL_PAGE = 500;

// A guest's view of an event is the same for every guest: made once per event, so that the surface
// writes one frame for all of them (it keeps one per event object).
const guestViews = new WeakMap<LockEvent, LockEvent>();
function shownTo(event: LockEvent, readerId: string): LockEvent {
  if (event.accountId === readerId) return event;
  let view = guestViews.get(event);
  if (view === undefined) {
    view = guestView(event);
    guestViews.set(event, view);
  }
  return view;
}

function invalid(field: string, message: string): never {
  throw new DomainError('INVALID_INPUT', `${field}: ${message}`, { field });
}

export class EventStreams {
  private readonly open = new Set<OpenedStream & { heartbeat(): void }>();
  private readonly perAccount = new Map<string, number>();
  private readonly index = new StreamIndex();
  private following: Promise<unknown> | undefined;
  private heartbeat: Cancel | undefined;
  private closing = false;

  constructor(
    private readonly follower: EventFollower,
    private readonly events: EventStore,
    private readonly locks: LockStore,
    private readonly clock: Clock,
    private readonly limits: StreamLimits = DEFAULT_STREAM_LIMITS,
  ) {}

  /** What the surfaces hold a stream's client to (too_slow). */
  get bufferBytes(): number {
    return this.limits.bufferBytes;
  }

  /** Streams open on this process (for tests and metrics). */
  get count(): number {
    return this.open.size;
  }

  /**
   * Checks the request and registers the stream (its live events wait in a buffer until start()).
   * Throws the request's error before anything is sent: bad filters or resume id, too many streams.
   */
  async openStream(readerId: string, request: StreamRequest, sink: StreamSink): Promise<OpenedStream> {
    checkEventFilters(request);
    const resumeId = eventIdParam('last_event_id', request.lastEventId);
    if (this.closing)
      throw new DomainError('THROTTLED', 'the server is shutting down', { retryAfterSeconds: 1 });
    const held = this.perAccount.get(readerId) ?? 0;
    if (held >= this.limits.perAccount)
      throw new DomainError(
        'THROTTLED',
        `at most ${this.limits.perAccount} event streams at once per account: close one first`,
        { retryAfterSeconds: 1 },
      );
    this.perAccount.set(readerId, held + 1);
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      const n = (this.perAccount.get(readerId) ?? 1) - 1;
      if (n <= 0) this.perAccount.delete(readerId);
      else this.perAccount.set(readerId, n);
    };
    try {
      const stream = await this.register(readerId, request, resumeId, sink, release);
      if (this.closing) {
        // closeAll() ran while this one was being opened.
        stream.end();
        throw new DomainError('THROTTLED', 'the server is shutting down', { retryAfterSeconds: 1 });
      }
      return stream;
    } catch (error) {
      release();
      throw error;
    }
  }

  /** Ends every stream with `shutting_down` (the server stops); no new one opens. */
  closeAll(): void {
    this.closing = true;
    for (const stream of [...this.open]) stream.close('shutting_down');
    this.heartbeat?.();
    this.heartbeat = undefined;
  }

  /** The process's streams hear the follower through one subscription, made by the first stream. */
  private follow(): Promise<unknown> {
    this.following ??= this.follower
      .subscribe((batch) => this.index.dispatch(batch))
      .catch((error: unknown) => {
        // The next stream tries again (the database was away).
        this.following = undefined;
        throw error;
      });
    return this.following;
  }

  private async register(
    readerId: string,
    request: StreamRequest,
    resumeId: string | undefined,
    sink: StreamSink,
    release: () => void,
  ): Promise<OpenedStream> {
    const deviceId = request.deviceId?.toLowerCase();
    const lockIds = request.lockIds;
    const type = request.type;
    // Positions of the events already sent; the buffer holds live batches while the backlog is read.
    let sent = 0;
    let lastId: string | null = resumeId ?? null;
    let buffer: SequencedEvent[] | undefined = [];
    let ended = false;
    let shared = new Set<string>();
    let stream: (OpenedStream & { heartbeat(): void }) | undefined;
    const indexed: IndexedStream = {
      readerId,
      take: (item) => {
        if (buffer === undefined) deliver(item);
        else buffer.push(item);
      },
    };

    // What GET /ext/events would list to this reader, its filters aside.
    const sees = (e: LockEvent): boolean =>
      e.accountId === readerId || (e.deviceId !== null && GUEST_TYPES.has(e.type) && shared.has(e.deviceId));
    const visible = (e: LockEvent): LockEvent | undefined => {
      // Access changes in log order: a grant revoked mid-stream hides the lock's later events, one
      // accepted shows them from the next on, as GET /ext/events would list them.
      const change = guestAccessChange(e, readerId);
      if (change !== undefined) {
        if (change.sees) shared.add(change.deviceId);
        else shared.delete(change.deviceId);
        this.index.share(indexed, change.deviceId, change.sees);
      }
      if (deviceId !== undefined && e.deviceId !== deviceId) return undefined;
      // A key limited to locks sees their events only: not the account's own (no lock), as on GET.
      if (lockIds != null && (e.deviceId === null || !lockIds.includes(e.deviceId))) return undefined;
      if (type !== undefined && !e.type.startsWith(type)) return undefined;
      return sees(e) ? shownTo(e, readerId) : undefined;
    };
    // The stream's credential ended: its key deleted, or (an OAuth token, whose keyId is its
    // consent's grant) the consent withdrawn or replaced by a new one.
    const revokes = (e: LockEvent): boolean =>
      request.keyId !== undefined &&
      e.accountId === readerId &&
      ((e.type === 'api_key.deleted' && e.data.key_id === request.keyId) ||
        (e.type === 'oauth_app.revoked' && e.data.grant_id === request.keyId) ||
        (e.type === 'oauth_app.authorized' && e.data.replaced_grant_id === request.keyId));
    // The events past `sent`, each once: the backlog's pages and the live events overlap.
    const deliver = ({ seq, event }: SequencedEvent) => {
      if (ended || seq <= sent) return;
      sent = seq;
      if (revokes(event)) {
        stream?.close('unauthorized');
        return;
      }
      const shown = visible(event);
      if (shown === undefined) return;
      lastId = event.id;
      sink.event(shown);
    };

    await this.follow();
    // No batch is handed out between these two lines: the stream hears every event past `position`.
    const position = this.follower.position;
    this.index.add(indexed, position);
    try {
      shared = await this.sharedWith(readerId);
      for (const deviceId of shared) this.index.share(indexed, deviceId, true);
      sent = resumeId === undefined ? position : await this.resumePosition(resumeId, sees);
    } catch (error) {
      this.index.remove(indexed);
      throw error;
    }

    let cancelExpiry: (() => void) | undefined;
    const end = () => {
      if (ended) return;
      ended = true;
      cancelExpiry?.();
      this.index.remove(indexed);
      if (stream !== undefined) this.open.delete(stream);
      release();
      if (this.open.size === 0) {
        this.heartbeat?.();
        this.heartbeat = undefined;
      }
    };
    stream = {
      start: async () => {
        try {
          // The backlog, by position, until the store has no more; then what arrived meanwhile.
          for (;;) {
            await sink.ready();
            if (ended) break;
            const page = await this.events.since(sent, BACKFILL_PAGE);
            for (const item of page) deliver(item);
            if (ended || page.length < BACKFILL_PAGE) break;
          }
        } finally {
          const waiting = buffer ?? [];
          buffer = undefined;
          for (const item of waiting) deliver(item);
          // Its shares are now those as of the live position: only what concerns it from here on.
          if (!ended) this.index.settle(indexed);
        }
      },
      end,
      heartbeat: () => sink.heartbeat(),
      close: (reason) => {
        if (ended) return;
        end();
        sink.close(reason, lastId);
      },
    };
    this.open.add(stream);
    // An expiring key's stream ends when the key does (on the injectable clock, which the sandbox moves).
    if (request.expiresAt != null)
      cancelExpiry = this.clock.at(request.expiresAt, () => stream?.close('unauthorized'));
    this.heartbeat ??= this.clock.every(this.limits.heartbeatMs, () => this.beat());
    return stream;
  }

  private beat(): void {
    for (const stream of this.open) stream.heartbeat();
  }

  /** The locks shared with the reader (not its own): whose lock events it sees, redacted. */
  private async sharedWith(readerId: string): Promise<Set<string>> {
    const locks = await this.locks.listVisibleTo(readerId);
    return new Set(locks.filter((l) => l.ownerId !== readerId).map((l) => l.deviceId));
  }

  /**
   * Where a resume starts. An id the log no longer holds that is older than its oldest event was
   * purged: from the oldest. Otherwise the reader must be able to see it (GET /ext/events would list it).
   */
  private async resumePosition(id: string, sees: (e: LockEvent) => boolean): Promise<number> {
    const position = await this.events.positionOf(id);
    if (position === undefined) {
      const [oldest] = await this.events.since(0, 1);
      if (oldest === undefined || id < oldest.event.id) return 0;
      return invalid('last_event_id', 'unknown event');
    }
    const [found] = await this.events.since(position - 1, 1);
    // Its filters aside: a reader may narrow them when it resumes.
    if (found === undefined || found.seq !== position || !sees(found.event))
      return invalid('last_event_id', 'unknown event');
    return position;
  }
}

/**
 * Whether the event changes which lock the reader sees as a guest, and how. A grant event's copy in
 * the guest's log names the lock in its data and the grant's state after the change: the guest sees
 * the lock while a grant of it is accepted (what the store's lock list holds to), and not once it
 * is declined, revoked or used up. A share of before grants says so by its type.
 */
function guestAccessChange(
  e: LockEvent,
  readerId: string,
): { readonly deviceId: string; readonly sees: boolean } | undefined {
  if ((e.type === 'share.created' || e.type === 'share.removed') && e.data.account_id === readerId)
    return e.deviceId === null ? undefined : { deviceId: e.deviceId, sees: e.type === 'share.created' };
  if (e.type.startsWith('grant.') && e.accountId === readerId && e.deviceId === null) {
    const { device_id: deviceId, state } = e.data;
    if (typeof deviceId === 'string' && typeof state === 'string')
      return { deviceId, sees: state === 'accepted' };
  }
  return undefined;
}
