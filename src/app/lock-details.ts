/**
 * A lock's full picture on /ext, the dashboard, the SDK and the CLI (issue 22): the v3 status, its
 * health as the device reports it, the owner's settings and the access point it is paired with; and
 * the owner's changes to those settings. Guests (accounts a lock is shared with) read its state, not
 * the owner's settings or devices (docs/locks.md).
 */
import type { AccessPoint } from '../domain/access-point.ts';
import { DomainError } from '../domain/errors.ts';
import type { Actor, EventDraft } from '../domain/event.ts';
import {
  batteryEvent,
  batteryStateAfter,
  checkLockSettings,
  type LockSettingsChange,
  type LockSettingsInput,
} from '../domain/health.ts';
import type { Lock } from '../domain/lock.ts';
import type { EventLog } from './event-log.ts';
import type { LockQueries } from './locks.ts';
import type { Store } from './ports.ts';

/** The first payload version with auto-lock (docs/device-protocol.md). */
export const AUTO_LOCK_PROTOCOL = 2;

export interface LockDetail {
  readonly lock: Lock;
  readonly role: 'owner' | 'guest';
  /** The access point the lock is paired with, for its owner; null for a guest or when there is none. */
  readonly accessPoint: AccessPoint | null;
}

/** Where a changed auto-lock setting goes: the device carries it out (DeviceGateway.configure). */
export interface LockConfigSender {
  configure(apId: string, deviceId: string, settings: { readonly autoLockSeconds: number }): void;
}

export interface LockDetailsDeps {
  readonly store: Pick<Store, 'locks' | 'accessPoints'>;
  readonly queries: LockQueries;
  readonly eventLog?: EventLog;
  readonly devices?: LockConfigSender;
}

// A device report written between the read and the write moves the lock's version: read again.
const MAX_WRITE_ATTEMPTS = 8;

export class LockDetails {
  constructor(private readonly deps: LockDetailsDeps) {}

  /** The account's own locks and those shared with it, in the order v1 lists them. */
  async list(accountId: string): Promise<LockDetail[]> {
    const [locks, aps] = await Promise.all([
      this.deps.queries.listVisible(accountId),
      this.deps.store.accessPoints.listForAccount(accountId),
    ]);
    const byId = new Map(aps.map((ap) => [ap.id, ap]));
    return locks.map((lock) =>
      detail(accountId, lock, lock.accessPointId === null ? null : (byId.get(lock.accessPointId) ?? null)),
    );
  }

  /** One lock the account owns or that is shared with it; LOCK_NOT_FOUND for any other. */
  async get(accountId: string, deviceId: string): Promise<LockDetail> {
    const lock = await this.deps.queries.getVisible(accountId, deviceId);
    return detail(accountId, lock, await this.accessPointOf(accountId, lock));
  }

  /**
   * The owner changes the lock's settings: its nickname, the auto-lock delay (sent to the device,
   * which carries it out), the battery thresholds (the battery state is read again against them, and
   * a crossing that makes is an event, as a report's would be). NOT_OWNER for a guest; INVALID_INPUT
   * naming the field for a bad value, or for auto-lock on a lock whose access point cannot do it.
   */
  async change(
    accountId: string,
    deviceId: string,
    input: LockSettingsInput,
    actor: Actor,
  ): Promise<LockDetail> {
    const { store, eventLog, devices } = this.deps;
    for (let attempt = 0; attempt < MAX_WRITE_ATTEMPTS; attempt++) {
      const seen = await store.locks.readStatus(deviceId);
      const lock = seen?.lock;
      if (!seen || !lock || !(await this.visible(accountId, lock))) throw new DomainError('LOCK_NOT_FOUND');
      if (lock.ownerId !== accountId)
        throw new DomainError('NOT_OWNER', "only the lock's owner changes its settings");
      const change = checkLockSettings(input, { low: lock.batteryLow, critical: lock.batteryCritical });
      const ap = await this.accessPointOf(accountId, lock);
      if (change.autoLockSeconds !== undefined && change.autoLockSeconds > 0) refuseAutoLock(lock, ap);
      const low = change.batteryLow ?? lock.batteryLow;
      const critical = change.batteryCritical ?? lock.batteryCritical;
      const batteryState = batteryStateAfter(lock.batteryState, lock.battery, { low, critical });
      const crossing = batteryEvent(lock.batteryState, batteryState);
      const drafts: EventDraft[] = [];
      if (crossing)
        drafts.push({
          type: crossing,
          accountId: lock.ownerId,
          deviceId,
          actor,
          method: null,
          taskId: null,
          data: { battery: lock.battery, threshold: crossing === 'lock.battery_critical' ? critical : low },
        });
      const written = await store.locks.updateSettingsIf(
        deviceId,
        seen.version,
        { ...change, batteryState },
        eventLog?.stampAll(drafts) ?? [],
      );
      if (!written) continue;
      const after: Lock = { ...lock, ...change, batteryState };
      if (changesAutoLock(lock, change) && ap && lock.accessPoint && ap.protocolVersion >= AUTO_LOCK_PROTOCOL)
        devices?.configure(ap.id, deviceId, { autoLockSeconds: after.autoLockSeconds });
      return detail(accountId, after, ap);
    }
    throw new DomainError('CONFLICT', 'the lock changed while its settings were written: try again');
  }

  private async visible(accountId: string, lock: Lock): Promise<boolean> {
    return lock.ownerId === accountId || (await this.deps.store.locks.isSharedWith(lock.deviceId, accountId));
  }

  /** The owner's access point the lock is paired with (or was last). */
  private async accessPointOf(accountId: string, lock: Lock): Promise<AccessPoint | null> {
    if (lock.ownerId !== accountId || lock.accessPointId === null) return null;
    const ap = await this.deps.store.accessPoints.get(lock.accessPointId);
    if (!ap || ap.accountId !== accountId) return null;
    const { secretHash: _hash, ...rest } = ap;
    return rest;
  }
}

/** The detail `accountId` sees: an access point only for the lock's owner. */
function detail(accountId: string, lock: Lock, accessPoint: AccessPoint | null): LockDetail {
  const owner = lock.ownerId === accountId;
  return { lock, role: owner ? 'owner' : 'guest', accessPoint: owner ? accessPoint : null };
}

const changesAutoLock = (lock: Lock, change: LockSettingsChange): boolean =>
  change.autoLockSeconds !== undefined && change.autoLockSeconds !== lock.autoLockSeconds;

/** Auto-lock is the device's to carry out: one that cannot do it must not be promised it. */
function refuseAutoLock(lock: Lock, ap: AccessPoint | null): void {
  if (!lock.accessPoint || ap === null)
    throw new DomainError('INVALID_INPUT', 'auto_lock_seconds: the lock is not paired with an access point', {
      field: 'auto_lock_seconds',
    });
  if (ap.protocolVersion < AUTO_LOCK_PROTOCOL)
    throw new DomainError(
      'INVALID_INPUT',
      `auto_lock_seconds: the lock's access point speaks device protocol ${ap.protocolVersion}, which has no auto-lock (${AUTO_LOCK_PROTOCOL} or later has)`,
      { field: 'auto_lock_seconds' },
    );
}
