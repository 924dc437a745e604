import type { Cancel, Clock, DeviceTraffic, Logger } from '../app/ports.ts';
import type { SimDeviceState } from '../domain/sim-device.ts';
import { autoLockAt } from './lock-rules.ts';

/** What the access point did when a relock came due: relocked, waits for the door, or nothing. */
export type RelockOutcome = 'relocked' | 'wait' | 'none';

export interface AutoLockOptions {
  readonly apId: string;
  /** The relock comes due on this clock (the sandbox's, inside the server). */
  readonly clock: Clock;
  readonly logger: Logger;
  /** Counts the relock as in flight until its report is out (sandbox clock settling). */
  readonly inFlight?: DeviceTraffic;
  /** The access point relocks the lock and reports it, or says the door holds it back. */
  readonly relock: (deviceId: string) => Promise<RelockOutcome>;
}

/**
 * A simulated access point's auto-lock (device protocol 2): each unlocked lock relocks its setting's
 * seconds later, on the clock. A relock due while the door is open waits for the door to close, as
 * a real lock does rather than throwing its bolt into the frame. Kept apart from the access point,
 * which carries the relock out and tells this of every change of a lock.
 */
export class AutoLock {
  private readonly due = new Map<string, Cancel>();
  private readonly waitingForDoor = new Set<string>();

  constructor(private readonly options: AutoLockOptions) {}

  /**
   * Keeps the auto-lock in step with a change of the lock: an unlock starts its wait on the clock, a
   * lock ends it, and a door closing lets a relock that waited for it happen now.
   */
  follow(before: SimDeviceState, after: SimDeviceState): void {
    const id = after.deviceId;
    if (after.locked || after.autoLockSeconds <= 0) {
      this.cancel(id);
      return;
    }
    if (this.waitingForDoor.has(id) && before.door === 'open' && after.door !== 'open') {
      this.waitingForDoor.delete(id);
      void this.relock(id);
      return;
    }
    // Unlocked just now (or freed from a jam while unlocked): the wait starts.
    if (before.locked || (before.jammed && !after.jammed)) this.schedule(after);
  }

  /** The wait starts again from now (an unlock, or a new delay for a lock already unlocked). */
  schedule(device: SimDeviceState): void {
    const { clock, inFlight } = this.options;
    const id = device.deviceId;
    this.cancel(id);
    const at = autoLockAt(device, clock.now());
    if (at === undefined) return;
    const cancel = clock.at(at, () => {
      this.due.delete(id);
      inFlight?.begin(this.options.apId);
      void this.relock(id).finally(() => inFlight?.end(this.options.apId));
    });
    this.due.set(id, cancel);
  }

  cancel(deviceId: string): void {
    this.waitingForDoor.delete(deviceId);
    this.due.get(deviceId)?.();
    this.due.delete(deviceId);
  }

  /** Every wait ends (the access point stops, loses power or takes other states). */
  clear(): void {
    for (const cancel of this.due.values()) cancel();
    this.due.clear();
    this.waitingForDoor.clear();
  }

  private async relock(deviceId: string): Promise<void> {
    try {
      if ((await this.options.relock(deviceId)) === 'wait') this.waitingForDoor.add(deviceId);
    } catch (error) {
      this.options.logger.error({ apId: this.options.apId, err: error }, 'auto-lock failed');
    }
  }
}
