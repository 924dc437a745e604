import { DomainError } from '../../domain/errors.ts';
import { type RatePolicy, retryAfterSeconds } from '../../domain/rate-limit.ts';
import type { Clock, RateLimitStore } from '../ports.ts';

/**
 * Budgets for the dashboard's guessable or mail-sending steps, on the same GCRA buckets as the APIs
 * (memory or Redis). Login itself spends v1's login budgets (Login.authenticate).
 */
export interface AccountLimits {
  /** Codes mailed to one account, whatever the purpose: a mailbox is not flooded. */
  readonly codeSendsPerAccount: RatePolicy;
  /** Code checks from one client address, on top of each code's own 5 attempts. */
  readonly codeTriesPerIp: RatePolicy;
  /**
   * Code checks for one e-mail address and purpose, across all its codes and from every address:
   * what bounds the chance of guessing a code (docs/security.md, "Guessing a mailed code").
   */
  readonly codeTriesPerEmail: RatePolicy;
  /** Sign-ups, password-reset requests and lock shares from one client address. */
  readonly requestsPerIp: RatePolicy;
}

export const DEFAULT_ACCOUNT_LIMITS: AccountLimits = {
  codeSendsPerAccount: { burst: 5, intervalMs: 60_000 },
  codeTriesPerIp: { burst: 20, intervalMs: 10_000 },
  codeTriesPerEmail: { burst: 10, intervalMs: 48 * 60 * 60 * 1000 },
  requestsPerIp: { burst: 10, intervalMs: 60_000 },
};

export class Budgets {
  constructor(
    private readonly limiter: RateLimitStore | undefined,
    private readonly clock: Clock,
    readonly limits: AccountLimits,
  ) {}

  /** Spends one unit of the bucket, or refuses with THROTTLED and the wait in whole seconds. */
  async spend(key: string, policy: RatePolicy, what: string): Promise<void> {
    if (!this.limiter) return;
    const decision = await this.limiter.consume(`dash:${key}`, policy, this.clock.now());
    if (!decision.allowed) {
      throw new DomainError('THROTTLED', `too many ${what}`, {
        retryAfterSeconds: retryAfterSeconds(decision.retryAfterMs),
      });
    }
  }
}
