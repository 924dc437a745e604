import { DomainError } from '../domain/errors.ts';
import type { Lock } from '../domain/lock.ts';
import type { LockStore } from './ports.ts';

export class LockQueries {
  constructor(private readonly locks: LockStore) {}

  listOwned(accountId: string): Promise<Lock[]> {
    return this.locks.listOwnedBy(accountId);
  }

  /** v1 lists the locks an account owns and those shared with it. */
  listVisible(accountId: string): Promise<Lock[]> {
    return this.locks.listVisibleTo(accountId);
  }

  /**
   * v1's rule: only owners may use a lock; one shared with the account is visible but refused
   * (NOT_OWNER), and one with no relation to it does not exist for it.
   */
  async getUsable(accountId: string, deviceId: string): Promise<Lock> {
    const lock = await this.locks.get(deviceId);
    if (!lock) throw new DomainError('LOCK_NOT_FOUND');
    if (lock.ownerId === accountId) return lock;
    if (await this.locks.isSharedWith(deviceId, accountId)) throw new DomainError('NOT_OWNER');
    throw new DomainError('LOCK_NOT_FOUND');
  }

  /**
   * A lock the account owns or that is shared with it (the dashboard's activity page); any other is
   * one that does not exist for it.
   */
  async getVisible(accountId: string, deviceId: string): Promise<Lock> {
    const lock = await this.locks.get(deviceId);
    if (lock && (lock.ownerId === accountId || (await this.locks.isSharedWith(deviceId, accountId))))
      return lock;
    throw new DomainError('LOCK_NOT_FOUND');
  }

  /** v3's rule: a lock the account does not own is answered exactly like one that does not exist. */
  async getOwned(accountId: string, deviceId: string): Promise<Lock> {
    const lock = await this.locks.get(deviceId);
    if (!lock || lock.ownerId !== accountId) throw new DomainError('LOCK_NOT_FOUND');
    return lock;
  }
}
