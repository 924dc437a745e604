/**
 * The ports of the device link: the way to the locks (the gateway and what it tells the cloud), the
 * registered access points, and the simulated devices the sandbox drives. Re-exported by app/ports.ts.
 */
import type { AccessPoint, AnnouncedLock, NewAccessPoint } from '../../domain/access-point.ts';
import type { LockEvent } from '../../domain/event.ts';
import type { DoorState, LockCommand, LockReport, ReportMark } from '../../domain/lock.ts';
import type { SimAccessPoint, SimDeviceState } from '../../domain/sim-device.ts';
import type { TaskFailure } from '../../domain/task.ts';

/** What an access point's status message says of itself (docs/device-protocol.md). */
export interface AccessPointInfo {
  readonly firmware?: string;
  /** Wi-Fi signal strength in dBm (protocol 2). */
  readonly signal?: number;
  /** The payload version it and the cloud both speak. */
  readonly protocolVersion: number;
}

export interface AccessPointStore {
  /** `brokerHash`: the secret hashed for an external broker's password file (Mosquitto), if made. */
  insert(
    ap: NewAccessPoint & { readonly secretHash: string; readonly brokerHash?: string | null },
  ): Promise<void>;
  /** Every access point's broker hash, for writing an external broker's password file. */
  brokerHashes(): Promise<{ readonly id: string; readonly brokerHash: string | null }[]>;
  /** The access point and its secret's hash (for the broker's CONNECT check). */
  get(id: string): Promise<(AccessPoint & { readonly secretHash: string }) | undefined>;
  listForAccount(accountId: string): Promise<AccessPoint[]>;
  list(): Promise<AccessPoint[]>;
  /**
   * `events` (of the access point) are written in the same transaction, only when `online` changed.
   * `info`: what its status message said of itself (absent: a last will, which says nothing).
   */
  setOnline(
    id: string,
    online: boolean,
    at: number,
    events?: (ap: AccessPoint) => readonly LockEvent[],
    info?: AccessPointInfo,
  ): Promise<void>;
  /** It was heard from at `at` (a message other than its status); nothing for an unknown id. */
  seen(id: string, at: number): Promise<void>;
  /** How many access points are connected now (the metrics' gauge, read at each scrape). */
  countOnline(): Promise<number>;
  /** Forgets it (its credentials stop working); its locks stay, unpaired. False when there was none. */
  remove(id: string): Promise<boolean>;
}

/**
 * Device-link messages between the server and the simulated devices it runs itself, counted so the
 * sandbox clock can let each settle before it fires the next timer: moving the clock past a lock's
 * latency must end the task as the device answered, though the answer travels over a real link.
 */
export interface DeviceTraffic {
  /** Counts this access point's messages from now on (one run in this process). */
  track(apId: string): void;
  /** Stops counting them (the access point no longer runs here); what was in flight is forgotten. */
  untrack(apId: string): void;
  /** A message for or from this access point is about to be sent. */
  begin(apId: string): void;
  /** A message for or from this access point has been handled by its receiver. */
  end(apId: string): void;
  /** Resolves when nothing counted is in flight, or after `timeoutMs` (a message the link lost). */
  idle(timeoutMs: number): Promise<void>;
}

export interface SimDeviceStore {
  list(): Promise<SimDeviceState[]>;
  save(state: SimDeviceState): Promise<void>;
  listAccessPoints(): Promise<SimAccessPoint[]>;
  saveAccessPoint(ap: SimAccessPoint): Promise<void>;
}

export interface DeviceCommand {
  readonly taskId: string;
  readonly deviceId: string;
  /** Where the command goes; null for a lock no access point ever announced. */
  readonly accessPointId: string | null;
  /** The stored status: an unresponsive lock is answered DEVICE_UNREACHABLE at once. */
  readonly responsive: boolean;
  readonly command: LockCommand;
  /** The device need not answer after this instant: the task has timed out by then. */
  readonly deadline: number;
}

/**
 * A command's answer. `report`: the lock's state that came with it; `mark`: that report's place in
 * its access point's count (absent: it has none, and is applied as the cloud's own conclusion).
 */
