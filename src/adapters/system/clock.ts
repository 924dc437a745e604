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
  private advancing: Promise<unknown> = Promise.resolve();
  private readonly settlers: (() => Promise<void>)[] = [];
  /** While a move fires the timers on its way: the offset it ends at. */
  private jumpEndOffset: number | undefined;

  now(): number {
    return Date.now() + this.offsetMs;
  }

  at(when: number, fn: () => void): Cancel {
    // A timer set while a move is under way (by a timer it fired, or a request served meanwhile)
    // counts its delay from where the move ends: for what the move sets off, it is one instant.
    // Otherwise an hourly purge that re-arms itself fired once for every hour of a ten-year move,
    // four purges x 87,600 hours, and POST /_sim/clock took 20 s to answer (found by the fuzzer).
    const delay = when - this.now();
    if (this.jumpEndOffset !== undefined && delay > 0) when = Date.now() + this.jumpEndOffset + delay;
    const timer: Pending = { when, fn, handle: undefined };
    this.pending.add(timer);
    this.arm(timer);
    return () => {
      clearTimeout(timer.handle);
      this.pending.delete(timer);
    };
  }

  /**
   * Moves the clock forward as if the time had passed: the timers due on the way fire one by one in
   * time order, the clock reading each one's time while it fires, and what each sets off (a device
   * answer being stored, a task ending) settles before the next fires. So one jump past a device's
   * answer at 10 s and a task's deadline at 15 s ends the task as the device answered, as it would
   * have in real time; firing both at once would let the deadline win. Moves are serialized.
   */
  advance(ms: number): Promise<number> {
    const run = this.advancing.then(() => this.step(ms));
    this.advancing = run.catch(() => undefined);
    return run;
  }

  /**
   * Work a timer sets off that leaves the process and comes back (a command to a simulated lock over
   * the broker): advance waits for these to report idle before and after each timer it fires.
   */
  settleWith(settle: () => Promise<void>): void {
    this.settlers.push(settle);
  }

  every(intervalMs: number, fn: () => void): Cancel {
    const handle = setInterval(fn, intervalMs);
    handle.unref();
    return () => clearInterval(handle);
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

  private async step(ms: number): Promise<number> {
    const targetOffset = this.offsetMs + ms;
    await this.settle();
    this.jumpEndOffset = targetOffset;
    try {
      for (let next = this.nextDue(targetOffset); next !== undefined; next = this.nextDue(targetOffset)) {
        this.offsetMs = Math.max(this.offsetMs, Math.min(targetOffset, next.when - Date.now()));
        clearTimeout(next.handle);
        this.fire(next);
        // Store writes and promise chains set off by the timer run as microtasks: let them finish.
        await new Promise<void>((resolve) => setImmediate(resolve));
        await this.settle();
      }
    } finally {
      this.jumpEndOffset = undefined;
    }
    this.offsetMs = Math.max(this.offsetMs, targetOffset);
    return this.now();
  }

  private async settle(): Promise<void> {
    if (this.settlers.length === 0) return;
    for (const settle of this.settlers) await settle();
    // What the returning answer sets off (a task ending) runs as microtasks: let it finish too.
    await new Promise<void>((resolve) => setImmediate(resolve));
  }

  /** The earliest pending timer due once the offset reaches `targetOffset`, if any. */
  private nextDue(targetOffset: number): Pending | undefined {
    const limit = Date.now() + targetOffset;
    let earliest: Pending | undefined;
    for (const timer of this.pending) {
      if (timer.when <= limit && (earliest === undefined || timer.when < earliest.when)) earliest = timer;
    }
    return earliest;
  }

  private fire(timer: Pending): void {
    if (!this.pending.delete(timer)) return;
    timer.fn();
  }
}
