import type { DeviceTraffic } from '../../app/ports.ts';

/**
 * The DeviceTraffic port in memory: counts device-link messages between the server and the
 * simulated devices it runs itself. Only access points run in this process are counted; messages of
 * others pass untracked.
 */
export class InFlight implements DeviceTraffic {
  private readonly tracked = new Set<string>();
  private readonly counts = new Map<string, number>();
  private total = 0;
  private waiters: (() => void)[] = [];

  track(apId: string): void {
    this.tracked.add(apId);
  }

  untrack(apId: string): void {
    this.tracked.delete(apId);
    this.total -= this.counts.get(apId) ?? 0;
    this.counts.delete(apId);
    this.wake();
  }

  begin(apId: string): void {
    if (!this.tracked.has(apId)) return;
    this.counts.set(apId, (this.counts.get(apId) ?? 0) + 1);
    this.total++;
  }

  end(apId: string): void {
    const count = this.counts.get(apId) ?? 0;
    // A QoS 1 redelivery is handled twice but published once: never count below zero.
    if (count === 0) return;
    this.counts.set(apId, count - 1);
    this.total--;
    this.wake();
  }

  idle(timeoutMs: number): Promise<void> {
    if (this.total === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(done, timeoutMs);
      timer.unref();
      const self = this;
      function done(): void {
        clearTimeout(timer);
        self.waiters = self.waiters.filter((w) => w !== done);
        resolve();
      }
      this.waiters.push(done);
    });
  }

  private wake(): void {
    if (this.total > 0) return;
    const waiters = this.waiters;
    this.waiters = [];
    for (const waiter of waiters) waiter();
  }
}
