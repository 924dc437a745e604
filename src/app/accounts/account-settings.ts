import { normalizeEmail } from '../../domain/account.ts';
import { checkFields, DomainError, isDomainError } from '../../domain/errors.ts';
import { sessionActor } from '../../domain/event.ts';
import { changePassword, markDeleted } from '../account-changes.ts';
import type { EventLog } from '../event-log.ts';
import type { Login } from '../login.ts';
import type { Clock, PasswordHasher, Store } from '../ports.ts';
import { removeWebhook } from '../webhooks/settings.ts';
import type { Sessions, SignedIn } from './sessions.ts';
import { requireNewPassword } from './sign-up.ts';

export interface AccountSettingsDeps {
  readonly store: Store;
  readonly passwords: PasswordHasher;
  readonly clock: Clock;
  readonly login: Login;
  readonly sessions: Sessions;
  /** Where a password change is recorded; none: not recorded. */
  readonly eventLog?: EventLog;
}

/** The owner's own account: change the password, delete the account. */
export class AccountSettings {
  constructor(private readonly deps: AccountSettingsDeps) {}

  /**
   * Checks the current password (with login's attempt budgets), stores the new one: earlier v1
   * tokens answer 20003 and every session ends; the caller gets a fresh session in their place.
   */
  async changePassword(
    me: SignedIn,
    current: unknown,
    next: unknown,
    clientIp: string,
  ): Promise<{ token: string }> {
    if (me.account.passwordHash === null)
      throw new DomainError(
        'INVALID_INPUT',
        'this account has no password yet: set one with "Forgot password"',
        {
          field: 'current_password',
        },
      );
    const [, plain] = checkFields(
      () => requireCurrentPassword(current),
      () => requireNewPassword(next, 'new_password'),
    );
    await this.confirmPassword(me, current, clientIp);
    const { store, passwords, clock, sessions } = this.deps;
    const eventLog = this.deps.eventLog;
    await changePassword({ accounts: store.accounts, passwords, clock, eventLog }, me.account, plain, {
      actor: sessionActor(me.account.id),
      how: 'changed',
    });
    await sessions.endAll(me.account.id);
    const changed = await store.accounts.findById(me.account.id);
    if (!changed) throw new DomainError('ACCOUNT_NOT_FOUND');
    return sessions.open(changed, clock.now());
  }

  /**
   * Deletes the account: v1 tokens answer 20004, API keys 401, sessions end, the webhook and the
   * webhook endpoints go, and its locks are released (they leave the cloud with their shares).
   * Confirmed by the password, or by typing the address for an account that never set one.
   */
  async deleteAccount(
    me: SignedIn,
    password: unknown,
    typedEmail: unknown,
    clientIp: string,
  ): Promise<string[]> {
    if (me.account.passwordHash === null) {
      if (typeof typedEmail !== 'string' || normalizeEmail(typedEmail) !== me.account.email)
        throw new DomainError('INVALID_INPUT', 'type your e-mail address to confirm', {
          field: 'confirm_email',
        });
    } else {
      await this.confirmPassword(me, password, clientIp);
    }
    const { store, clock, sessions } = this.deps;
    await markDeleted({ accounts: store.accounts, clock }, me.account);
    await sessions.endAll(me.account.id);
    await removeWebhook(store, me.account.id);
    // Its endpoints go too, with their secrets and waiting messages.
    for (const endpoint of await store.webhookEndpoints.list(me.account.id))
      await store.webhookEndpoints.remove(me.account.id, endpoint.id);
    return store.locks.releaseAccount(me.account.id);
  }

  private async confirmPassword(me: SignedIn, password: unknown, clientIp: string): Promise<void> {
    requireCurrentPassword(password);
    try {
      // Signed in: a client the account knows, whose address may have changed since it logged in.
      await this.deps.login.authenticate(me.account.email, password, { ip: clientIp, signedIn: true });
    } catch (error) {
      if (isDomainError(error) && error.code === 'WRONG_CREDENTIALS')
        throw new DomainError('INVALID_INPUT', 'the current password is wrong', {
          field: 'current_password',
        });
      throw error;
    }
  }
}

function requireCurrentPassword(password: unknown): string {
  if (typeof password !== 'string' || password === '')
    throw new DomainError('INVALID_INPUT', 'enter your current password', { field: 'current_password' });
  return password;
}
