import { type Account, isEmail, normalizeEmail } from '../domain/account.ts';
import { DomainError, isDomainError } from '../domain/errors.ts';
import { accountEvent } from '../domain/event.ts';
import { type RateDecision, type RatePolicy, retryAfterSeconds } from '../domain/rate-limit.ts';
import { issuedAfter } from '../domain/token.ts';
import type { EventLog } from './event-log.ts';
import type {
  AccountStore,
  Clock,
  Logger,
  PasswordHasher,
  RandomSource,
  RateLimitStore,
  SecretHasher,
  TokenStore,
} from './ports.ts';

/**
 * Brute-force limits on login (v1 and the dashboard share them). A guesser gets a handful of tries
 * from each address and a few dozen from all addresses together; a person never notices, and no
 * stranger can keep an owner out: the clients the owner has logged in from do not spend the
 * e-mail's budget (docs/security.md, "Guessing a password, or keeping the owner out").
 */
export interface LoginLimits {
  /** Attempts from one client address, whatever e-mail they name. */
  readonly perIp: RatePolicy;
  /** Failed attempts on one e-mail from one client address: a login that succeeds spends nothing. */
  readonly failuresPerEmailAndIp: RatePolicy;
  /**
   * Attempts on one e-mail from every client it does not know (none that logged in to it from that
   * address or browser in the last KNOWN_CLIENT_MS), wherever they come from: caps guessing spread
   * over many addresses. The account's known clients never spend it, so it cannot lock the owner out.
   */
  readonly perEmailFromNewClients: RatePolicy;
}

export const DEFAULT_LOGIN_LIMITS: LoginLimits = {
  perIp: { burst: 30, intervalMs: 10_000 },
  failuresPerEmailAndIp: { burst: 10, intervalMs: 60_000 },
  perEmailFromNewClients: { burst: 20, intervalMs: 5 * 60_000 },
};

/** How long a client stays known to an account after it last logged in to it (as long as a v1 token). */
export const KNOWN_CLIENT_MS = 30 * 24 * 60 * 60 * 1000;

