/**
 * The dashboard's account use cases, built together over the ports: sign-up, sessions, password
 * reset, the owner's account settings and API Settings.
 */

import type { EventLog } from '../event-log.ts';
import type { Purge } from '../hourly-purges.ts';
import type { Login } from '../login.ts';
import type {
  Clock,
  CodeHasher,
  Logger,
  Mailer,
  PasswordHasher,
  RandomSource,
  RateLimitStore,
  SecretHasher,
  Store,
} from '../ports.ts';
import { AccountSettings } from './account-settings.ts';
import { AfterAnswer } from './after-answer.ts';
import { ApiKeys } from './api-keys.ts';
import { ApiSettings } from './api-settings.ts';
import { OneTimeCodes } from './codes.ts';
import { type AccountLimits, Budgets, DEFAULT_ACCOUNT_LIMITS } from './limits.ts';
import { PasswordReset } from './password-reset.ts';
import { Sessions } from './sessions.ts';
import { SignUp } from './sign-up.ts';

export type { SignedIn } from './sessions.ts';

export interface AccountDeps {
  readonly store: Store;
  readonly login: Login;
  readonly passwords: PasswordHasher;
  readonly secrets: SecretHasher;
  readonly codeHasher: CodeHasher;
  readonly random: RandomSource;
  readonly clock: Clock;
  readonly mailer: Mailer;
  /** Where a code mail sent after the answer reports its failure. */
  readonly logger: Logger;
  /** undefined: rate limiting is off (--no-rate-limit). */
  readonly limiter: RateLimitStore | undefined;
  readonly limits?: AccountLimits;
  /** Where password changes, API keys and failed logins are recorded; none: not recorded. */
  readonly eventLog?: EventLog;
}

export class Accounts {
  readonly sessions: Sessions;
  readonly signUp: SignUp;
  readonly passwordReset: PasswordReset;
  readonly settings: AccountSettings;
  readonly apiSettings: ApiSettings;
  /** An account's keys, made and deleted by the dashboard or by a key with keys:manage (/ext/keys). */
  readonly apiKeys: ApiKeys;
  /** The dashboard's budgets (also the lock share form's, app/lock-settings.ts). */
  readonly budgets: Budgets;
  private readonly afterAnswer: AfterAnswer;

  constructor(private readonly deps: AccountDeps) {
    const { store, login, passwords, secrets, random, clock, mailer } = deps;
    const budgets = new Budgets(deps.limiter, clock, deps.limits ?? DEFAULT_ACCOUNT_LIMITS);
    this.budgets = budgets;
    const afterAnswer = new AfterAnswer(deps.logger);
    this.afterAnswer = afterAnswer;
    const codes = new OneTimeCodes({
      codes: store.codes,
      hasher: deps.codeHasher,
      mailer,
      random,
      clock,
      budgets,
      afterAnswer,
    });
    this.sessions = new Sessions({ sessions: store.sessions, login, secrets, random, clock });
    this.signUp = new SignUp({
      accounts: store.accounts,
      passwords,
      random,
      clock,
      codes,
      mailer,
      budgets,
      afterAnswer,
    });
    this.passwordReset = new PasswordReset({
      accounts: store.accounts,
      passwords,
      clock,
      codes,
      sessions: this.sessions,
      budgets,
      ...(deps.eventLog ? { eventLog: deps.eventLog } : {}),
    });
    this.settings = new AccountSettings({
      store,
      passwords,
      clock,
      login,
      sessions: this.sessions,
      ...(deps.eventLog ? { eventLog: deps.eventLog } : {}),
    });
    this.apiKeys = new ApiKeys({
      apiKeys: store.apiKeys,
      locks: store.locks,
      secrets,
      random,
      clock,
      ...(deps.eventLog ? { eventLog: deps.eventLog } : {}),
    });
    this.apiSettings = new ApiSettings({
      apiKeys: store.apiKeys,
      keys: this.apiKeys,
      codes,
      sessions: this.sessions,
    });
  }

  /** Resolves once the work promised by earlier answers is done (sign-up, forgot password, resend). */
  mailsSent(): Promise<void> {
    return this.afterAnswer.settled();
  }

  /** What the account use cases forget once it has expired (HourlyPurges). */
  purges(): Purge[] {
    return [
      { what: 'expired dashboard sessions', run: (now) => this.sessions.purge(now) },
      { what: 'expired one-time codes', run: (now) => this.deps.store.codes.purgeExpiredBefore(now) },
    ];
  }
}
