/**
 * One reader of the event log per process, for every live stream in it (docs/events.md, "The live
 * stream"): it remembers the last position it read and, on each wake-up, reads what follows ONCE,
 * handing each batch to every subscriber. A thousand streams cost one query per wake-up, not a
 * thousand. It follows positions (commit order), never ids: ids are not commit-ordered across
 * processes.
 */
import type { Cancel, Clock, EventBus, EventStore, SequencedEvent } from './ports.ts';

export type BatchListener = (batch: readonly SequencedEvent[]) => void;

export interface FollowerOptions {
  /**
   * The safety poll, in real time: what wakes the follower for a writer that announces nothing (the
   * admin CLI on SQLite, a share or key change). Lock changes and ended tasks wake it at once.
   */
  readonly pollMs?: number;
  /** Events read per query; a longer backlog is read in several. */
  readonly batch?: number;
}

export const DEFAULT_FOLLOWER_POLL_MS = 1000;
const DEFAULT_BATCH = 500;

export class EventFollower {
  private readonly listeners = new Set<BatchListener>();
  private last: number | undefined;
  private starting: Promise<void> | undefined;
  private reading = false;
  private again = false;
  private stopped = false;
  private readonly cancels: Cancel[] = [];
  private readonly pollMs: number;
  private readonly batch: number;

  constructor(
    private readonly store: EventStore,
    private readonly clock: Clock,
    private readonly bus: EventBus,
    private readonly onError: (error: unknown) => void,
    options: FollowerOptions = {},
  ) {
    this.pollMs = options.pollMs ?? DEFAULT_FOLLOWER_POLL_MS;
    this.batch = options.batch ?? DEFAULT_BATCH;
  }

  /**
   * Hears every batch read from now on. `position` is where the follower stood when the listener
   * joined: every later batch holds exactly the events after it, in order, without a gap.
   */
  async subscribe(listener: BatchListener): Promise<{ position: number; cancel: Cancel }> {
    await this.start();
    this.listeners.add(listener);
    return { position: this.last ?? 0, cancel: () => this.listeners.delete(listener) };
  }

  /**
   * Where the follower stands: the position of the last event handed out. A listener that notes it
   * between two batches gets every event after it from the next batch on.
   */
  get position(): number {
    return this.last ?? 0;
  }

  /** Reads what was committed since the last read; wake-ups while a read runs make one more read. */
  wake(): void {
    if (this.stopped || this.last === undefined) return;
    if (this.reading) {
      this.again = true;
      return;
    }
    this.reading = true;
    void this.readAll().finally(() => {
      this.reading = false;
    });
  }

  stop(): void {
    this.stopped = true;
    for (const cancel of this.cancels.splice(0)) cancel();
    this.listeners.clear();
  }

  /** Started by the first stream: a process that serves none reads nothing. */
  private start(): Promise<void> {
    this.starting ??= (async () => {
      this.last = await this.store.head();
      if (this.stopped) return;
      const wake = () => this.wake();
      this.cancels.push(
        this.clock.every(this.pollMs, wake),
        this.bus.onLockStateChanged(wake),
        this.bus.onTaskEnded(wake),
      );
    })().catch((error: unknown) => {
      // The next stream tries again (the database was away).
      this.starting = undefined;
      throw error;
    });
    return this.starting;
  }

  private async readAll(): Promise<void> {
    try {
      do {
        this.again = false;
        for (;;) {
          const from = this.last ?? 0;
          const batch = await this.store.since(from, this.batch);
          if (this.stopped || batch.length === 0) break;
          this.last = batch.at(-1)?.seq ?? from;
          for (const listener of [...this.listeners]) {
            try {
              listener(batch);
            } catch (error) {
              this.onError(error);
            }
          }
          if (batch.length < this.batch) break;
        }
      } while (this.again && !this.stopped);
    } catch (error) {
      // The database away: the next wake-up (at the latest the poll) reads from the same position.
      this.onError(error);
    }
  }
}
