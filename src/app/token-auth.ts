import { DomainError } from '../domain/errors.ts';
import { FULL_ACCESS } from '../domain/scope.ts';
import { TOKEN_LIFETIME_MS, tokenProblem } from '../domain/token.ts';
import type { Principal } from './auth.ts';
import type { Clock, SecretHasher, TokenStore } from './ports.ts';

const PROBLEM_CODES = {
  ACCOUNT_DELETED: 'ACCOUNT_DELETED',
  PASSWORD_CHANGED: 'TOKEN_PASSWORD_CHANGED',
  EXPIRED: 'TOKEN_EXPIRED',
} as const;

// Expired tokens are kept a while so their holders hear "expired" (20002), not "unknown" (20001).
const KEEP_EXPIRED_MS = 90 * 24 * 60 * 60 * 1000;

/** v1's X-Authorization: which account a login token acts for, or why it no longer does. */
export class TokenAuth {
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
    const accountId = found.account.id;
    return { accountId, keyId: found.token.id, actor: { kind: 'v1_token', accountId }, limits: FULL_ACCESS };
  }

  /** Forgets tokens so long expired that nobody is told "expired" for them any more (HourlyPurges). */
  purge(now: number): Promise<number> {
    return this.tokens.purgeIssuedBefore(now - TOKEN_LIFETIME_MS - KEEP_EXPIRED_MS);
  }
}
