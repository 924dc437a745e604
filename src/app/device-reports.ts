import { applyReport, type LockReport } from '../domain/lock.ts';
import { KeyedQueue } from './keyed-queue.ts';
import type { Clock, EventBus, LockStore } from './ports.ts';

/** Device reports are the truth about a lock: they replace the stored status, and a change of state is announced. */
export class DeviceReports {
  private readonly queue = new KeyedQueue();

  constructor(
    private readonly locks: LockStore,
    private readonly events: EventBus,
    private readonly clock: Clock,
  ) {}

  apply(deviceId: string, report: LockReport): Promise<void> {
    return this.queue.run(deviceId, async () => {
      const lock = await this.locks.get(deviceId);
      if (!lock) return; // a device the cloud does not know (yet); nothing to update
      const { lock: next, changed, stateChanged } = applyReport(lock, report);
      if (!changed) return;
      await this.locks.update(deviceId, {
        locked: next.locked,
        battery: next.battery,
        responsive: next.responsive,
        appOpen: next.appOpen,
      });
      if (stateChanged) {
        this.events.lockStateChanged({
          deviceId,
          ownerId: lock.ownerId,
          locked: next.locked,
          at: this.clock.now(),
        });
      }
    });
  }
}
