import type { Lock } from '../domain/lock.ts';
import type { LockQueries } from './locks.ts';
import type { Store } from './ports.ts';

/**
 * The owner's settings of a lock kept by the cloud (what the mobile app's settings change): cloud
 * integration. Only the owner may change them. Sharing a lock with another account is a grant the
 * guest accepts (grants.ts).
 */
export class LockSettings {
  constructor(
    private readonly store: Pick<Store, 'locks'>,
    private readonly queries: LockQueries,
  ) {}

  /**
   * The account's own locks, and the locks others share with it (an accepted grant; whom an owner's
   * lock is shared with is the Grants use case's: grants.ts).
   */
  async overview(accountId: string): Promise<{ owned: Lock[]; shared: Lock[] }> {
    const visible = await this.queries.listVisible(accountId);
    return {
      owned: visible.filter((l) => l.ownerId === accountId),
      shared: visible.filter((l) => l.ownerId !== accountId),
    };
  }

  async setIntegration(accountId: string, deviceId: string, on: boolean): Promise<Lock> {
    const lock = await this.queries.getOwned(accountId, deviceId);
    await this.store.locks.update(lock.deviceId, { integration: on });
    return { ...lock, integration: on };
  }

  /** The owner's lock, or LOCK_NOT_FOUND (a lock of someone else is one that does not exist). */
  owned(accountId: string, deviceId: string): Promise<Lock> {
    return this.queries.getOwned(accountId, deviceId);
  }
}
