import { DomainError } from '../domain/errors.ts';
import { TOKEN_LIFETIME_MS, tokenProblem } from '../domain/token.ts';
import type { Principal } from './auth.ts';
import type { Cancel, Clock, SecretHasher, TokenStore } from './ports.ts';

const PROBLEM_CODES = {
  ACCOUNT_DELETED: 'ACCOUNT_DELETED',
  PASSWORD_CHANGED: 'TOKEN_PASSWORD_CHANGED',
  EXPIRED: 'TOKEN_EXPIRED',
} as const;

// Expired tokens are kept a while so their holders hear "expired" (20002), not "unknown" (20001).
const KEEP_EXPIRED_MS = 90 * 24 * 60 * 60 * 1000;
const PURGE_INTERVAL_MS = 60 * 60 * 1000;

/** v1's X-Authorization: which account a login token acts for, or why it no longer does. */
export class TokenAuth {
  private cancelPurge: Cancel | undefined;

  constructor(
    private readonly tokens: TokenStore,
    private readonly hasher: SecretHasher,
    private readonly clock: Clock,
  ) {}

  async fromHeader(header: string | undefined): Promise<Principal> {
    const token = header?.trim();
    if (token === undefined || token === '') throw new DomainError('TOKEN_MISSING');
    const found = await this.tokens.findByHash(this.hasher.hash(token));
    if (!found) throw new DomainError('TOKEN_UNKNOWN');
    const problem = tokenProblem(found.token, found.account, this.clock.now());
    if (problem !== undefined) throw new DomainError(PROBLEM_CODES[problem]);
    return { accountId: found.account.id, keyId: found.token.id };
  }

  start(): void {
    const schedule = (): void => {
      this.cancelPurge = this.clock.at(this.clock.now() + PURGE_INTERVAL_MS, () => {
        const cutoff = this.clock.now() - TOKEN_LIFETIME_MS - KEEP_EXPIRED_MS;
        // A purge that fails (the database away) is tried again next round; unhandled, its
        // rejection would end the process.
        this.tokens
          .purgeIssuedBefore(cutoff)
          .catch(() => undefined)
          .finally(schedule);
      });
    };
    schedule();
  }

  stop(): void {
    this.cancelPurge?.();
  }
}
