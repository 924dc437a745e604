import type { RateLimitStore } from '../../app/ports.ts';
import { gcra, type RateDecision, type RatePolicy } from '../../domain/rate-limit.ts';

// Sweeping idle keys is O(keys); doing it once per this many calls keeps it off the hot path.
const SWEEP_EVERY = 10_000;

/**
 * Rate-limit state for one process: one number per key. A key whose bucket has refilled holds no
 * information, so it is dropped; memory stays proportional to the keys active recently.
 */
export class MemoryRateLimitStore implements RateLimitStore {
  private readonly tats = new Map<string, number>();
  private calls = 0;

  async consume(key: string, policy: RatePolicy, now: number): Promise<RateDecision> {
    if (++this.calls % SWEEP_EVERY === 0) this.sweep(now);
    const { decision, tat } = gcra(this.tats.get(key), now, policy);
    this.tats.set(key, tat);
    return decision;
  }

  /** Keys currently held (for tests of the memory bound). */
  get size(): number {
    return this.tats.size;
  }

  sweep(now: number): void {
    for (const [key, tat] of this.tats) if (tat <= now) this.tats.delete(key);
  }

  async clear(): Promise<void> {
    this.tats.clear();
  }

  close(): Promise<void> {
    return this.clear();
  }
}
