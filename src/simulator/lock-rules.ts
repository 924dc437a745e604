import { type LockCommand, stateAfter } from '../domain/lock.ts';
import type { SimDeviceState } from '../domain/sim-device.ts';

/** The failures a simulated lock can answer with (TIMEOUT is answering nothing). */
export type LockFailure = 'JAMMED' | 'DEVICE_IS_BUSY' | 'LOW_BATTERY' | 'DEVICE_UNREACHABLE';

/** What a device does once a command reaches it; `outcome: null` is a command it swallows (TIMEOUT). */
export interface Execution {
  readonly next: SimDeviceState;
  readonly outcome: { readonly ok: true } | { readonly ok: false; readonly error: LockFailure } | null;
}

/** The access point can carry a command to the lock: paired with it and within reach. */
export function reachable(device: SimDeviceState): boolean {
  return device.accessPoint && device.responsive;
}

/**
 * How a simulated lock carries out a command: the rules of a real lock, as a pure function of its
 * state. A planned failure (`failNext`) is used up by the command it hits. `drainPerCommand` is the
 * battery a lock or unlock costs, in whole percent.
 */
export function carryOut(
  device: SimDeviceState,
  command: LockCommand,
  lowBatteryThreshold: number,
  drainPerCommand = 0,
): Execution {
  if (!reachable(device)) return { next: device, outcome: { ok: false, error: 'DEVICE_UNREACHABLE' } };
  if (device.failNext !== null) {
    const next = { ...device, failNext: null };
    if (device.failNext === 'TIMEOUT') return { next, outcome: null };
    if (device.failNext === 'INTERNAL_ERROR') return { next, outcome: { ok: false, error: 'JAMMED' } };
    return { next, outcome: { ok: false, error: device.failNext } };
  }
  if (device.appOpen) return { next: device, outcome: { ok: false, error: 'DEVICE_IS_BUSY' } };
  if (command === 'sync') return { next: device, outcome: { ok: true } };
  if (device.battery < lowBatteryThreshold)
    return { next: device, outcome: { ok: false, error: 'LOW_BATTERY' } };
  const locked = stateAfter(command, device.locked);
  const battery = Math.max(0, device.battery - drainPerCommand);
  return { next: { ...device, locked, battery }, outcome: { ok: true } };
}
