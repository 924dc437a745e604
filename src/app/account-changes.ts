/**
 * Changes to an account that more than one use case makes (the sandbox and the admin CLI), written
 * once so their side effects cannot drift apart.
 */
import type { Account } from '../domain/account.ts';
import { type Actor, accountEvent } from '../domain/event.ts';
import type { EventLog } from './event-log.ts';
import type { AccountStore, Clock, PasswordHasher } from './ports.ts';

export interface AccountChangeDeps {
  readonly accounts: AccountStore;
  readonly passwords: PasswordHasher;
  readonly clock: Clock;
  /** Where a password change is recorded (account.password_changed); none: not recorded. */
  readonly eventLog?: EventLog | undefined;
}

/** Who changed a password and how: the owner in the dashboard, a reset by mailed code, the admin CLI. */
export interface PasswordChange {
  readonly actor: Actor;
  readonly how: 'changed' | 'reset' | 'admin';
}

/**
 * Stores a new password hash and records when it changed: v1 tokens issued before that instant
 * expire, as they would after a password change in the app.
 */
export async function changePassword(
  deps: AccountChangeDeps,
  account: Pick<Account, 'id'>,
  password: string,
  change: PasswordChange,
): Promise<void> {
  const passwordHash = await deps.passwords.hash(password);
  const events =
    deps.eventLog?.stampAll([
      accountEvent('account.password_changed', account.id, change.actor, { how: change.how }),
    ]) ?? [];
  await deps.accounts.update(account.id, { passwordHash, passwordChangedAt: deps.clock.now() }, events);
}

/**
 * Marks the account deleted (its API keys and tokens stop working at once); false when it already
 * was, whose deletion time is kept.
 */
export async function markDeleted(
  deps: Pick<AccountChangeDeps, 'accounts' | 'clock'>,
  account: Pick<Account, 'id' | 'deletedAt'>,
): Promise<boolean> {
  if (account.deletedAt !== null) return false;
  await deps.accounts.update(account.id, { deletedAt: deps.clock.now() });
  return true;
}
