import type { Account } from '../../domain/account.ts';
import { DomainError, isDomainError } from '../../domain/errors.ts';
import {
  API_SETTINGS_UNLOCK_MS,
  apiSettingsUnlocked,
  SESSION_LIFETIME_MS,
  type Session,
  sessionIsLive,
} from '../../domain/session.ts';
import { issuedAfter } from '../../domain/token.ts';
import type { Login } from '../login.ts';
import type { Clock, RandomSource, SecretHasher, SessionStore } from '../ports.ts';

export interface SessionDeps {
  readonly sessions: SessionStore;
  readonly login: Login;
  readonly secrets: SecretHasher;
  readonly random: RandomSource;
  readonly clock: Clock;
}

/** A live session and its account, as each dashboard request sees it. */
export interface SignedIn {
  readonly session: Session;
  readonly account: Account;
  /** The API Settings code was confirmed in this session, recently enough. */
  readonly apiUnlocked: boolean;
}

const TOKEN_BYTES = 32;
/** What the device cookie holds when the server made it: 32 random bytes, base64url. */
const DEVICE_SHAPE = /^[A-Za-z0-9_-]{43}$/;

/** Dashboard sign-in: the same credential checks and attempt budgets as v1 login, a cookie instead of a token. */
export class Sessions {
  constructor(private readonly deps: SessionDeps) {}

  /**
   * Checks the credentials and opens a session. v1's rules, but for an account without a password
   * (social login), which answers as a wrong password does: v1 must tell it apart (31001), the
   * dashboard need not, and so tells no visitor that the address has an account. `device` is the
   * browser's device cookie, if it sent a well-formed one; the answer names the one to keep (a new
   * one the first time), now known to the account (app/login.ts).
   */
  async logIn(
    email: unknown,
    password: unknown,
    clientIp: string,
    device: string | undefined,
  ): Promise<{ token: string; device: string }> {
    const kept =
      device !== undefined && DEVICE_SHAPE.test(device) ? device : this.deps.random.secret(TOKEN_BYTES);
    let proven: Awaited<ReturnType<Login['authenticate']>>;
    try {
      proven = await this.deps.login.authenticate(email, password, { ip: clientIp, device: kept });
    } catch (error) {
      if (isDomainError(error) && error.code === 'ACCOUNT_LOCKED') throw new DomainError('WRONG_CREDENTIALS');
      throw error;
    }
    const { token } = await this.open(proven.account, proven.readAt);
    return { token, device: kept };
  }

  /** A new session for an account whose credentials were just proven at `readAt`. */
  async open(account: Pick<Account, 'id' | 'passwordChangedAt'>, readAt: number): Promise<{ token: string }> {
    const token = this.deps.random.secret(TOKEN_BYTES);
    const createdAt = issuedAfter(account.passwordChangedAt, readAt);
    await this.deps.sessions.insert({
      id: this.deps.random.uuid(),
      accountId: account.id,
      hash: this.deps.secrets.hash(token),
      createdAt,
      expiresAt: createdAt + SESSION_LIFETIME_MS,
      apiUnlockedUntil: null,
    });
    return { token };
  }

  /** The session the cookie names, if it is still live. */
  async resolve(token: string | undefined): Promise<SignedIn | undefined> {
    if (token === undefined || token === '') return undefined;
    const found = await this.deps.sessions.findByHash(this.deps.secrets.hash(token));
    const now = this.deps.clock.now();
    if (!found || !sessionIsLive(found.session, found.account, now)) return undefined;
    return { ...found, apiUnlocked: apiSettingsUnlocked(found.session, now) };
  }

  async logOut(token: string | undefined): Promise<void> {
    const signedIn = await this.resolve(token);
    if (signedIn) await this.deps.sessions.remove(signedIn.session.id);
  }

  /** After the API Settings code: keys and the webhook may be changed for a while in this session. */
  async unlockApiSettings(session: Session): Promise<void> {
    await this.deps.sessions.setApiUnlockedUntil(session.id, this.deps.clock.now() + API_SETTINGS_UNLOCK_MS);
  }

  async lockApiSettings(session: Session): Promise<void> {
    await this.deps.sessions.setApiUnlockedUntil(session.id, null);
  }

  endAll(accountId: string): Promise<number> {
    return this.deps.sessions.removeForAccount(accountId);
  }

  /**
   * The CSRF token for forms sent with this cookie value (the session's, or the anonymous cookie's
   * before login): a hash of a secret only this browser holds, so a page elsewhere cannot know it.
   */
  csrfToken(cookieValue: string): string {
    return this.deps.secrets.hash(`lockcloud-csrf:${cookieValue}`);
  }

  /** A random value for the anonymous cookie that CSRF-protects the forms shown before login. */
  newAnonymousSecret(): string {
    return this.deps.random.secret(TOKEN_BYTES);
  }

  /** Forgets sessions past their end (HourlyPurges). */
  purge(now: number): Promise<number> {
    return this.deps.sessions.purgeExpiredBefore(now);
  }
}
