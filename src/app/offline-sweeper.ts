import { offlineEvent } from '../domain/event.ts';
import type { EventLog } from './event-log.ts';
import type { Cancel, Clock, LockStore, Logger } from './ports.ts';

/** How often, on the clock, every process looks for outages to announce (docs/events.md). */
export const OFFLINE_SWEEP_MS = 5_000;
/** --offline-grace-seconds' default: a reconnect within a minute is no outage. */
export const DEFAULT_OFFLINE_GRACE_MS = 60_000;
/** Locks announced per store read; more wait for the next read of the same round. */
const BATCH = 100;

/**
 * Writes lock.offline for the locks that stayed out of reach for the grace period: a short reconnect
 * is not an outage (issue 22). A device report only starts an outage's clock (health.ts reachAfter);
 * this announces it, each one once across every process: the announcement is a compare-and-set on
 * the outage (LockStore.announceOffline), and its event is written in that transaction.
 *
 * It looks every OFFLINE_SWEEP_MS of the clock (a report made on another process, a restart), and
 * at the moment an outage this process saw begin becomes due (`lost`): so moving the sandbox clock
 * past the grace period announces it within that move.
 */
export class OfflineSweeper {
  private cancelLoop: Cancel | undefined;
  private readonly dueTimers = new Set<Cancel>();
  /** Moved by start and stop: a round that ends after a stop arms nothing. */
  private generation = 0;
  private running: Promise<void> | undefined;
  private again = false;

  constructor(
    private readonly locks: Pick<LockStore, 'listOfflineDue' | 'announceOffline'>,
    private readonly log: EventLog,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly graceMs: number,
  ) {}

  start(): void {
    this.stop();
    const generation = this.generation;
    // Outages a previous run left unannounced, at once.
    void this.round();
    this.schedule(generation);
  }

  stop(): void {
    this.generation++;
    this.cancelLoop?.();
    this.cancelLoop = undefined;
    for (const cancel of this.dueTimers) cancel();
    this.dueTimers.clear();
  }

  /** A report this process wrote lost the lock at `since`: its outage is due at since + grace. */
  lost(since: number): void {
    if (this.cancelLoop === undefined) return; // not started (a unit test of other things), or stopped
    const cancel = this.clock.at(since + this.graceMs, () => {
      this.dueTimers.delete(cancel);
      void this.round();
    });
    this.dueTimers.add(cancel);
  }

  /** Resolves once the round under way (if any) is over: for a caller that moved the clock. */
  settled(): Promise<void> {
    return this.running ?? Promise.resolve();
  }

  /**
   * Announces every outage due now. Never rejects: a failure (the database away) is logged and the
   * next round tries again. Rounds do not overlap: one asked for while one runs follows it.
   */
  round(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      do {
        this.again = false;
        try {
          await this.announceDue();
        } catch (error) {
          this.logger.warn({ err: error }, 'announcing offline locks failed; the next round tries again');
        }
      } while (this.again);
    })().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async announceDue(): Promise<void> {
    const cutoff = this.clock.now() - this.graceMs;
    for (;;) {
      const due = await this.locks.listOfflineDue(cutoff, BATCH);
      let changed = 0;
      for (const lock of due) {
        if (lock.offlineSince === null) continue;
        const event = this.log.stamp(offlineEvent(lock.ownerId, lock.deviceId));
        // False: another process announced it, or a report brought the lock back meanwhile.
        if (await this.locks.announceOffline(lock.deviceId, lock.offlineSince, [event])) changed++;
      }
      // A full batch that moved nothing would be read again as it is: the next round retries.
      if (due.length < BATCH || changed === 0) return;
    }
  }

  private schedule(generation: number): void {
    this.cancelLoop = this.clock.at(this.clock.now() + OFFLINE_SWEEP_MS, () => {
      void this.round().then(() => {
        if (generation === this.generation) this.schedule(generation);
      });
    });
  }
}
