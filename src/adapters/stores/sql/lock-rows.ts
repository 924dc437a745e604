/** A lock's row and the domain's Lock, both ways: the columns each kind of write sets. */
import type { Selectable } from 'kysely';
import type { LockStatus } from '../../../app/ports.ts';
import type { BatteryState, DoorState, Lock } from '../../../domain/lock.ts';
import { LOCK_ROW_STRINGS as shared } from './shared-strings.ts';
import { bool, type LocksTable } from './tables.ts';

/** Values that repeat across locks (owner, access point, firmware, zone) are shared copies (shared-strings.ts). */
export function toLock(row: Selectable<LocksTable>): Lock {
  return {
    deviceId: row.device_id,
    serial: row.serial,
    nickname: row.nickname,
    ownerId: shared.of(row.owner_id),
    locked: row.locked === 1,
    battery: row.battery,
    responsive: row.responsive === 1,
    integration: row.integration === 1,
    accessPoint: row.access_point === 1,
    appOpen: row.app_open === 1,
    accessPointId: shared.ofNullable(row.ap_id),
    createdAt: Number(row.created_at),
    jammed: row.jammed === 1,
    door: doorOf(row.door),
    firmware: shared.ofNullable(row.firmware),
    lastSeenAt: row.last_seen_at === null ? null : Number(row.last_seen_at),
    autoLockSeconds: row.auto_lock_seconds,
    batteryLow: row.battery_low,
    batteryCritical: row.battery_critical,
    timeZone: shared.of(row.time_zone),
    batteryState: batteryStateOfRow(row.battery_state),
    offlineSince: row.offline_since === null ? null : Number(row.offline_since),
    offlineAnnounced: row.offline_announced === 1,
    batteryPerDay: row.battery_per_day_tenths === null ? null : row.battery_per_day_tenths / 10,
    batteryRef:
      row.battery_ref_level === null || row.battery_ref_at === null
        ? null
        : { level: row.battery_ref_level, at: Number(row.battery_ref_at) },
  };
}

const doorOf = (value: string | null): DoorState | null =>
  value === 'open' || value === 'closed' ? value : null;
const batteryStateOfRow = (value: string): BatteryState =>
  value === 'low' || value === 'critical' ? value : 'ok';

/** The columns of a lock's status: what every status write sets (the report's fields and their bookkeeping). */
export function statusColumns(status: LockStatus) {
  return {
    locked: bool(status.locked),
    battery: status.battery,
    responsive: bool(status.responsive),
    app_open: bool(status.appOpen),
    jammed: bool(status.jammed),
    door: status.door,
    firmware: status.firmware,
    last_seen_at: status.lastSeenAt,
    battery_state: status.batteryState,
    offline_since: status.offlineSince,
    offline_announced: bool(status.offlineAnnounced),
    ...trendColumns(status),
  };
}

/** The trend in tenths of a point (an integer column: exact on both backends) and its reference reading. */
export function trendColumns(trend: Pick<Lock, 'batteryPerDay' | 'batteryRef'>) {
  return {
    battery_per_day_tenths: trend.batteryPerDay === null ? null : Math.round(trend.batteryPerDay * 10),
    battery_ref_level: trend.batteryRef?.level ?? null,
    battery_ref_at: trend.batteryRef?.at ?? null,
  };
}
