import { DomainError } from '../../domain/errors.ts';
import { type RatePolicy, retryAfterSeconds } from '../../domain/rate-limit.ts';
import type { Clock, RateLimitStore } from '../ports.ts';

/**
 * Messages an account asks for by hand: test events and resends (the extension API and the
 * dashboard share it). 30 at once, then one every 2 s: a person testing a receiver or a script
 * resending what an outage failed is not held up, while a flood cannot fill the account's queue
 * faster than its receivers are given places.
 */
export const DEFAULT_MANUAL_SENDS: RatePolicy = { burst: 30, intervalMs: 2_000 };

export class ManualSends {
  constructor(
    /** undefined: rate limiting is off (--no-rate-limit), and so is this budget. */
    private readonly limiter: RateLimitStore | undefined,
    private readonly clock: Clock,
    private readonly policy: RatePolicy = DEFAULT_MANUAL_SENDS,
  ) {}

  /** Spends one message of the account's budget, or refuses with THROTTLED and the wait. */
  async spend(accountId: string): Promise<void> {
    if (!this.limiter) return;
    const decision = await this.limiter.consume(`webhook-sends:${accountId}`, this.policy, this.clock.now());
    if (decision.allowed) return;
    const wait = retryAfterSeconds(decision.retryAfterMs);
    throw new DomainError(
      'THROTTLED',
      `too many test events and resends: ${this.policy.burst} at once, then one every ${this.policy.intervalMs / 1000} s; try again in ${wait} s`,
      { retryAfterSeconds: wait },
    );
  }
}
