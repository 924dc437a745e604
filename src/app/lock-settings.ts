import { normalizeEmail } from '../domain/account.ts';
import { DomainError } from '../domain/errors.ts';
import { sessionActor, shareEvent } from '../domain/event.ts';
import type { Lock } from '../domain/lock.ts';
import type { Budgets } from './accounts/limits.ts';
import type { EventLog } from './event-log.ts';
import type { LockQueries } from './locks.ts';
import type { Store } from './ports.ts';

const unshared = (): DomainError =>
  new DomainError('INVALID_INPUT', 'the lock is not shared with that account', { field: 'account' });

export interface LockWithShares extends Lock {
  readonly sharedWith: readonly { accountId: string; email: string }[];
}

/**
 * The owner's settings of a lock kept by the cloud (what the mobile app's settings change): cloud
 * integration and sharing with other accounts. Only the owner may change them.
 */
export class LockSettings {
  constructor(
    private readonly store: Pick<Store, 'locks' | 'accounts'>,
    private readonly queries: LockQueries,
    private readonly budgets: Budgets,
    /** Where shares made and ended are recorded (the dashboard's owner acts); none: not recorded. */
    private readonly eventLog?: EventLog,
  ) {}

  /** The account's own locks with whom each is shared, and the locks others share with it. */
  async overview(accountId: string): Promise<{ owned: LockWithShares[]; shared: Lock[] }> {
    const visible = await this.queries.listVisible(accountId);
    const owned: LockWithShares[] = [];
    const shared: Lock[] = [];
    for (const lock of visible) {
      if (lock.ownerId === accountId)
        owned.push({ ...lock, sharedWith: await this.store.locks.sharesOf(lock.deviceId) });
      else shared.push(lock);
    }
    return { owned, shared };
  }

  async setIntegration(accountId: string, deviceId: string, on: boolean): Promise<Lock> {
    const lock = await this.queries.getOwned(accountId, deviceId);
    await this.store.locks.update(lock.deviceId, { integration: on });
    return { ...lock, integration: on };
  }

  /**
   * Shares the lock with another live account, found by e-mail. The one form that must tell whether
   * an address has an account (a live one can take the share), so every attempt spends the
   * requests budget of the client address and of the owner's account: the form is no way to sort a
   * list of addresses (docs/security.md).
   */
  async share(accountId: string, deviceId: string, email: unknown, clientIp: string): Promise<string> {
    const { budgets } = this;
    await budgets.spend(`share-ip:${clientIp}`, budgets.limits.requestsPerIp, 'shares from this address');
    await budgets.spend(`share-account:${accountId}`, budgets.limits.requestsPerIp, 'shares');
    const lock = await this.queries.getOwned(accountId, deviceId);
    if (typeof email !== 'string' || email.trim() === '')
      throw new DomainError('INVALID_INPUT', 'enter the e-mail address to share with', { field: 'email' });
    const guest = await this.store.accounts.findByEmail(normalizeEmail(email));
    // One answer for unknown, deleted and unverified accounts, so the form tells an owner no more
    // than sharing must: whether this address can take a share (docs/security.md).
    if (!guest || guest.deletedAt !== null || !guest.verified)
      throw new DomainError('INVALID_INPUT', `no lockcloud account can be shared with at ${email.trim()}`, {
        field: 'email',
      });
    if (guest.id === accountId) throw new DomainError('CONFLICT', 'you own this lock: it needs no share');
    const events = this.eventLog?.stampAll([
      shareEvent('share.created', accountId, lock.deviceId, guest.id, sessionActor(accountId)),
    ]);
    await this.store.locks.share(lock.deviceId, guest.id, events);
    return guest.email;
  }

  async unshare(accountId: string, deviceId: string, guestId: unknown): Promise<void> {
    const lock = await this.queries.getOwned(accountId, deviceId);
    if (typeof guestId !== 'string') throw unshared();
    const events = this.eventLog?.stampAll([
      shareEvent('share.removed', accountId, lock.deviceId, guestId, sessionActor(accountId)),
    ]);
    if (!(await this.store.locks.unshare(lock.deviceId, guestId, events))) throw unshared();
  }

  /** The owner's lock, or LOCK_NOT_FOUND (a lock of someone else is one that does not exist). */
  owned(accountId: string, deviceId: string): Promise<Lock> {
    return this.queries.getOwned(accountId, deviceId);
  }
}
