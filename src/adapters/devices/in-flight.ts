import type { DeviceTraffic } from '../../app/ports.ts';

/**
 * The DeviceTraffic port in memory: counts device-link messages between the server and the
 * simulated devices it runs itself. Only access points run in this process are counted; messages of
 * others pass untracked.
 *
 * A message can be lost on the way: an access point's connection that drops under load (a missed
 * keep-alive) takes the QoS 1 messages still on it along. An idle() that runs out therefore forgets
 * the messages that were already out when it began: they have had its whole timeout to arrive. Without
 * that, one lost message made every later settle wait its full timeout, for the life of the process
 * (a sandbox reset took 10 s on a loaded machine).
 */
export class InFlight implements DeviceTraffic {
  private readonly tracked = new Set<string>();
  /** Per access point, the sequence numbers of its messages in flight, oldest first. */
  private readonly out = new Map<string, number[]>();
  private sent = 0;
  private total = 0;
  private waiters: (() => void)[] = [];

  /** `onLost`: told how many messages an idle() gave up on, and whose. */
  constructor(private readonly onLost?: (count: number, apIds: string[]) => void) {}

  track(apId: string): void {
    this.tracked.add(apId);
  }

  untrack(apId: string): void {
    this.tracked.delete(apId);
    this.total -= this.out.get(apId)?.length ?? 0;
    this.out.delete(apId);
    this.wake();
  }

  begin(apId: string): void {
    if (!this.tracked.has(apId)) return;
    const out = this.out.get(apId);
    if (out) out.push(++this.sent);
    else this.out.set(apId, [++this.sent]);
    this.total++;
  }

  end(apId: string): void {
    // A QoS 1 redelivery is handled twice but published once, and a message given up on may still
    // come: never count below zero.
    if (this.out.get(apId)?.shift() === undefined) return;
    this.total--;
    this.wake();
  }

  idle(timeoutMs: number): Promise<void> {
    if (this.total === 0) return Promise.resolve();
    const outBefore = this.sent;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.forgetUpTo(outBefore);
        done();
      }, timeoutMs);
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

  /** Forgets the messages sent up to `last` that are still out: lost. */
  private forgetUpTo(last: number): void {
    let lost = 0;
    const apIds: string[] = [];
    for (const [apId, out] of this.out) {
      const before = out.length;
      while (out[0] !== undefined && out[0] <= last) out.shift();
      if (out.length === before) continue;
      lost += before - out.length;
      apIds.push(apId);
    }
    if (lost === 0) return;
    this.total -= lost;
    this.onLost?.(lost, apIds);
    this.wake();
  }

  private wake(): void {
    if (this.total > 0) return;
    const waiters = this.waiters;
    this.waiters = [];
    for (const waiter of waiters) waiter();
  }
}
