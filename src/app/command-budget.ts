import { DomainError } from '../domain/errors.ts';
import { type RatePolicy, retryAfterSeconds } from '../domain/rate-limit.ts';
import type { Clock, RateLimitStore } from './ports.ts';

/**
 * How many commands one account may send one lock: a bucket per account and lock, spent by the one
 * command use case (src/app/commands.ts), so v3, the partner endpoint, v1 control and the dashboard
 * all spend the same budget. Each command wakes the lock's radio and most move its motor: batteries
 * are what it protects, which no per-endpoint or per-surface limit can, as a client simply moves to
 * the surface with the most room (issue 17: v1 control moved a lock 135 times in 10 s).
 */
export class CommandBudget {
  constructor(
    /** undefined: rate limiting is off (--no-rate-limit), and so is this budget. */
    private readonly limiter: RateLimitStore | undefined,
    private readonly clock: Clock,
    private readonly policy: RatePolicy,
  ) {}

  /** Spends one command of the account's budget for the lock, or refuses with TOO_MANY_COMMANDS and the wait. */
  async spend(accountId: string, deviceId: string): Promise<void> {
    if (!this.limiter) return;
    const decision = await this.limiter.consume(
      `cmd:${accountId}:${deviceId}`,
      this.policy,
      this.clock.now(),
    );
    if (decision.allowed) return;
    const wait = retryAfterSeconds(decision.retryAfterMs);
    throw new DomainError(
      'TOO_MANY_COMMANDS',
      `too many commands to this lock: ${this.policy.burst} at once, then ${1000 / this.policy.intervalMs} a second; try again in ${wait} s`,
      { retryAfterSeconds: wait },
    );
  }
}
