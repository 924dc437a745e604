/**
 * The lock store port: locks as their owners and devices change them, their status written with
 * the task it ends and the events both make, in one transaction. Re-exported by app/ports.ts.
 */
import type { LockEvent } from '../../domain/event.ts';
import type { Lock, NewLock, ReportMark } from '../../domain/lock.ts';
import type { Task, TaskOutcome } from '../../domain/task.ts';
import type { TaskEndEvents } from './tasks.ts';

/** A lock as read for a compare-and-set of its status, with the device report last applied. */
export interface LockStatusRead {
  readonly lock: Lock;
  readonly version: number;
  readonly mark: ReportMark | null;
}

/** What a status write sets: the device's report and the bookkeeping that follows it (not the owner's settings). */
export const LOCK_STATUS_FIELDS = [
  'locked',
  'battery',
  'responsive',
  'appOpen',
  'jammed',
  'door',
  'firmware',
  'lastSeenAt',
  'batteryState',
  'offlineSince',
  'offlineAnnounced',
  'batteryPerDay',
  'batteryRef',
] as const satisfies readonly (keyof Lock)[];

export type LockStatus = Pick<Lock, (typeof LOCK_STATUS_FIELDS)[number]>;

/** What LockStore.update changes: the owner's settings, pairing, and a status set outside a report. */
export type LockPatch = Partial<
  Pick<
    Lock,
    | 'serial'
    | 'nickname'
    | 'locked'
    | 'battery'
    | 'responsive'
    | 'integration'
    | 'accessPoint'
    | 'appOpen'
    | 'accessPointId'
    | 'autoLockSeconds'
    | 'batteryLow'
    | 'batteryCritical'
    | 'batteryState'
  >
>;

/** What LockStore.updateSettingsIf writes. */
export type LockSettingsWrite = Partial<
  Pick<Lock, 'nickname' | 'autoLockSeconds' | 'batteryLow' | 'batteryCritical' | 'batteryState' | 'timeZone'>
>;

/** A task ended with a status write (LockStore.writeStatusIfAndEnd), as TaskStore.terminate ends it. */
export interface TaskEnd {
  readonly taskId: string;
  readonly outcome: TaskOutcome;
  readonly at: number;
  /** Written with the end, only if this call ended the task. */
  readonly events?: TaskEndEvents;
}

export type StatusAndEndWritten =
  /** The compare-and-set lost: nothing was written, the task was left as it was. */
  | { readonly written: false }
  /**
   * The status was written (`status`: the lock as written, as readStatus would read it now);
   * `ended` is the task as this call ended it, undefined if it had ended already.
   */
  | { readonly written: true; readonly status: LockStatusRead; readonly ended: Task | undefined };

export interface LockStore {
  /** The health fields left out take their defaults (initialHealth). */
  insert(lock: NewLock): Promise<void>;
  get(deviceId: string): Promise<Lock | undefined>;
  readStatus(deviceId: string): Promise<LockStatusRead | undefined>;
  /**
   * Writes the status (and the report's mark) only if no other status write came since `version`
   * was read, and answers the lock as written, as readStatus would read it now; undefined when
   * another write came, and the caller reads again. `events` are written in the same transaction,
   * only when the status was. Every process may apply a lock's reports: this is what keeps one
   * change from being announced twice.
   */
  writeStatusIf(
    deviceId: string,
    version: number,
    status: LockStatus,
    mark: ReportMark | null,
    events?: readonly LockEvent[],
  ): Promise<LockStatusRead | undefined>;
  /**
   * writeStatusIf, and in the same transaction the end of `end`'s task: a command's acknowledgement
   * carries the lock's new status, and the movement and the task's end are committed together (one
   * transaction where there were two). The task is ended only if the status is written, and only if
   * it is still processing (a deadline or another process may have ended it: the status is written
   * all the same). `events` and the end's events are written in that transaction, in that order.
   */
  writeStatusIfAndEnd(
    deviceId: string,
    version: number,
    status: LockStatus,
    mark: ReportMark | null,
    events: readonly LockEvent[],
    end: TaskEnd,
  ): Promise<StatusAndEndWritten>;
  /**
   * The locks unresponsive since `cutoff` or before whose lock.offline is not written yet (the
   * offline sweeper's, app/offline-sweeper.ts), oldest outage first, at most `limit`.
   */
  listOfflineDue(cutoff: number, limit: number): Promise<Lock[]>;
  /**
   * Marks the outage that began at `offlineSince` announced and writes `events` (its lock.offline)
   * in the same transaction: a compare-and-set on the outage, so it is announced once whichever
   * processes try. False, and nothing written, when the lock is in reach again, lost since another
   * time, or announced already. Moves the status version: a report read before it writes again.
   */
  announceOffline(deviceId: string, offlineSince: number, events: readonly LockEvent[]): Promise<boolean>;
  /**
   * The owner's settings and the battery state read again against them, only if no status write
   * came since `version` was read (false: read again); `events` in the same transaction. Moves the
   * version, so a report being applied meanwhile is applied against the new thresholds.
   */
  updateSettingsIf(
    deviceId: string,
    version: number,
    settings: LockSettingsWrite,
    events: readonly LockEvent[],
  ): Promise<boolean>;
  listOwnedBy(accountId: string): Promise<Lock[]>;
  update(deviceId: string, patch: LockPatch): Promise<void>;
  /**
   * Shares as before grants (issue 23): the guest gets an accepted view grant at any time, with the
   * id and time of `made` (default: a random UUID, now; a seed gives its own, so that the same seed
   * stores the same rows). A grant to the guest that is not accepted is replaced by it; an accepted
   * one is left as it is. Nothing happens for a lock that does not exist. `events` are written in
   * the same transaction, only when the grant was written.
   */
  share(
    deviceId: string,
    accountId: string,
    events?: readonly LockEvent[],
    made?: { readonly id: string; readonly at: number },
  ): Promise<void>;
  /** How many locks each account owns, by account id; an account owning none is absent. */
  countByOwner(): Promise<Map<string, number>>;
  /** Owned locks and those of accepted grants together, in one stable order (creation, then id). */
  listVisibleTo(accountId: string): Promise<Lock[]>;
  /** Whether the account has an accepted grant to the lock. */
  isSharedWith(deviceId: string, accountId: string): Promise<boolean>;
  /** The locks whose access point is this one (paired now or last), in creation order. */
  listByAccessPoint(apId: string): Promise<Lock[]>;
  /** The accounts with an accepted grant to the lock, by e-mail. */
  sharesOf(deviceId: string): Promise<{ accountId: string; email: string }[]>;
  /**
   * Deletes the guest's grant to the lock, whatever its state; false when there was none. `events`
   * are written with it, only when there was one.
   */
  unshare(deviceId: string, accountId: string, events?: readonly LockEvent[]): Promise<boolean>;
  /**
   * A deleted account's locks leave the cloud with their grants, as do the grants it was given and
   * those it gave. Answers the device ids of its locks.
   */
  releaseAccount(accountId: string): Promise<string[]>;
}
