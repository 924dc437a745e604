import type { Cancel, Clock } from '../../src/app/ports.ts';

/** A clock that moves only when told: for unit tests of use cases with timers. */
export class ManualClock implements Clock {
  private timers: { when: number; fn: () => void }[] = [];

  constructor(private time = 1_000_000) {}

  now(): number {
    return this.time;
  }

  at(when: number, fn: () => void): Cancel {
    const timer = { when, fn };
    this.timers.push(timer);
    return () => {
      this.timers = this.timers.filter((t) => t !== timer);
    };
  }

  /** Real-time polling does not happen in a unit test's frozen time. */
  every(_intervalMs?: number, _fn?: () => void): Cancel {
    return () => {};
  }

  advance(ms: number): void {
    this.time += ms;
    const due = this.timers.filter((t) => t.when <= this.time).sort((a, b) => a.when - b.when);
    this.timers = this.timers.filter((t) => t.when > this.time);
    for (const timer of due) timer.fn();
  }
}
