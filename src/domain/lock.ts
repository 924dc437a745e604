import { DomainError } from './errors.ts';

export type LockCommand = 'lock' | 'unlock' | 'sync';
export const LOCK_COMMANDS: readonly LockCommand[] = ['lock', 'unlock', 'sync'];

/** A door sensor's reading. A lock without a sensor has none (null). */
export type DoorState = 'open' | 'closed';

/** Where the battery stands against the lock's own thresholds (kept, for the hysteresis). */
export type BatteryState = 'ok' | 'low' | 'critical';

/**
 * A lock's health, as device protocol 2 reports it, and the owner's settings for it
 * (docs/device-protocol.md, docs/events.md). A lock on protocol 1 keeps the defaults.
 */
export interface LockHealth {
  readonly jammed: boolean;
  /** null: no door sensor (or none reported). */
  readonly door: DoorState | null;
  readonly firmware: string | null;
  /** The last report of the lock from its access point (epoch ms); null: never heard. */
  readonly lastSeenAt: number | null;
  /** The owner's auto-lock setting: relock this many seconds after an unlock; 0: off. */
  readonly autoLockSeconds: number;
  /** The owner's battery thresholds in percent: under `batteryLow` is low, under `batteryCritical` critical. */
  readonly batteryLow: number;
  readonly batteryCritical: number;
  /**
   * The owner's setting: the IANA time zone the lock's door is in, in which grants' weekly schedules
   * are read (domain/schedule.ts). 'UTC' until the owner sets one.
   */
  readonly timeZone: string;
  readonly batteryState: BatteryState;
  /** Since when the lock has been unresponsive (null: it is responsive), for the offline debounce. */
  readonly offlineSince: number | null;
  /** Its going offline has been announced (lock.offline written): its return is announced too. */
  readonly offlineAnnounced: boolean;
  /**
   * The battery's trend in percent points per day (negative: draining), over a day or more of
   * readings; null until a day has passed since the first (batteryTrendAfter).
   */
  readonly batteryPerDay: number | null;
  /** The reading the trend is measured from: its level and time (null: none yet). */
  readonly batteryRef: { readonly level: number; readonly at: number } | null;
}

export const DEFAULT_BATTERY_LOW = 20;
export const DEFAULT_BATTERY_CRITICAL = 10;
/** A lock's zone until its owner sets one (migration 017 gives existing locks the same). */
export const DEFAULT_TIME_ZONE = 'UTC';

/** Where a battery level stands against thresholds, with no history (a lock just added). */
export function batteryStateOf(level: number, low: number, critical: number): BatteryState {
  if (level < critical) return 'critical';
  return level < low ? 'low' : 'ok';
}

/** A lock's health before any report and with the default settings; the battery state follows its level. */
export function initialHealth(battery: number): LockHealth {
  return {
    jammed: false,
    door: null,
    firmware: null,
    lastSeenAt: null,
    autoLockSeconds: 0,
    batteryLow: DEFAULT_BATTERY_LOW,
    batteryCritical: DEFAULT_BATTERY_CRITICAL,
    timeZone: DEFAULT_TIME_ZONE,
    batteryState: batteryStateOf(battery, DEFAULT_BATTERY_LOW, DEFAULT_BATTERY_CRITICAL),
    offlineSince: null,
    offlineAnnounced: false,
    batteryPerDay: null,
    batteryRef: null,
  };
}

/** The cloud's view of a lock: what the devices last reported plus the owner's settings. */
export interface Lock extends LockHealth {
  readonly deviceId: string;
  readonly serial: string;
  readonly nickname: string;
  readonly ownerId: string;
  readonly locked: boolean;
  readonly battery: number;
  /** The access point is connected and the lock is within its reach. */
  readonly responsive: boolean;
  /** The owner switched cloud integration on in the mobile app. */
  readonly integration: boolean;
  /** The lock is paired with a Wi-Fi access point. */
  readonly accessPoint: boolean;
  /** The access point it is paired with, or was last; null when no device ever announced it. */
  readonly accessPointId: string | null;
  /** The owner's mobile app holds the lock's one connection. */
  readonly appOpen: boolean;
  readonly createdAt: number;
}

/**
 * Whether two reads of a lock hold the same values: every field a value, but for the trend's
 * reference reading, a pair. A cache may then keep one object for both.
 */
export function sameLock(a: Lock, b: Lock): boolean {
  for (const field in a) {
    const x = a[field as keyof Lock];
    const y = b[field as keyof Lock];
    if (x === y) continue;
    if (field !== 'batteryRef' || !sameReading(a.batteryRef, b.batteryRef)) return false;
  }
  return Object.keys(a).length === Object.keys(b).length;
}

