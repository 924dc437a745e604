import type {
  Cancel,
  Clock,
  DeviceCommand,
  DeviceGateway,
  DeviceResult,
  ReportListener,
  SimDeviceState,
  SimDeviceStore,
  SimulatedLockChange,
  Simulator,
} from '../../app/ports.ts';
import { DomainError } from '../../domain/errors.ts';
import type { LockReport } from '../../domain/lock.ts';
import { carryOut, reachable } from './simulated-lock.ts';

/**
 * Simulated locks living inside the server, behind the device-gateway port. Commands take the
 * lock's latency on the clock; unsolicited changes (a hand turn, the app opening) are reported to
 * listeners just as a real access point would report them.
 */
export class InProcessSimulator implements DeviceGateway, Simulator {
  private readonly devices = new Map<string, SimDeviceState>();
  private readonly listeners: ReportListener[] = [];
  private readonly inFlight = new Set<Cancel>();

  constructor(
    private readonly store: SimDeviceStore,
    private readonly clock: Clock,
    private readonly lowBatteryThreshold: number,
  ) {}

  async load(): Promise<void> {
    for (const device of await this.store.list()) this.devices.set(device.deviceId, device);
  }

  onReport(listener: ReportListener): void {
    this.listeners.push(listener);
  }

  execute(command: DeviceCommand): Promise<DeviceResult> {
    const device = this.devices.get(command.deviceId);
    // Without an access point or out of its reach, nothing carries the command: say so at once.
    if (!device || !reachable(device)) return Promise.resolve({ ok: false, error: 'DEVICE_UNREACHABLE' });
    return new Promise((resolve, reject) => {
      const cancel = this.clock.at(this.clock.now() + device.latencyMs, () => {
        this.inFlight.delete(cancel);
        this.arrive(command).then((result) => {
          if (result !== null) resolve(result);
        }, reject);
      });
      this.inFlight.add(cancel);
    });
  }

  get(deviceId: string): SimDeviceState | undefined {
    return this.devices.get(deviceId);
  }

  async add(state: SimDeviceState): Promise<void> {
    this.devices.set(state.deviceId, state);
    await this.store.save(state);
  }

  async change(deviceId: string, change: SimulatedLockChange): Promise<SimDeviceState> {
    const device = this.devices.get(deviceId);
    if (!device) throw new DomainError('LOCK_NOT_FOUND');
    const next: SimDeviceState = {
      ...device,
      locked: change.locked ?? device.locked,
      battery: change.battery ?? device.battery,
      responsive: change.responsive ?? device.responsive,
      accessPoint: change.accessPoint ?? device.accessPoint,
      appOpen: change.appOpen ?? device.appOpen,
      latencyMs: change.latencyMs ?? device.latencyMs,
      failNext: change.failNext === undefined ? device.failNext : change.failNext,
    };
    this.devices.set(deviceId, next);
    await this.store.save(next);
    // An access point that is gone cannot report the lock: the cloud only learns it is unreachable.
    const report: LockReport = reachable(next)
      ? { locked: next.locked, battery: next.battery, responsive: true, appOpen: next.appOpen }
      : { responsive: false, appOpen: next.appOpen };
    await this.report(deviceId, report);
    return next;
  }

  async replaceAll(states: readonly SimDeviceState[]): Promise<void> {
    this.cancelInFlight();
    this.devices.clear();
    for (const state of states) await this.add(state);
  }

  async close(): Promise<void> {
    this.cancelInFlight();
  }

  private async arrive(command: DeviceCommand): Promise<DeviceResult | null> {
    const device = this.devices.get(command.deviceId);
    if (!device) return { ok: false, error: 'DEVICE_UNREACHABLE' };
    const { next, result } = carryOut(device, command, this.lowBatteryThreshold);
    if (next !== device) {
      this.devices.set(command.deviceId, next);
      await this.store.save(next);
    }
    return result;
  }

  private async report(deviceId: string, report: LockReport): Promise<void> {
    for (const listener of this.listeners) await listener(deviceId, report);
  }

  private cancelInFlight(): void {
    for (const cancel of this.inFlight) cancel();
    this.inFlight.clear();
  }
}
