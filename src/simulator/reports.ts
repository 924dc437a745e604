import type * as v1 from '../device-protocol/v1.ts';
import type * as v2 from '../device-protocol/v2.ts';
import type { SimDeviceState } from '../domain/sim-device.ts';

/** What a simulated lock says of itself, in each payload version (docs/device-protocol.md). */

/** A steady Wi-Fi signal for a simulated access point, from its id: -45 to -84 dBm. */
export function signalOf(apId: string): number {
  return -45 - (Number.parseInt(apId.slice(0, 2), 16) % 40 || 0);
}

export function stateOf(lock: SimDeviceState): v1.DeviceState {
  return { locked: lock.locked, battery: lock.battery, reachable: lock.responsive, app_open: lock.appOpen };
}

/** Version 2's report: version 1's, and the lock's health (no door field: it has no sensor). */
export function stateOfV2(lock: SimDeviceState): v2.DeviceState {
  return {
    ...stateOf(lock),
    jammed: lock.jammed,
    ...(lock.door === null ? {} : { door: lock.door }),
    fw: lock.firmware,
    auto_lock_seconds: lock.autoLockSeconds,
  };
}

/** The sandbox's view of a lock (a sim-ack), version 1. */
export function simStateOf(lock: SimDeviceState): v1.SimLockState {
  return {
    ...stateOf(lock),
    paired: lock.accessPoint,
    latency_ms: lock.latencyMs,
    fail_next: lock.failNext === 'INTERNAL_ERROR' ? null : lock.failNext,
  };
}

export function simStateOfV2(lock: SimDeviceState): v2.SimLockState {
  return {
    ...simStateOf(lock),
    jammed: lock.jammed,
    door: lock.door,
    fw: lock.firmware,
    auto_lock_seconds: lock.autoLockSeconds,
  };
}