const sameReading = (x: Lock['batteryRef'], y: Lock['batteryRef']): boolean =>
  x !== null && y !== null && x.level === y.level && x.at === y.at;

/** A lock as it is first stored: its health may be left to the defaults (initialHealth). */
export type NewLock = Omit<Lock, keyof LockHealth> & Partial<LockHealth>;

/**
 * What a device reports about itself; any field may be absent. Device protocol 1 reports the first
 * four; version 2 adds the lock's health (docs/device-protocol.md).
 */
export interface LockReport {
  readonly locked?: boolean;
  readonly battery?: number;
  readonly responsive?: boolean;
  readonly appOpen?: boolean;
  readonly jammed?: boolean;
  /** null: the report says the lock has no door sensor; absent: it says nothing of one. */
  readonly door?: DoorState | null;
  readonly firmware?: string;
  /** The auto-lock delay the device runs now (0: off), to compare with the owner's setting. */
  readonly autoLockSeconds?: number;
  /** Why the lock moved when no command moved it: by hand, or its own auto-lock. */
  readonly cause?: 'manual' | 'auto';
}

/**
 * Where a device report sits in its access point's count: reports carry a rising sequence number,
 * counted afresh when the access point starts a new epoch (docs/device-protocol.md).
 */
export interface ReportMark {
  readonly apId: string;
  readonly epoch: string;
  readonly seq: number;
}

/**
 * Late, duplicate and out-of-order reports change nothing. The count is the access point's own: a
 * report from another access point than the last (the lock moved) or from a new epoch starts afresh.
 */
export function isFreshReport(last: ReportMark | null, mark: ReportMark): boolean {
  return last === null || last.apId !== mark.apId || last.epoch !== mark.epoch || mark.seq > last.seq;
}

export interface CommandPolicy {
  /** Percent under which lock and unlock are refused (sync is not: it moves nothing). */
  readonly lowBatteryThreshold: number;
}

/** v1's api_enabled, and the v3 integration precondition: both need the switch and a paired access point. */
export function apiEnabled(lock: Pick<Lock, 'integration' | 'accessPoint'>): boolean {
  return lock.integration && lock.accessPoint;
}

export function isLockCommand(value: unknown): value is LockCommand {
  return typeof value === 'string' && (LOCK_COMMANDS as readonly string[]).includes(value);
}

/**
 * The preconditions a command must pass before a task is created, in the documented order:
 * integration, battery, then the app holding the connection. A task already running on the lock is
 * checked atomically by the task store, since only it can see other processes' tasks.
 */
export function checkCommandAllowed(lock: Lock, command: LockCommand, policy: CommandPolicy): void {
  if (!apiEnabled(lock)) throw new DomainError('INTEGRATION_DISABLED');
  if (command !== 'sync' && lock.battery < policy.lowBatteryThreshold) throw new DomainError('LOW_BATTERY');
  // The app's connection has no known end, so no wait can be promised.
  if (lock.appOpen) throw new DomainError('BUSY', 'the mobile app holds the lock');
}

/** The lock state a successful command leaves behind; sync leaves it to the device's report. */
export function stateAfter(command: LockCommand, current: boolean): boolean {
  if (command === 'lock') return true;
  if (command === 'unlock') return false;
  return current;
}

/** Applies a device report to the stored lock; says which fields changed so callers can react. */
export function applyReport(
  lock: Lock,
  report: LockReport,
): { lock: Lock; stateChanged: boolean; changed: boolean } {
  const next: Lock = {
    ...lock,
    locked: report.locked ?? lock.locked,
    battery: report.battery ?? lock.battery,
    responsive: report.responsive ?? lock.responsive,
    appOpen: report.appOpen ?? lock.appOpen,
    jammed: report.jammed ?? lock.jammed,
    door: report.door === undefined ? lock.door : report.door,
    firmware: report.firmware ?? lock.firmware,
  };
  const stateChanged = next.locked !== lock.locked;
  const changed =
    stateChanged ||
    next.battery !== lock.battery ||
    next.responsive !== lock.responsive ||
    next.appOpen !== lock.appOpen ||
    next.jammed !== lock.jammed ||
    next.door !== lock.door ||
    next.firmware !== lock.firmware;
  return { lock: next, stateChanged, changed };
}

export function isValidBattery(value: number): boolean {
  return Number.isInteger(value) && value >= 0 && value <= 100;
}
