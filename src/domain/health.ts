/**
 * A lock's health (issue 22): its door sensor, its battery state against the owner's thresholds,
 * the debounce that tells a short reconnect from an outage, and the owner's settings of them. Pure
 * rules, no I/O; the events they lead to are made in event.ts (statusEvents).
 */
import { checkFields, DomainError } from './errors.ts';
import type { BatteryState, DoorState } from './lock.ts';
import { canonicalTimeZone } from './schedule.ts';

export type { BatteryState, DoorState } from './lock.ts';

export const DOOR_STATES: readonly DoorState[] = ['open', 'closed'];
/**
 * Stored, not computed from the level: with hysteresis a level between two thresholds belongs to
 * either state, depending on where it came from.
 */
export const BATTERY_STATES: readonly BatteryState[] = ['ok', 'low', 'critical'];

/** Points a level must rise past a threshold before the state it left is left behind. */
export const BATTERY_HYSTERESIS = 5;

export interface BatteryThresholds {
  /** Under it (percent) the battery is low. */
  readonly low: number;
  /** Under it the battery is critical; always under `low`. */
  readonly critical: number;
}

export const DEFAULT_BATTERY_THRESHOLDS: BatteryThresholds = { low: 20, critical: 10 };

/** The level at or above which a state is left upwards; a full battery always leaves it. */
const recovered = (threshold: number): number => Math.min(threshold + BATTERY_HYSTERESIS, 100);

/**
 * The battery state after a reading of `level`. Falling: under `low` an ok battery is low, under
 * `critical` any battery is critical. Rising: a low or critical battery is ok again only at
 * `low + 5`; a critical one becomes low (silently, see batteryEvent) at `critical + 5`, so that a
 * later fall under `critical` is a new crossing. A level hovering at a threshold stays in its state.
 */
export function batteryStateAfter(
  state: BatteryState,
  level: number,
  { low, critical }: BatteryThresholds,
): BatteryState {
  if (level < critical) return 'critical';
  if (state === 'ok') return level < low ? 'low' : 'ok';
  if (level >= recovered(low)) return 'ok';
  if (state === 'critical' && level >= recovered(critical)) return 'low';
  return state;
}

export type BatteryEventType = 'lock.battery_low' | 'lock.battery_critical' | 'lock.battery_ok';

/**
 * The event a change of battery state is, once per crossing: into low, into critical (also straight
 * from ok: only the critical one), back to ok. Critical to low is the way back up, not news.
 */
export function batteryEvent(before: BatteryState, after: BatteryState): BatteryEventType | null {
  if (before === after) return null;
  if (after === 'critical') return 'lock.battery_critical';
  if (after === 'ok') return 'lock.battery_ok';
  return before === 'ok' ? 'lock.battery_low' : null;
}

/**
 * Whether a lock can be reached, and the bookkeeping of the debounce: `offlineSince` is when it was
 * last found unresponsive (null while responsive), `offlineAnnounced` whether lock.offline was
 * written for that outage. lock.offline waits for the grace period (offlineDue), so a short
 * reconnect is not an outage; lock.online follows only an announced lock.offline.
 */
export interface Reach {
  readonly responsive: boolean;
  readonly offlineSince: number | null;
  readonly offlineAnnounced: boolean;
}

/**
 * The reach after a report says `responsive` at `now`: losing the lock starts the outage's clock
 * (announced later, if it lasts); finding it again ends the outage, and says so (`online`) only
 * when its start was announced.
 */
export function reachAfter(
  before: Reach,
  responsive: boolean,
  now: number,
): { readonly reach: Reach; readonly online: boolean } {
  if (responsive) {
    return {
      reach: { responsive: true, offlineSince: null, offlineAnnounced: false },
      online: !before.responsive && before.offlineAnnounced,
    };
  }
  if (!before.responsive && before.offlineSince !== null) {
    // Only the reach's own fields: `before` may be a whole lock.
    const { offlineSince, offlineAnnounced } = before;
    return { reach: { responsive: false, offlineSince, offlineAnnounced }, online: false };
  }
  return { reach: { responsive: false, offlineSince: now, offlineAnnounced: false }, online: false };
}

/** What of a lock the health bookkeeping keeps (a Lock is one). */
export interface HealthBookkeeping extends Reach, BatteryTrend {
  readonly battery: number;
  readonly batteryState: BatteryState;
  readonly batteryLow: number;
  readonly batteryCritical: number;
}

/** A battery's trend and the reading it is measured from (Lock.batteryPerDay, Lock.batteryRef). */
export interface BatteryTrend {
  readonly batteryPerDay: number | null;
  readonly batteryRef: { readonly level: number; readonly at: number } | null;
}

const DAY_MS = 86_400_000;

/**
 * The trend after a reading of `level` at `now`: measured from the reference reading once a day or
 * more has passed since it, in points per day to one decimal, and the reading becomes the next
 * reference. Within the day the trend stays what it was, so a burst of reports changes nothing.
 */
export function batteryTrendAfter(trend: BatteryTrend, level: number, now: number): BatteryTrend {
  const ref = trend.batteryRef;
  if (ref === null || now < ref.at)
    return { batteryPerDay: trend.batteryPerDay, batteryRef: { level, at: now } };
  if (now - ref.at < DAY_MS) return trend;
  const perDay = Math.round(((level - ref.level) / ((now - ref.at) / DAY_MS)) * 10) / 10;
  return { batteryPerDay: perDay === 0 ? 0 : perDay, batteryRef: { level, at: now } };
}