export type DeviceResult =
  | { readonly ok: true; readonly report?: LockReport; readonly mark?: ReportMark }
  | {
      readonly ok: false;
      readonly error: TaskFailure;
      readonly report?: LockReport;
      readonly mark?: ReportMark;
    };

/**
 * What the devices tell the cloud unasked, already checked against the protocol and put in order
 * (late and duplicate reports are dropped by the gateway). The listener checks ownership.
 */
export interface DeviceListener {
  /**
   * The access point connected or went away (its last will): its locks' reach follows. `info`: what
   * an online status says of it; absent from an offline one (a last will says nothing new).
   */
  accessPointStatus(apId: string, online: boolean, info?: AccessPointInfo): Promise<void>;
  /** The locks paired with the access point now (the whole list). */
  pairedLocks(apId: string, locks: readonly AnnouncedLock[]): Promise<void>;
  /**
   * A lock's state as its access point reports it (a hand turn, a battery reading, reach), with the
   * report's place in the access point's count: a report older than one applied changes nothing.
   */
  lockReport(apId: string, deviceId: string, report: LockReport, mark: ReportMark): Promise<void>;
  /** A command's result that no waiting caller claimed (it came after a restart, or to another process). */
  lateResult(apId: string, taskId: string, deviceId: string, result: DeviceResult): Promise<void>;
}

/**
 * The way to the locks. Asynchronous, it can fail and it can never answer: callers bound every
 * call by the task's deadline.
 */
export interface DeviceGateway {
  execute(command: DeviceCommand): Promise<DeviceResult>;
  /**
   * Sends a lock its settings, for it to carry out (auto-lock): QoS 1, nothing when the broker is
   * away (the next report that differs sends them again). Only for an access point that speaks
   * version 2: the caller checks the stored protocol version, the gateway does not.
   */
  configure(apId: string, deviceId: string, settings: { readonly autoLockSeconds: number }): void;
  listen(listener: DeviceListener): void;
  close(): Promise<void>;
}

/** Changes to the simulated world that the sandbox can make, as the lock, the app or the access point would. */
export interface SimulatedLockChange {
  readonly locked?: boolean;
  readonly battery?: number;
  readonly responsive?: boolean;
  readonly accessPoint?: boolean;
  readonly appOpen?: boolean;
  readonly latencyMs?: number;
  readonly failNext?: TaskFailure | null;
  /** The lock's health, which only a device on protocol version 2 plays (null door: no sensor). */
  readonly door?: DoorState | null;
  readonly jammed?: boolean;
  readonly firmware?: string;
}

/**
 * A simulated lock's state as its simulator tells it (docs/sandbox.md's answer to POST /_sim/locks).
 * A device on protocol version 1 tells nothing of its health: not jammed, no door, nulls.
 */
export type SimulatedLockState = Omit<
  SimDeviceState,
  'apId' | 'serial' | 'nickname' | 'firmware' | 'autoLockSeconds'
> & {
  readonly firmware: string | null;
  readonly autoLockSeconds: number | null;
  /** The version its access point answered in. */
  readonly protocolVersion: number;
};

/**
 * The sandbox's way to simulated devices, wherever they run: the change is relayed to the device
 * (over the device link) and resolves once the reports it caused have been applied, to the
 * device's simulated state; DomainError LOCK_NOT_FOUND when no simulated device answers for it.
 */
export interface Simulator {
  change(deviceId: string, apId: string, change: SimulatedLockChange): Promise<SimulatedLockState>;
  /**
   * The simulated devices run by this server take the state the store holds (sandbox reset): those
   * whose access point the store no longer holds stop.
   */
  reload(): Promise<void>;
  /** This server runs simulated devices itself (false with --no-simulator: `lockcloud sim` does). */
  readonly runsDevices: boolean;
  /**
   * Runs a simulated lock the store now holds, with its access point: an access point running here
   * pairs it and announces it; one that does not run yet is started. Resolves once the cloud has
   * heard it; DomainError NOT_CONFIGURED when the broker refuses a new access point.
   */
  pair(state: SimDeviceState): Promise<void>;
}

/**
 * Hashes a device secret for an external MQTT broker's own password file (Mosquitto's `$7$`), so
 * `lockcloud admin mqtt-acl` can write that file later without the secret, which is never stored.
 */
export interface BrokerPasswordHasher {
  hash(secret: string): string;
}
