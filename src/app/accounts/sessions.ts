import type { Account } from '../../domain/account.ts';
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

/** Dashboard sign-in: the same credential checks and attempt budgets as v1 login, a cookie instead of a token. */
export class Sessions {
  constructor(private readonly deps: SessionDeps) {}

  /** Checks the credentials (v1's rules: unverified 31000, no password 31001) and opens a session. */
  async logIn(email: unknown, password: unknown, clientIp: string): Promise<{ token: string }> {
    const { account, readAt } = await this.deps.login.authenticate(email, password, clientIp);
    return this.open(account, readAt);
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
