/**
 * Request and response types of the sandbox (`/_sim`, sandbox mode only): the controls that push
 * the simulated world into any state. Checked against `/openapi.json` by `test/sdk/drift.test.ts`.
 */
import type { TaskFailureReason } from './types.js';

/**
 * How the next command to a simulated lock fails, when told to.
 *
 * @example
 * const failure: SandboxFailure = 'JAMMED';
 */
export type SandboxFailure = 'JAMMED' | 'TIMEOUT' | 'DEVICE_UNREACHABLE';

/**
 * The body of `POST /_sim/locks/{device_id}`: any of the fields, as the lock itself, the owner's app
 * or the access point would change them.
 *
 * @example
 * const change: SandboxLockChange = { battery: 5, fail_next: 'JAMMED' };
 */
export interface SandboxLockChange {
  /** The lock turned by hand (a change fires the webhook). */
  locked?: boolean | undefined;
  /** 0 to 100. */
  battery?: number | undefined;
  /** The lock within reach of its access point. */
  responsive?: boolean | undefined;
  /** The owner's integration switch in the app. */
  integration?: boolean | undefined;
  /** The lock paired with an access point. */
  access_point?: boolean | undefined;
  /** The mobile app holds the lock's one connection (commands answer `DEVICE_IS_BUSY`). */
  app_open?: boolean | undefined;
  /** How long the lock takes to carry out a command, 0 to 600 000 ms. */
  latency_ms?: number | undefined;
  /** Make the next command fail this way; null clears it. */
  fail_next?: SandboxFailure | null | undefined;
  /** The door sensor opened or closed by hand; null takes the sensor away (device protocol 2 only). */
  door?: 'open' | 'closed' | null | undefined;
  /** The bolt blocked, or freed (device protocol 2 only; a hand turn frees it too). */
  jammed?: boolean | undefined;
  /** The lock's firmware version, 1 to 64 characters (device protocol 2 only). */
  firmware?: string | undefined;
}

/**
 * `POST /_sim/locks/{device_id}`: the simulated lock's state after the change.
 *
 * @example
 * const { battery, fail_next }: SandboxLockState = await sandbox.setLock(deviceId, { battery: 5 });
 */
export interface SandboxLockState {
  device_id: string;
  locked: boolean;
  battery: number;
  responsive: boolean;
  integration: boolean;
  access_point: boolean;
  app_open: boolean;
  latency_ms: number;
  fail_next: TaskFailureReason | null;
  /** Always false on device protocol 1. */
  jammed: boolean;
  /** null: no door sensor (always, on device protocol 1). */
  door: 'open' | 'closed' | null;
  /** null on device protocol 1. */
  firmware: string | null;
  /** The auto-lock delay the lock runs now (0: off); null on device protocol 1. */
  auto_lock_seconds: number | null;
  /** The device protocol version of the lock's access point. */
  protocol_version: number;
}

/**
 * The body of `POST /_sim/locks`: a simulated lock to add to an account; what is left out is as a
 * seed's lock has it (unlocked `false`, battery 100, latency 0, nickname `Lock <serial>`).
 *
 * @example
 * const lock: SandboxNewLock = { owner: 'ann@example.com', nickname: 'Shed', battery: 80 };
 */
export interface SandboxNewLock {
  /** The e-mail of the account it joins (a live account). */
  owner: string;
  /** 1 to 128 characters. */
  nickname?: string | undefined;
  /** Default true. */
  locked?: boolean | undefined;
  /** 0 to 100, default 100. */
  battery?: number | undefined;
  /** How long it takes to carry out a command, 0 to 600 000 ms, default 0. */
  latency_ms?: number | undefined;
}

/**
 * `POST /_sim/locks`: the added lock, its simulated state as {@link SandboxLockState} and what the
 * cloud lists of it.
 *
 * @example
 * const { device_id, access_point_id }: SandboxAddedLock = await sandbox.addLock({ owner: 'ann@example.com' });
 */
export interface SandboxAddedLock extends SandboxLockState {
  serial: string;
  nickname: string;
  /** The owner's e-mail, in lower case. */
  owner: string;
  /** The simulated access point it is paired with. */
  access_point_id: string;
}

/**
 * `GET` and `POST /_sim/clock`: the server's clock.
 *
 * @example
 * const { now, epoch_ms }: SandboxClock = await sandbox.advanceClock(3600);
 */
export interface SandboxClock {
  /** ISO 8601 UTC. */
  now: string;
  epoch_ms: number;
}

/**
 * The body of `POST /_sim/accounts/{email}`: a new password (earlier v1 tokens then answer 20003),
 * the account deleted (20004), or both.
 *
 * @example
 * const change: SandboxAccountChange = { password: 'a-new-password' };
 */
export type SandboxAccountChange =
  | { password: string; deleted?: true | undefined }
  | { password?: string | undefined; deleted: true };

/**
 * `POST /_sim/accounts/{email}`: what was done.
 *
 * @example
 * const { password_changed }: SandboxAccountChanged = await sandbox.changeAccount(email, { password: 'x' });
 */
export interface SandboxAccountChanged {
  /** The address, in lower case. */
  email: string;
  password_changed: boolean;
  deleted: boolean;
}

/**
 * An element of `GET /_sim/mailbox?to=…` (newest first): a mail the server sent.
 *
 * @example
 * const [latest] = await sandbox.mailbox('new@example.com');
 * const code = /\d{6}/.exec(latest?.text ?? '')?.[0];
 */
export interface SandboxMail {
  to: string;
  subject: string;
  text: string;
  /** ISO 8601 UTC. */
  sent_at: string;
}
