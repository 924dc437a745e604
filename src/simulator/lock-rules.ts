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
 * battery a lock or unlock costs, in whole percent. `health`: the lock's access point speaks device
 * protocol 2, so a jammed lock answers JAMMED to lock and unlock until freed (sync succeeds and
 * reports it). A planned failure (`failNext`, the sandbox's) stays the one command's, on either
 * version, as the sandbox documents it; a jam that happens (`jam`) leaves a v2 lock jammed.
 */
export function carryOut(
  device: SimDeviceState,
  command: LockCommand,
  lowBatteryThreshold: number,
  drainPerCommand = 0,
  health = false,
  jam = false,
): Execution {
  if (!reachable(device)) return { next: device, outcome: { ok: false, error: 'DEVICE_UNREACHABLE' } };
  // The bolt stuck on its way: on version 2 it stays stuck until a hand turn (or the sandbox) frees it.
  if (jam && command !== 'sync' && device.failNext === null)
    return { next: health ? { ...device, jammed: true } : device, outcome: { ok: false, error: 'JAMMED' } };
  if (device.failNext !== null) {
    const next = { ...device, failNext: null };
    if (device.failNext === 'TIMEOUT') return { next, outcome: null };
    const error = device.failNext === 'INTERNAL_ERROR' ? 'JAMMED' : device.failNext;
    return { next, outcome: { ok: false, error } };
  }
  if (device.appOpen) return { next: device, outcome: { ok: false, error: 'DEVICE_IS_BUSY' } };
  if (command === 'sync') return { next: device, outcome: { ok: true } };
  if (health && device.jammed) return { next: device, outcome: { ok: false, error: 'JAMMED' } };
  if (device.battery < lowBatteryThreshold)
    return { next: device, outcome: { ok: false, error: 'LOW_BATTERY' } };
  const locked = stateAfter(command, device.locked);
  const battery = Math.max(0, device.battery - drainPerCommand);
  return { next: { ...device, locked, battery }, outcome: { ok: true } };
}

/**
 * When the lock relocks by itself after it was unlocked at `unlockedAt` (ms): auto-lock on, unlocked,
 * not jammed. undefined: it stays as it is.
 */
export function autoLockAt(device: SimDeviceState, unlockedAt: number): number | undefined {
  if (device.autoLockSeconds <= 0 || device.locked || device.jammed) return undefined;
  return unlockedAt + device.autoLockSeconds * 1000;
}

/**
 * The auto-lock's turn comes: the lock relocks (costing a movement's battery) unless the door is
 * open, in which case it waits for the door to close (`wait`); a lock that is locked, jammed or out
 * of reach by then, or whose auto-lock was turned off, does nothing (`skip`).
 */
export function autoRelock(
  device: SimDeviceState,
  drainPerCommand = 0,
): { readonly kind: 'relock'; readonly next: SimDeviceState } | { readonly kind: 'wait' | 'skip' } {
  if (device.autoLockSeconds <= 0 || device.locked || device.jammed || !reachable(device))
    return { kind: 'skip' };
  if (device.door === 'open') return { kind: 'wait' };
  return {
    kind: 'relock',
    next: { ...device, locked: true, battery: Math.max(0, device.battery - drainPerCommand) },
  };
}

/** What the world may change of a lock (a hand turn, the door, the sandbox), as a sim change says. */
export interface WorldChange {
  readonly locked?: boolean;
  readonly battery?: number;
  readonly reachable?: boolean;
  readonly paired?: boolean;
  readonly appOpen?: boolean;
  readonly latencyMs?: number;
  readonly failNext?: SimDeviceState['failNext'];
  readonly door?: SimDeviceState['door'];
  readonly jammed?: boolean;
  readonly firmware?: string;
}

/**
 * The lock after a change of the world. A hand turn frees a jammed bolt (turning it by hand is how a
 * jam is cleared), unless the same change says it is jammed.
 */
export function changed(device: SimDeviceState, change: WorldChange): SimDeviceState {
  const turned = change.locked !== undefined;
  return {
    ...device,
    locked: change.locked ?? device.locked,
    battery: change.battery ?? device.battery,
    responsive: change.reachable ?? device.responsive,
    accessPoint: change.paired ?? device.accessPoint,
    appOpen: change.appOpen ?? device.appOpen,
    latencyMs: change.latencyMs ?? device.latencyMs,
    failNext: change.failNext === undefined ? device.failNext : change.failNext,
    door: change.door === undefined ? device.door : change.door,
    jammed: change.jammed ?? (turned ? false : device.jammed),
    firmware: change.firmware ?? device.firmware,
  };
}
