/**
 * What the devices' messages say, in the cloud's terms: a lock's state report as the store keeps
 * it, and an online status as what is known of its access point. Pure: the gateway (gateway.ts)
 * decodes a message and hands it here.
 */
import type { AccessPointInfo } from '../../../app/ports.ts';
import type { Message } from '../../../device-protocol/codec.ts';
import type { DeviceState } from '../../../device-protocol/v1.ts';
import type * as v2 from '../../../device-protocol/v2.ts';
import { BASE_VERSION, negotiatedVersion } from '../../../device-protocol/versions.ts';
import type { LockReport } from '../../../domain/lock.ts';

/** The state a device reports, as the cloud stores it: out of reach, the rest is unknown to the AP. */
export function reportOf(state: DeviceState): LockReport {
  return state.reachable
    ? { locked: state.locked, battery: state.battery, responsive: true, appOpen: state.app_open }
    : { responsive: false, appOpen: state.app_open };
}

/**
 * A version-2 report: version 1's and the lock's health, which a device knows only while in reach.
 * A door absent from it means the lock has no door sensor (null); `jammed` absent says nothing.
 */
export function reportOfV2(state: v2.DeviceState, cause?: 'manual' | 'auto'): LockReport {
  if (!state.reachable) return { responsive: false, appOpen: state.app_open };
  return {
    locked: state.locked,
    battery: state.battery,
    responsive: true,
    appOpen: state.app_open,
    door: state.door ?? null,
    ...(state.jammed === undefined ? {} : { jammed: state.jammed }),
    ...(state.fw === undefined ? {} : { firmware: state.fw }),
    ...(state.auto_lock_seconds === undefined ? {} : { autoLockSeconds: state.auto_lock_seconds }),
    ...(cause === undefined ? {} : { cause }),
  };
}

/** What an online status says of its access point. */
export function accessPointInfoOf(status: Message<'status'>): AccessPointInfo {
  if (status.v === BASE_VERSION)
    return status.fw === undefined ? { protocolVersion: 1 } : { firmware: status.fw, protocolVersion: 1 };
  return {
    ...(status.fw === undefined ? {} : { firmware: status.fw }),
    ...(status.rssi === undefined ? {} : { signal: status.rssi }),
    protocolVersion: negotiatedVersion(status.versions),
  };
}
