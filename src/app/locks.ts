import { DomainError } from '../domain/errors.ts';
import type { Lock } from '../domain/lock.ts';
import type { LockStore } from './ports.ts';

export class LockQueries {
  constructor(private readonly locks: LockStore) {}

  listOwned(accountId: string): Promise<Lock[]> {
    return this.locks.listOwnedBy(accountId);
  }

  /** A lock the account does not own is answered exactly like one that does not exist. */
  async getOwned(accountId: string, deviceId: string): Promise<Lock> {
    const lock = await this.locks.get(deviceId);
    if (!lock || lock.ownerId !== accountId) throw new DomainError('LOCK_NOT_FOUND');
    return lock;
  }
}
