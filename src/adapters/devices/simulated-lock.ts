import type { DeviceCommand, DeviceResult, SimDeviceState } from '../../app/ports.ts';
import { stateAfter } from '../../domain/lock.ts';

/** What a device answers once a command reaches it; `null` is a command it swallows (TIMEOUT). */
export interface Execution {
  readonly next: SimDeviceState;
  readonly result: DeviceResult | null;
}

export function reachable(device: SimDeviceState): boolean {
  return device.accessPoint && device.responsive;
}

/**
 * How a simulated lock carries out a command: the rules of a real lock, as a pure function of its
 * state. A planned failure (`failNext`) is used up by the command it hits.
 */
export function carryOut(
  device: SimDeviceState,
  command: DeviceCommand,
  lowBatteryThreshold: number,
): Execution {
  const report = {
    locked: device.locked,
    battery: device.battery,
    responsive: true,
    appOpen: device.appOpen,
  };
  if (!reachable(device)) return { next: device, result: { ok: false, error: 'DEVICE_UNREACHABLE' } };
  if (device.failNext !== null) {
    const next = { ...device, failNext: null };
    if (device.failNext === 'TIMEOUT') return { next, result: null };
    if (device.failNext === 'DEVICE_UNREACHABLE')
      return { next, result: { ok: false, error: 'DEVICE_UNREACHABLE' } };
    return { next, result: { ok: false, error: device.failNext, report } };
  }
  if (device.appOpen) return { next: device, result: { ok: false, error: 'DEVICE_IS_BUSY', report } };
  if (command.command !== 'sync' && device.battery < lowBatteryThreshold) {
    return { next: device, result: { ok: false, error: 'LOW_BATTERY', report } };
  }
  const locked = stateAfter(command.command, device.locked);
  return { next: { ...device, locked }, result: { ok: true, report: { ...report, locked } } };
}
