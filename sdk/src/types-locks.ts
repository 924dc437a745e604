/**
 * The types of `/ext/locks` (docs/locks.md): a lock with its health, the access point it is paired
 * with, and the owner's settings. Checked against `/openapi.json` by `test/sdk/drift.test.ts`, and
 * their unions against the server's own by `test/sdk/types.test.ts`.
 */

/**
 * How the account holds the lock: `owner`, or `guest` for a lock shared with it.
 *
 * @example
 * const mine = (lock: LockHealth) => lock.role === 'owner';
 */
export type LockRole = 'owner' | 'guest';

/**
 * The battery against the lock's thresholds, with 5 points of hysteresis: `ok`, `low` (under
 * `battery_low`) or `critical` (under `battery_critical`).
 *
 * @example
 * const warn = (state: BatteryState) => state !== 'ok';
 */
export type BatteryState = 'ok' | 'low' | 'critical';

/**
 * The door sensor's reading; a lock without one has `door: null`.
 *
 * @example
 * const door: DoorState = 'open';
 */
export type DoorState = 'open' | 'closed';

/**
 * The access point a lock is paired with (owner only).
 *
 * @example
 * const { online, signal, protocol_version } = (await client.locks.get(deviceId)).access_point ?? {};
 */
export interface LockAccessPoint {
  id: string;
  name: string;
  /** Connected to the cloud now. */
  online: boolean;
  /** RFC 3339; null when it never spoke. */
  last_seen_at: string | null;
  firmware: string | null;
  /** Its Wi-Fi signal strength in dBm; null when it has not reported one. */
  signal: number | null;
  /** The device protocol version it speaks with the cloud (1 or 2). */
  protocol_version: number;
}

/**
 * `GET /ext/locks/{device_id}`: the v3 status, the lock's health, and for its owner the settings and
 * the access point (left out of a guest's answer, hence optional).
 *
 * @example
 * const lock = await client.locks.get(deviceId);
 * if (lock.jammed) console.log(`${lock.nickname} is jammed`);
 * else if (lock.battery_state !== 'ok') console.log(`${lock.nickname}: battery ${lock.battery_state}`);
 */
export interface LockHealth {
  device_id: string;
  nickname: string;
  role: LockRole;
  /** As v3 (`GET /public/lock/{device_id}`): true = locked. */
  locked: boolean;
  /** As v3: percent. */
  battery: number;
  /** As v3: its access point is online and the lock in reach. */
  responsive: boolean;
  battery_state: BatteryState;
  /**
   * The trend in percent points per day (negative: draining), measured over a day or more of
   * readings; null until a day has passed.
   */
  battery_per_day: number | null;
  /** The bolt is blocked: the lock reported a jam and has not reported it cleared. */
  jammed: boolean;
  /** null: the lock has no door sensor (or its access point speaks device protocol 1). */
  door: DoorState | null;
  /** RFC 3339: the last report of the lock; null when none came yet. */
  last_seen_at: string | null;
  firmware: string | null;
  /** The lock's IANA time zone ('UTC' until its owner sets one): grants' schedules are read on it. */
  time_zone: string;
  /** Owner only: the lock's serial, as v3 lists it. */
  serial?: string;
  /** Owner only: the lock relocks itself this long after an unlock; 0 is off. */
  auto_lock_seconds?: number;
  /** Owner only: under it (percent) the battery is `low`. */
  battery_low?: number;
  /** Owner only: under it the battery is `critical`. */
  battery_critical?: number;
  /** Owner only: the access point the lock is paired with (or was last); null when none. */
  access_point?: LockAccessPoint | null;
}

/**
 * `GET /ext/locks`: the locks the account owns and those shared with it, in creation order.
 *
 * @example
 * const { locks }: LockHealthList = await client.locks.list();
 */
export interface LockHealthList {
  locks: LockHealth[];
}

/**
 * The body of `PATCH /ext/locks/{device_id}` (the owner only): any of these, at least one.
 *
 * @example
 * const settings: LockSettings = { auto_lock_seconds: 30, battery_low: 25, battery_critical: 10 };
 */
export interface LockSettings {
  /** 1 to 128 characters, no control characters; v3 and v1 list it too. */
  nickname?: string | undefined;
  /** 0 (off) to 3600; anything but 0 needs an access point on device protocol 2. */
  auto_lock_seconds?: number | undefined;
  /** 2 to 100. */
  battery_low?: number | undefined;
  /** 1 to 99, and under `battery_low`. */
  battery_critical?: number | undefined;
  /** An IANA time zone name (`Europe/Berlin`); grants' schedules are read on its wall clock. */
  time_zone?: string | undefined;
}

/**
 * A command's task on `/ext` (`POST /ext/locks/{device_id}/commands`, `GET /ext/tasks/{task_id}`).
 *
 * @example
 * const done = (task: ExtTask) => task.status === 'terminated';
 */
export interface ExtTask {
  task_id: string;
  device_id: string;
  command: 'lock' | 'unlock' | 'sync';
  status: 'processing' | 'terminated';
  /** Once terminated. */
  successful?: boolean;
  /** v3's failure reason, when terminated without success. */
  error?: string;
  /** RFC 3339. */
  created_at: string;
  /** RFC 3339; null while processing. */
  ended_at: string | null;
}
