/**
 * Which of a process's live streams an event of the log concerns (docs/events.md, "The live
 * stream"), so that a batch visits the streams it names and not every stream of the process: a
 * thousand streams of a thousand accounts cost one look per event, not a thousand.
 *
 * A stream of reader R is concerned by an event of R's account, by a share made or ended for R (it
 * changes what R sees) and by a lock event of a lock shared with R. A stream still catching up (its
 * backlog being read, its shares not yet known as of the live position) takes every event until it
 * settles: what concerns it is known only once it has read up to the live events.
 */
import { GUEST_EVENT_TYPES } from '../domain/event.ts';
import type { SequencedEvent } from './ports.ts';

export interface IndexedStream {
  readonly readerId: string;
  /** One event of the log: in position order, never the same one twice. */
  take(event: SequencedEvent): void;
}

interface Entry {
  readonly stream: IndexedStream;
  /**
   * The position of the last event handed to it (or where it joined): an event reached by two keys
   * is taken once, and one added during a batch takes none of the batch (the follower already stood
   * past it).
   */
  last: number;
  settled: boolean;
  readonly guestOf: Set<string>;
}

const GUEST_TYPES = new Set<string>(GUEST_EVENT_TYPES);

export class StreamIndex {
  private readonly entries = new Map<IndexedStream, Entry>();
  private readonly catchingUp = new Set<Entry>();
  private readonly byReader = new Map<string, Set<Entry>>();
  private readonly byGuestLock = new Map<string, Set<Entry>>();

  /** Streams indexed (for tests). */
  get size(): number {
    return this.entries.size;
  }

  /** A new stream: it takes every event past `position` (the follower's) until settle(). */
  add(stream: IndexedStream, position: number): void {
    if (this.entries.has(stream)) return;
    const entry: Entry = { stream, last: position, settled: false, guestOf: new Set() };
    this.entries.set(stream, entry);
    this.catchingUp.add(entry);
  }

  /** The stream has caught up: from now on it takes only the events that concern it. */
  settle(stream: IndexedStream): void {
    const entry = this.entries.get(stream);
    if (entry === undefined || entry.settled) return;
    entry.settled = true;
    this.catchingUp.delete(entry);
    join(this.byReader, stream.readerId, entry);
  }

  /** A lock shared with the stream's reader (or no longer): its lock events concern the stream. */
  share(stream: IndexedStream, deviceId: string, shared: boolean): void {
    const entry = this.entries.get(stream);
    if (entry === undefined) return;
    if (shared) {
      entry.guestOf.add(deviceId);
      join(this.byGuestLock, deviceId, entry);
    } else {
      entry.guestOf.delete(deviceId);
      leave(this.byGuestLock, deviceId, entry);
    }
  }

  remove(stream: IndexedStream): void {
    const entry = this.entries.get(stream);
    if (entry === undefined) return;
    this.entries.delete(stream);
    this.catchingUp.delete(entry);
    leave(this.byReader, stream.readerId, entry);
    for (const deviceId of entry.guestOf) leave(this.byGuestLock, deviceId, entry);
  }

  /**
   * Hands each event to the streams it concerns, event by event: a share made early in a batch
   * brings the lock's later events of the same batch to the guest's streams. A stream that throws
   * does not keep the batch from the others; the first error is thrown once the batch is handed out.
   */
  dispatch(batch: readonly SequencedEvent[]): void {
    let failure: { error: unknown } | undefined;
    const visit = (entries: Set<Entry> | undefined, item: SequencedEvent): void => {
      if (entries === undefined) return;
      // A stream removed meanwhile is skipped; one added meanwhile joined past `item` (its `last`).
      for (const entry of entries) {
        if (entry.last >= item.seq || !this.entries.has(entry.stream)) continue;
        entry.last = item.seq;
        try {
          entry.stream.take(item);
        } catch (error) {
          failure ??= { error };
        }
      }
    };
    for (const item of batch) {
      const { event } = item;
      visit(this.catchingUp, item);
      visit(this.byReader.get(event.accountId), item);
      if (event.type === 'share.created' || event.type === 'share.removed') {
        const guest = event.data.account_id;
        if (typeof guest === 'string') visit(this.byReader.get(guest), item);
      }
      if (event.deviceId !== null && GUEST_TYPES.has(event.type))
        visit(this.byGuestLock.get(event.deviceId), item);
    }
    if (failure !== undefined) throw failure.error;
  }
}

function join(map: Map<string, Set<Entry>>, key: string, entry: Entry): void {
  let entries = map.get(key);
  if (entries === undefined) {
    entries = new Set();
    map.set(key, entries);
  }
  entries.add(entry);
}

function leave(map: Map<string, Set<Entry>>, key: string, entry: Entry): void {
  const entries = map.get(key);
  if (entries === undefined) return;
  entries.delete(entry);
  if (entries.size === 0) map.delete(key);
}