/** Who attempts a login, as far as the server can tell. */
export interface LoginClient {
  /** The client address (after --trust-proxy). */
  readonly ip: string;
  /** The dashboard's device cookie: a random secret the browser keeps (v1 clients have none). */
  readonly device?: string | undefined;
  /** The attempt comes with a live session of the account (confirming a change): a known client. */
  readonly signedIn?: boolean;
}

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
  /** Where a failed login on an existing account is recorded (account.login_failed); none: not recorded. */
  readonly eventLog?: EventLog;
  readonly logger?: Logger;
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
   * documented order: the address's attempt budget, the fields, the failures of this e-mail from
   * this address, the e-mail's budget for clients it does not know, then the credentials. Every
   * budget is keyed by what the client sent, never by what the store holds, and spent alike for
   * addresses with and without an account. Answers the account and the instant its credentials were read.
   */
  async authenticate(
    email: unknown,
    password: unknown,
    client: LoginClient,
  ): Promise<{ account: Account; readAt: number }> {
    await this.spend(`login-ip:${client.ip}`, this.deps.limits.perIp);
    if (typeof email !== 'string' || email.trim() === '' || typeof password !== 'string' || password === '') {
      throw new DomainError('MISSING_FIELD', 'email and password are required');
    }
    if (!isEmail(email.trim())) throw new DomainError('INVALID_EMAIL');
    const normalized = normalizeEmail(email);
    const failures = `login-fail:${normalized}:${client.ip}`;
    await this.refuseIf(
      this.deps.limiter?.peek(failures, this.deps.limits.failuresPerEmailAndIp, this.now()),
    );
    if (!(await this.knows(normalized, client)))
      await this.spend(`login-email:${normalized}`, this.deps.limits.perEmailFromNewClients);

    // A token stands for the credentials as they were read: dated no later than the read, so that a
    // password change landing while the password is being checked ends it (domain/token.ts).
    const readAt = this.deps.clock.now();
    let account: Account;
    try {
      account = await this.check(normalized, password, client);
    } catch (error) {
      if (isDomainError(error) && (error.code === 'WRONG_CREDENTIALS' || error.code === 'ACCOUNT_LOCKED'))
        await this.deps.limiter?.consume(failures, this.deps.limits.failuresPerEmailAndIp, this.now());
      throw error;
    }
    if (!account.verified) throw new DomainError('EMAIL_NOT_VERIFIED');
    await this.rememberClient(normalized, client);
    return { account, readAt };
  }

  /** v1 login: a fresh token; earlier ones stay valid. */
  async login(email: unknown, password: unknown, clientIp: string): Promise<string> {
    const { account, readAt } = await this.authenticate(email, password, { ip: clientIp });
    const token = this.deps.random.secret(TOKEN_BYTES);
    await this.deps.tokens.insert({
      id: this.deps.random.uuid(),
      accountId: account.id,
      hash: this.deps.secrets.hash(token),
      issuedAt: issuedAfter(account.passwordChangedAt, readAt),
    });
    return token;
  }

  /** One password verified, whatever the address holds: an unknown one must not answer sooner. */
  private async check(normalized: string, password: string, client: LoginClient): Promise<Account> {
    const account = await this.deps.accounts.findByEmail(normalized);
    if (!account || account.deletedAt !== null || account.passwordHash === null) {
      await this.deps.passwords.verify(password, await this.decoyHash);
      if (account && account.deletedAt === null)
        throw new DomainError('ACCOUNT_LOCKED', 'the account has no password yet');
      throw new DomainError('WRONG_CREDENTIALS');
    }
    if (!(await this.deps.passwords.verify(password, account.passwordHash))) {
      this.recordFailure(account, client);
      throw new DomainError('WRONG_CREDENTIALS');
    }
    return account;
  }

  /**
   * account.login_failed, for the owner's audit. Not waited for: a refusal for an existing account
   * must take no longer than one for an unknown address, which has no log to write to
   * (test/security/enumeration); a write that fails is logged, the refusal stands.
   */
  private recordFailure(account: Account, client: LoginClient): void {
    const log = this.deps.eventLog;
    if (!log) return;
    const event = accountEvent(
      'account.login_failed',
      account.id,
      { kind: 'system' },
      {
        client_ip: client.ip,
      },
    );
    log
      .append([event])
      .catch((error: unknown) => this.deps.logger?.warn({ err: error }, 'recording a failed login failed'));
  }

  /** Whether this client logged in to the account before: from this address, or with this browser. */
  private async knows(normalized: string, client: LoginClient): Promise<boolean> {
    const limiter = this.deps.limiter;
    if (!limiter || client.signedIn === true) return true;
    const now = this.now();
    if (await limiter.remembers(this.addressMark(normalized, client.ip), now)) return true;
    return client.device !== undefined && limiter.remembers(this.deviceMark(normalized, client.device), now);
  }

  private async rememberClient(normalized: string, client: LoginClient): Promise<void> {
    const limiter = this.deps.limiter;
    if (!limiter) return;
    const now = this.now();
    await limiter.remember(this.addressMark(normalized, client.ip), now, KNOWN_CLIENT_MS);
    if (client.device !== undefined)
      await limiter.remember(this.deviceMark(normalized, client.device), now, KNOWN_CLIENT_MS);
  }

  private addressMark(normalized: string, ip: string): string {
    return `login-known:${normalized}:ip:${ip}`;
  }

  /** The device secret is hashed: the store (Redis) never holds what the browser presents. */
  private deviceMark(normalized: string, device: string): string {
    return `login-known:${normalized}:device:${this.deps.secrets.hash(device)}`;
  }

  private now(): number {
    return this.deps.clock.now();
  }

  private async spend(key: string, policy: RatePolicy): Promise<void> {
    await this.refuseIf(this.deps.limiter?.consume(key, policy, this.now()));
  }

  private async refuseIf(decided: RateDecision | Promise<RateDecision> | undefined): Promise<void> {
    const decision = await decided;
    if (decision && !decision.allowed) {
      throw new DomainError('THROTTLED', 'too many login attempts', {
        retryAfterSeconds: retryAfterSeconds(decision.retryAfterMs),
      });
    }
  }
}
