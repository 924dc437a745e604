/** The simulated devices the server runs itself, as the store keeps them between restarts. */
import { DomainError } from './errors.ts';
import type { DoorState } from './lock.ts';
import type { TaskFailure } from './task.ts';

/**
 * The simulated device world run inside the server, persisted so a restart keeps the simulated locks
 * as they were. `responsive` is the lock being in its access point's reach; `accessPoint` its being
 * paired with it.
 */
export interface SimDeviceState {
  readonly deviceId: string;
  readonly apId: string;
  readonly serial: string;
  readonly nickname: string;
  readonly locked: boolean;
  readonly battery: number;
  readonly responsive: boolean;
  readonly accessPoint: boolean;
  readonly appOpen: boolean;
  readonly latencyMs: number;
  readonly failNext: TaskFailure | null;
  /** The bolt is blocked; a hand turn or the sandbox clears it (device protocol 2 reports it). */
  readonly jammed: boolean;
  /** The door sensor's reading; null: the lock has none. */
  readonly door: DoorState | null;
  readonly firmware: string;
  /** The auto-lock delay the lock runs (0: off), as the cloud's last `config` set it. */
  readonly autoLockSeconds: number;
}

export const SIM_LOCK_FIRMWARE = 'lockcloud-sim-lock/2';

/** A simulated lock's health as it leaves the factory: not jammed, a closed door, auto-lock off. */
export const SIM_HEALTH: Pick<SimDeviceState, 'jammed' | 'door' | 'firmware' | 'autoLockSeconds'> = {
  jammed: false,
  door: 'closed',
  firmware: SIM_LOCK_FIRMWARE,
  autoLockSeconds: 0,
};

/** A simulated access point's credentials, sealed by the SecretBox: it must present its secret. */
export interface SimAccessPoint {
  readonly id: string;
  readonly sealedSecret: string;
}

/** What the owner may choose of a simulated lock added to the sandbox; the rest is as a seed's. */
export interface NewSimLock {
  readonly nickname?: string;
  readonly locked?: boolean;
  readonly battery?: number;
  readonly latencyMs?: number;
}

export const MAX_NICKNAME_LENGTH = 128;
export const MAX_LATENCY_MS = 600_000;
/** Locks one simulated access point carries before the sandbox adds another for the account. */
export const SIM_LOCKS_PER_ACCESS_POINT = 50;

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it refuses
const CONTROL = /[\u0000-\u001f\u007f]/;

/**
 * The chosen values checked, as a seed's lock is (docs/sandbox.md): a nickname of 1 to 128
 * characters without control characters (blank: none chosen), a battery of 0 to 100, a latency of
 * 0 to 600 000 ms. INVALID_INPUT names the field.
 */
export function checkNewSimLock(input: NewSimLock): NewSimLock {
  const nickname = input.nickname?.trim();
  if (nickname !== undefined && (nickname.length > MAX_NICKNAME_LENGTH || CONTROL.test(nickname)))
    throw new DomainError(
      'INVALID_INPUT',
      `nickname: at most ${MAX_NICKNAME_LENGTH} characters, without control characters`,
      { field: 'nickname' },
    );
  const { battery, latencyMs } = input;
  if (battery !== undefined && (!Number.isInteger(battery) || battery < 0 || battery > 100))
    throw new DomainError('INVALID_INPUT', 'battery: a whole number from 0 to 100', { field: 'battery' });
  if (
    latencyMs !== undefined &&
    (!Number.isInteger(latencyMs) || latencyMs < 0 || latencyMs > MAX_LATENCY_MS)
  )
    throw new DomainError('INVALID_INPUT', `latency_ms: a whole number from 0 to ${MAX_LATENCY_MS}`, {
      field: 'latency_ms',
    });
  return { ...input, nickname: nickname === '' ? undefined : nickname };
}
