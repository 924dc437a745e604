import type { RateLimitStore } from '../../app/ports.ts';
import { gcra, type RateDecision, type RatePolicy } from '../../domain/rate-limit.ts';

// Sweeping idle keys is O(keys); doing it once per this many calls keeps it off the hot path.
const SWEEP_EVERY = 10_000;

/**
 * Rate-limit state for one process: one number per key, a bucket's theoretical arrival time or the
 * end of a remembered key. Either holds no information once it is in the past, so such a key is
 * dropped; memory stays proportional to the keys active recently.
 */
export class MemoryRateLimitStore implements RateLimitStore {
  private readonly times = new Map<string, number>();
  private calls = 0;

  consume(key: string, policy: RatePolicy, now: number): RateDecision {
    if (++this.calls % SWEEP_EVERY === 0) this.sweep(now);
    const { decision, tat } = gcra(this.times.get(key), now, policy);
    this.times.set(key, tat);
    return decision;
  }

  async peek(key: string, policy: RatePolicy, now: number): Promise<RateDecision> {
    return gcra(this.times.get(key), now, policy).decision;
  }

  async remember(key: string, now: number, forMs: number): Promise<void> {
    if (++this.calls % SWEEP_EVERY === 0) this.sweep(now);
    this.times.set(key, Math.max(this.times.get(key) ?? 0, now + forMs));
  }

  async remembers(key: string, now: number): Promise<boolean> {
    return (this.times.get(key) ?? 0) > now;
  }

  /** Keys currently held (for tests of the memory bound). */
  get size(): number {
    return this.times.size;
  }

  sweep(now: number): void {
    for (const [key, time] of this.times) if (time <= now) this.times.delete(key);
  }

  async clear(): Promise<void> {
    this.times.clear();
  }

  close(): Promise<void> {
    return this.clear();
  }
}
