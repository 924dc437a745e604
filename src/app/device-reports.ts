import { applyReport, isFreshReport, type LockReport, type ReportMark } from '../domain/lock.ts';
import { KeyedQueue } from './keyed-queue.ts';
import type { Clock, EventBus, LockStore, Logger } from './ports.ts';

// Each retry follows a write by another process; a lock's reports come at human pace, so a handful
// of conflicts in a row means something is wrong, not busy.
const MAX_WRITE_ATTEMPTS = 8;

/**
 * Device reports are the truth about a lock: they replace the stored status, and a change of state
 * is announced. Several processes may apply reports of the same lock (the broker hands each message
 * to one of them), so each write is a compare-and-set on the lock's status version: a change is
 * announced by the one process whose write made it, and a report older than the one applied last
 * (by any process) changes nothing.
 */
export class DeviceReports {
  // In one process the reports of a lock queue up rather than race each other's compare-and-set.
  private readonly queue = new KeyedQueue();

  constructor(
    private readonly locks: LockStore,
    private readonly events: EventBus,
    private readonly clock: Clock,
    private readonly logger?: Logger,
  ) {}

  /** Applies a report; `mark` is where it sits in its access point's count (absent: the cloud's own conclusion). */
  apply(deviceId: string, report: LockReport, mark?: ReportMark): Promise<void> {
    return this.queue.run(deviceId, async () => {
      for (let attempt = 0; attempt < MAX_WRITE_ATTEMPTS; attempt++) {
        const seen = await this.locks.readStatus(deviceId);
        if (!seen) return; // a device the cloud does not know (yet); nothing to update
        if (mark && !isFreshReport(seen.mark, mark)) return;
        const { lock: next, changed, stateChanged } = applyReport(seen.lock, report);
        // A fresh report that changes nothing still moves the mark, so an older one cannot follow it.
        if (!changed && !mark) return;
        const written = await this.locks.writeStatusIf(deviceId, seen.version, next, mark ?? seen.mark);
        if (!written) continue;
        if (stateChanged) {
          this.events.lockStateChanged({
            deviceId,
            ownerId: seen.lock.ownerId,
            locked: next.locked,
            at: this.clock.now(),
          });
        }
        return;
      }
      this.logger?.warn({ deviceId }, 'a lock report lost every compare-and-set race: dropped');
    });
  }
}
