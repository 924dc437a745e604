import { type Account, isEmail, normalizeEmail } from '../domain/account.ts';
import { DomainError } from '../domain/errors.ts';
import { type RatePolicy, retryAfterSeconds } from '../domain/rate-limit.ts';
import { issuedAfter } from '../domain/token.ts';
import type {
  AccountStore,
  Clock,
  PasswordHasher,
  RandomSource,
  RateLimitStore,
  SecretHasher,
  TokenStore,
} from './ports.ts';

/** Brute-force limits on v1 login: a guesser gets a handful of tries, a person never notices. */
export interface LoginLimits {
  /** Attempts for one e-mail address, whoever makes them. */
  readonly perEmail: RatePolicy;
  /** Attempts from one client address, whatever e-mail they name. */
  readonly perIp: RatePolicy;
}

export const DEFAULT_LOGIN_LIMITS: LoginLimits = {
  perEmail: { burst: 10, intervalMs: 60_000 },
  perIp: { burst: 30, intervalMs: 10_000 },
};

export interface LoginDeps {
  readonly accounts: AccountStore;
  readonly tokens: TokenStore;
  readonly passwords: PasswordHasher;
  readonly secrets: SecretHasher;
  readonly random: RandomSource;
  readonly clock: Clock;
  /** undefined: no limits (--no-rate-limit). */
  readonly limiter: RateLimitStore | undefined;
  readonly limits: LoginLimits;
}

/** 32 random bytes: 256 bits, well over the 128 docs/decisions.md asks for. */
const TOKEN_BYTES = 32;

export class Login {
  /** A real hash to verify against when the account does not exist, so both take as long. */
  private readonly decoyHash: Promise<string>;

  constructor(private readonly deps: LoginDeps) {
    // Made now, not at the first unknown address: that login would have hashed and verified, twice
    // the work of any other, and told its sender the address has no account (test/security/enumeration).
    this.decoyHash = deps.passwords.hash(deps.random.secret(16));
    this.decoyHash.catch(() => undefined); // awaited where used; no unhandled rejection meanwhile
  }

  /**
   * The credential checks and their attempt budgets, shared by v1 login and the dashboard's, in the
   * documented order: the client's attempt budget, the fields, the e-mail's attempt budget, then the
   * credentials. Answers the account and the instant its credentials were read.
   */
  async authenticate(
    email: unknown,
    password: unknown,
    clientIp: string,
  ): Promise<{ account: Account; readAt: number }> {
    await this.spend(`login-ip:${clientIp}`, this.deps.limits.perIp);
    if (typeof email !== 'string' || email.trim() === '' || typeof password !== 'string' || password === '') {
      throw new DomainError('MISSING_FIELD', 'email and password are required');
    }
    if (!isEmail(email.trim())) throw new DomainError('INVALID_EMAIL');
    const normalized = normalizeEmail(email);
    await this.spend(`login-email:${normalized}`, this.deps.limits.perEmail);

    // A token stands for the credentials as they were read: dated no later than the read, so that a
    // password change landing while the password is being checked ends it (domain/token.ts).
    const readAt = this.deps.clock.now();
    const account = await this.deps.accounts.findByEmail(normalized);
    if (!account || account.deletedAt !== null) {
      // Same work as a wrong password: an unknown address must not answer faster.
      await this.deps.passwords.verify(password, await this.decoyHash);
      throw new DomainError('WRONG_CREDENTIALS');
    }
    if (account.passwordHash === null)
      throw new DomainError('ACCOUNT_LOCKED', 'the account has no password yet');
    if (!(await this.deps.passwords.verify(password, account.passwordHash)))
      throw new DomainError('WRONG_CREDENTIALS');
    if (!account.verified) throw new DomainError('EMAIL_NOT_VERIFIED');
    return { account, readAt };
  }

  /** v1 login: a fresh token; earlier ones stay valid. */
  async login(email: unknown, password: unknown, clientIp: string): Promise<string> {
    const { account, readAt } = await this.authenticate(email, password, clientIp);
    const token = this.deps.random.secret(TOKEN_BYTES);
    await this.deps.tokens.insert({
      id: this.deps.random.uuid(),
      accountId: account.id,
      hash: this.deps.secrets.hash(token),
      issuedAt: issuedAfter(account.passwordChangedAt, readAt),
    });
    return token;
  }

  private async spend(key: string, policy: RatePolicy): Promise<void> {
    if (!this.deps.limiter) return;
    const decision = await this.deps.limiter.consume(key, policy, this.deps.clock.now());
    if (!decision.allowed) {
      throw new DomainError('THROTTLED', 'too many login attempts', {
        retryAfterSeconds: retryAfterSeconds(decision.retryAfterMs),
      });
    }
  }
}