/**
 * `after` (a lock with a report applied) with its bookkeeping brought along from `before` at `now`:
 * the battery state against the lock's own thresholds, and the outage's start and announcement.
 * statusEvents reads the events from the two.
 */
export function withHealth<T extends HealthBookkeeping>(before: T, after: T, now: number): T {
  const { reach } = reachAfter(before, after.responsive, now);
  const batteryState = batteryStateAfter(before.batteryState, after.battery, {
    low: after.batteryLow,
    critical: after.batteryCritical,
  });
  // Only a reading of the battery moves the trend: an unreachable lock's stored level is not one.
  const trend = after.responsive ? batteryTrendAfter(before, after.battery, now) : before;
  return {
    ...after,
    ...reach,
    batteryState,
    batteryPerDay: trend.batteryPerDay,
    batteryRef: trend.batteryRef,
  };
}

/** Whether the bookkeeping differs: a report that changes only it is still written. */
export function healthChanged(before: HealthBookkeeping, after: HealthBookkeeping): boolean {
  return (
    before.batteryState !== after.batteryState ||
    before.offlineSince !== after.offlineSince ||
    before.offlineAnnounced !== after.offlineAnnounced ||
    before.batteryPerDay !== after.batteryPerDay ||
    before.batteryRef?.at !== after.batteryRef?.at
  );
}

/** Whether lock.offline is due for a lock at `now`: unresponsive for the whole grace, not yet said. */
export function offlineDue(lock: Reach, now: number, graceMs: number): boolean {
  return (
    !lock.responsive &&
    !lock.offlineAnnounced &&
    lock.offlineSince !== null &&
    now - lock.offlineSince >= graceMs
  );
}

/** The owner's settings of a lock (PATCH /ext/locks/{device_id}, the dashboard); any may be absent. */
export interface LockSettingsInput {
  readonly nickname?: unknown;
  readonly autoLockSeconds?: unknown;
  readonly batteryLow?: unknown;
  readonly batteryCritical?: unknown;
  /** The lock's IANA time zone, which grants' schedules are read in (issue 23). */
  readonly timeZone?: unknown;
}

export interface LockSettingsChange {
  readonly nickname?: string;
  /** 0: off. */
  readonly autoLockSeconds?: number;
  readonly batteryLow?: number;
  readonly batteryCritical?: number;
  /** As Intl spells it (canonicalTimeZone). */
  readonly timeZone?: string;
}

export const MAX_AUTO_LOCK_SECONDS = 3600;
export const MAX_NICKNAME_LENGTH = 128;

const invalid = (field: string, message: string): DomainError =>
  new DomainError('INVALID_INPUT', `${field}: ${message}`, { field });

const integerIn = (field: string, value: unknown, min: number, max: number): number => {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max)
    throw invalid(field, `must be an integer from ${min} to ${max}`);
  return value;
};

// C0, DEL and C1 controls: a nickname is shown on one line, in the dashboard and the CLI.
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it finds
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

const nicknameOf = (value: unknown): string => {
  if (typeof value !== 'string') throw invalid('nickname', 'must be a string');
  const length = [...value].length;
  if (length < 1 || length > MAX_NICKNAME_LENGTH)
    throw invalid('nickname', `must be 1 to ${MAX_NICKNAME_LENGTH} characters`);
  if (CONTROL.test(value)) throw invalid('nickname', 'must not contain control characters');
  return value;
};

const timeZoneOf = (value: unknown): string => {
  const zone = typeof value === 'string' ? canonicalTimeZone(value) : null;
  if (zone === null) throw invalid('time_zone', 'must be an IANA time zone name (Europe/Berlin, UTC)');
  return zone;
};

/**
 * Checks the owner's settings (the names are the /ext body's: nickname, auto_lock_seconds,
 * battery_low, battery_critical). `current` holds the thresholds stored now, so that changing one
 * alone is checked against the other: critical stays under low. Throws INVALID_INPUT naming the
 * field; answers the change, without the fields that were absent.
 */
export function checkLockSettings(input: LockSettingsInput, current: BatteryThresholds): LockSettingsChange {
  const optional =
    <T>(value: unknown, check: (v: unknown) => T) =>
    (): T | undefined =>
      value === undefined ? undefined : check(value);
  // Every field is checked, so a form shows each wrong one at once (checkFields).
  const [nickname, autoLockSeconds, batteryLow, batteryCritical, timeZone] = checkFields(
    optional(input.nickname, nicknameOf),
    optional(input.autoLockSeconds, (v) => integerIn('auto_lock_seconds', v, 0, MAX_AUTO_LOCK_SECONDS)),
    optional(input.batteryLow, (v) => integerIn('battery_low', v, 2, 100)),
    optional(input.batteryCritical, (v) => integerIn('battery_critical', v, 1, 99)),
    optional(input.timeZone, timeZoneOf),
  );
  const low = batteryLow ?? current.low;
  const critical = batteryCritical ?? current.critical;
  if (critical >= low) {
    // Name the field the request changed; both changed: the critical one, the one to lower.
    const field = batteryCritical === undefined ? 'battery_low' : 'battery_critical';
    throw invalid(field, `battery_critical (${critical}) must be lower than battery_low (${low})`);
  }
  return {
    ...(nickname === undefined ? {} : { nickname }),
    ...(autoLockSeconds === undefined ? {} : { autoLockSeconds }),
    ...(batteryLow === undefined ? {} : { batteryLow }),
    ...(batteryCritical === undefined ? {} : { batteryCritical }),
    ...(timeZone === undefined ? {} : { timeZone }),
  };
}
