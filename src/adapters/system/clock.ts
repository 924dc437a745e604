import type { Cancel, Clock, ClockControl } from '../../app/ports.ts';

interface Pending {
  readonly when: number;
  readonly fn: () => void;
  handle: NodeJS.Timeout | undefined;
}

// setTimeout overflows past 2^31-1 ms (about 24.8 days); longer waits are re-armed in steps.
const MAX_TIMER_MS = 2_147_483_647;

/**
 * Wall-clock time plus an offset the sandbox can move forward. Timers follow the offset: moving the
 * clock past a deadline fires it at once, so a 15 s timeout or a 30-day expiry is tested without
 * sleeping. In production the offset stays 0 and this is the system clock.
 */
export class AdjustableClock implements Clock, ClockControl {
  private offsetMs = 0;
  private readonly pending = new Set<Pending>();

  now(): number {
    return Date.now() + this.offsetMs;
  }

  at(when: number, fn: () => void): Cancel {
    const timer: Pending = { when, fn, handle: undefined };
    this.pending.add(timer);
    this.arm(timer);
    return () => {
      clearTimeout(timer.handle);
      this.pending.delete(timer);
    };
  }

  advance(ms: number): number {
    this.offsetMs += ms;
    this.fireDue();
    return this.now();
  }

  reset(): void {
    this.offsetMs = 0;
    for (const timer of this.pending) {
      clearTimeout(timer.handle);
      this.arm(timer);
    }
  }

  private arm(timer: Pending): void {
    const delay = Math.min(Math.max(0, timer.when - this.now()), MAX_TIMER_MS);
    timer.handle = setTimeout(() => {
      if (this.now() >= timer.when) this.fire(timer);
      else this.arm(timer);
    }, delay);
    // Timers never keep the process alive by themselves: the listener does.
    timer.handle.unref();
  }

  private fireDue(): void {
    const now = this.now();
    const due = [...this.pending].filter((t) => t.when <= now).sort((a, b) => a.when - b.when);
    for (const timer of due) {
      clearTimeout(timer.handle);
      this.fire(timer);
    }
  }

  private fire(timer: Pending): void {
    if (!this.pending.delete(timer)) return;
    timer.fn();
  }
}
