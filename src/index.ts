/**
 * The package's entry, `import { startLockcloud } from 'lockcloud'`: a lockcloud sandbox started in
 * the caller's process for their test suite (docs/fake.md). Each one has its own free port, a
 * temporary data directory removed at close(), its own embedded MQTT broker on a free port, its own
 * clock and simulated locks: several run side by side in one process and share nothing.
 *
 * The public types are declared in this file and import nothing of the server's: the package ships
 * this file's declarations alone (scripts/build.mjs says why and fails the build otherwise).
 * test/fake/public-types.ts holds them equal to the seed schema and to the SDK's sandbox types.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { scryptHasher } from './adapters/system/crypto.ts';
import { parseSeed } from './app/seed/validate.ts';
import { loadConfig } from './config/config.ts';
import { createServer, type LockcloudServer, readSeedFile } from './main.ts';
import { VERSION as PACKAGE_VERSION } from './version.ts';

/**
 * The version of the package.
 *
 * @example
 * console.log(`lockcloud ${VERSION}`);
 */
export const VERSION: string = PACKAGE_VERSION;

/** An account of a seed. `password: null` (or none): an account made by social login, without one. */
export interface SeedAccount {
  email: string;
  password?: string | null | undefined;
  /** Default true. */
  verified?: boolean | undefined;
}

/** An API key of a seed, given in full (8 to 512 characters, no spaces). */
export interface SeedApiKey {
  /** The e-mail of one of the seed's accounts. */
  account: string;
  key: string;
}

/** A simulated Wi-Fi access point of a seed; its locks name it in `access_point_id`. */
export interface SeedAccessPoint {
  /** A UUID. */
  id: string;
  account: string;
  name?: string | undefined;
  /** Its MQTT password, for `lockcloud sim --seed` run against `mqttUrl` (16 to 256 characters). */
  secret?: string | undefined;
}

/** A simulated lock of a seed and its starting state. */
export interface SeedLock {
  /** A UUID. */
  device_id: string;
  serial?: string | undefined;
  nickname?: string | undefined;
  /** The e-mail of the owner, one of the seed's accounts. */
  owner: string;
  /** Accounts the lock is shared with. */
  shared_with?: string[] | undefined;
  /** Default true. */
  locked?: boolean | undefined;
  /** 0 to 100; default 100. */
  battery?: number | undefined;
  responsive?: boolean | undefined;
  /** The owner's cloud-integration switch; default on. */
  integration?: boolean | undefined;
  /** Paired with an access point; default true. */
  access_point?: boolean | undefined;
  /** Which of the seed's access_points speaks for the lock; by default one made for the owner. */
  access_point_id?: string | undefined;
  /** The mobile app holds the lock's one connection (commands answer DEVICE_IS_BUSY). */
  app_open?: boolean | undefined;
  /** How long the lock takes to move, 0 to 600 000 ms; default 0. */
  latency_ms?: number | undefined;
}

/** An account's webhook in a seed. */
export interface SeedWebhook {
  account: string;
  method?: 'GET' | 'POST' | undefined;
  /** http(s), with `{device_id}` and `{state}` filled in. */
  url: string;
  retries?: boolean | undefined;
  /** A known signing secret (`whsec_` and base64); without one, a random one. */
  secret?: string | undefined;
}

/**
 * The seed file format (`lockcloud serve --seed FILE`), as an object: what the store starts with,
 * the same ids, keys and states on every start. A bad seed is refused with the field named.
 *
 * @example
 * const seed: LockcloudSeed = {
 *   accounts: [{ email: 'ann@example.com', password: 'secret-1' }],
 *   api_keys: [{ account: 'ann@example.com', key: 'test-key-ann-0001' }],
 *   locks: [{ device_id: '00000000-0000-4000-8000-000000000001', owner: 'ann@example.com' }],
 * };
 */
export interface LockcloudSeed {
  accounts?: readonly SeedAccount[] | undefined;
  api_keys?: readonly SeedApiKey[] | undefined;
  access_points?: readonly SeedAccessPoint[] | undefined;
  locks?: readonly SeedLock[] | undefined;
  webhooks?: readonly SeedWebhook[] | undefined;
}

/**
 * Rate limits laid over the server's defaults, in the `--rate-limits` file format
 * (docs/rate-limits.md): per endpoint (`"POST /public/lock/{device_id}"`, ...), `account` and/or
 * `ip` with `burst` (at least 1) and `per_second` (at least 1); `block` with `excess`,
 * `window_seconds`, `block_minutes`.
 */
export interface RateLimitOverrides {
  endpoints?:
    | Readonly<Record<string, { account?: RateOverride | undefined; ip?: RateOverride | undefined }>>
    | undefined;
  block?:
    | {
        excess?: number | undefined;
        window_seconds?: number | undefined;
        block_minutes?: number | undefined;
      }
    | undefined;
}

/** One bucket: `burst` requests at once, then `per_second`. */
export interface RateOverride {
  burst: number;
  per_second: number;
}

/** pino's levels; `silent` writes nothing. */
export type LogLevel = 'silent' | 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';

/** How {@link startLockcloud} starts the sandbox; every field is optional. */
export interface StartLockcloudOptions {
  /**
   * What the store starts with: a seed object, or the path of a seed file (JSON, relative to the
   * current directory). Default: the
   * demo (one account and two locks that take a second to move, with fresh credentials).
   */
  readonly seed?: LockcloudSeed | string | undefined;
  /**
   * `false` (the default): no rate limits, so a test suite is never throttled nor its address
   * blocked. `true`: the server's own limits (docs/rate-limits.md). An object: those limits with
   * these laid over them, e.g. a burst of 1 to meet THROTTLED at the second request.
   */
  readonly rateLimits?: boolean | RateLimitOverrides | undefined;
  /** The server's log level (JSON lines on stdout); default `silent`. */
  readonly logLevel?: LogLevel | undefined;
  /**
   * `fast` (the default): scrypt at a low cost (N = 1024), so logins and password changes cost a
   * millisecond; `production`: the server's cost (N = 2^17, about 100 ms each).
   */
  readonly passwordHashing?: 'fast' | 'production' | undefined;
  /** A task without confirmation ends TIMEOUT after this; default 15 000 ms (on the sandbox clock). */
  readonly commandTimeoutMs?: number | undefined;
  /** Lock and unlock under this battery percentage answer LOW_BATTERY; default 10. */
  readonly lowBatteryThreshold?: number | undefined;
}

/** How the next command to a simulated lock fails, when told to. */
export type SandboxFailure = 'JAMMED' | 'TIMEOUT' | 'DEVICE_UNREACHABLE';

/** A change to a simulated lock, as the lock, the owner's app or the access point would make it. */
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
  /** The mobile app holds the lock's one connection (commands answer DEVICE_IS_BUSY). */
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

/** A simulated lock's state after a change. */
export interface SandboxLockState {
  device_id: string;
  locked: boolean;
  battery: number;
  responsive: boolean;
  integration: boolean;
  access_point: boolean;
  app_open: boolean;
  latency_ms: number;
  fail_next: SandboxFailure | null;
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

/** A simulated lock to add to an account; what is left out is as a seed's lock has it. */
export interface SandboxNewLock {
  /** The e-mail of the account it joins (a live account). */
  owner: string;
  /** 1 to 128 characters; default `Lock <serial>`. */
  nickname?: string | undefined;
  /** Default true. */
  locked?: boolean | undefined;
  /** 0 to 100, default 100. */
  battery?: number | undefined;
  /** How long it takes to carry out a command, 0 to 600 000 ms, default 0. */
  latency_ms?: number | undefined;
}

/** The added lock: its simulated state, and what the cloud lists of it. */
export interface SandboxAddedLock extends SandboxLockState {
  serial: string;
  nickname: string;
  /** The owner's e-mail, in lower case. */
  owner: string;
  /** The simulated access point it is paired with. */
  access_point_id: string;
}

/** The server's clock. */
export interface SandboxClock {
  /** ISO 8601 UTC. */
  now: string;
  epoch_ms: number;
}

/** A new password (earlier v1 tokens then answer 20003), the account deleted (20004), or both. */
export type SandboxAccountChange =
  | { password: string; deleted?: true | undefined }
  | { password?: string | undefined; deleted: true };

/** What an account change did. */
export interface SandboxAccountChanged {
  /** The address, in lower case. */
  email: string;
  password_changed: boolean;
  deleted: boolean;
}

/** A mail the server sent (verification and password codes). */
export interface SandboxMail {
  to: string;
  subject: string;
  text: string;
  /** ISO 8601 UTC. */
  sent_at: string;
}

/**
 * The sandbox controls of one running lockcloud: the `/_sim` routes, called in-process (the same
 * validation and answers as over HTTP). A refusal rejects with {@link SandboxError}.
 */
export interface SandboxControls {
  /** Changes a simulated lock; resolves once the device has reported the change. */
  setLock(deviceId: string, change: SandboxLockChange): Promise<SandboxLockState>;
  /** The next command to this lock fails this way (a task ending unsuccessful with this error). */
  failNext(deviceId: string, failure: SandboxFailure): Promise<SandboxLockState>;
  /**
   * Adds a simulated lock to an account, paired with its simulated access point; it is listed and
   * takes commands once this resolves. A reset removes it.
   */
  addLock(lock: SandboxNewLock): Promise<SandboxAddedLock>;
  /** Reads the server's clock. */
  getClock(): Promise<SandboxClock>;
  /**
   * Moves the server's clock forward by whole seconds: task timeouts, token expiry, blocks and
   * rate-limit windows all follow it.
   */
  advanceClock(seconds: number): Promise<SandboxClock>;
  /** What the owner would do in the app: a new password, or the account deleted. */
  changeAccount(email: string, change: SandboxAccountChange): Promise<SandboxAccountChanged>;
  /** Everything back as the seed left it: the data, the simulated locks, the clock, the rate limits. */
  reset(): Promise<void>;
  /** The mails sent to an address, newest first. */
  mailbox(to: string): Promise<SandboxMail[]>;
}

/** A seeded account and its password (null: an account without one). */
export interface SeededAccount {
  readonly email: string;
  readonly password: string | null;
}

/** A seeded API key and the e-mail of its account. */
export interface SeededApiKey {
  readonly account: string;
  readonly key: string;
}

/** A seeded lock. */
export interface SeededLock {
  readonly device_id: string;
  readonly owner: string;
  readonly nickname: string | undefined;
}

/** A lockcloud sandbox running in this process. */
export interface RunningLockcloud {
  /** The base URL, `http://127.0.0.1:PORT`, for any client (the SDK, fetch, your own). */
  readonly url: string;
  /** Its embedded MQTT broker, `mqtt://127.0.0.1:PORT`. */
  readonly mqttUrl: string;
  /** The seeded accounts (the demo's, without a seed), with their passwords. */
  readonly accounts: readonly SeededAccount[];
  /** The seeded API keys (the demo's, without a seed). */
  readonly apiKeys: readonly SeededApiKey[];
  /** The first of them; undefined when the seed has none. */
  readonly apiKey: string | undefined;
  /** The seeded locks (the demo's, without a seed). */
  readonly locks: readonly SeededLock[];
  /** Move the clock, set a lock's state, make the next command fail, reset, read the mailbox. */
  readonly sandbox: SandboxControls;
  /**
   * Stops the server (requests still in flight are cut), its broker and simulated locks, and
   * removes its data directory. Leaves nothing running; a second call waits for the first.
   */
  close(): Promise<void>;
}

/** A sandbox control refused: `status` and `error` as the `/_sim` route answers them, with its message. */
export class SandboxError extends Error {
  override name = 'SandboxError';
  /** The HTTP status: 400 (a field missing, unknown or out of range), 404 (no such lock or account). */
  readonly status: number;
  /** `BAD_PARAMS`, `NOT_FOUND`, `SERVICE_UNAVAILABLE`, `INTERNAL_ERROR`. */
  readonly error: string;

  constructor(status: number, error: string, message: string) {
    super(message);
    this.status = status;
    this.error = error;
  }
}

/** Scrypt's cost for `passwordHashing: 'fast'`: the tests' own (test/support/server.ts). */
const FAST_SCRYPT = { N: 1024, r: 8, p: 1 };

function controls(http: LockcloudServer['http'], closed: () => boolean): SandboxControls {
  const call = async <T>(method: 'GET' | 'POST', url: string, payload?: object): Promise<T> => {
    if (closed()) throw new Error('this lockcloud has been closed (close() was called)');
    const res = await http.inject({ method, url, ...(payload === undefined ? {} : { payload }) });
    const body: unknown = res.body === '' ? undefined : JSON.parse(res.body);
    if (res.statusCode >= 400) {
      const { error, message } = (body ?? {}) as { error?: string; message?: string };
      throw new SandboxError(
        res.statusCode,
        error ?? 'UNKNOWN',
        message ?? `${method} ${url}: ${res.statusCode}`,
      );
    }
    return body as T;
  };
  const path = (segment: string) => encodeURIComponent(segment);
  return {
    setLock: (deviceId, change) => call('POST', `/_sim/locks/${path(deviceId)}`, change),
    failNext: (deviceId, failure) => call('POST', `/_sim/locks/${path(deviceId)}`, { fail_next: failure }),
    addLock: (lock) => call('POST', '/_sim/locks', lock),
    getClock: () => call('GET', '/_sim/clock'),
    advanceClock: (seconds) => call('POST', '/_sim/clock', { advance_seconds: seconds }),
    changeAccount: (email, change) => call('POST', `/_sim/accounts/${path(email)}`, change),
    reset: async () => {
      await call('POST', '/_sim/reset');
    },
    mailbox: (to) => call('GET', `/_sim/mailbox?to=${encodeURIComponent(to)}`),
  };
}

function serverFlags(options: StartLockcloudOptions, dir: string, seedFile: string | undefined): string[] {
  const flags = ['--sandbox', '--host', '127.0.0.1', '--port', '0', '--mqtt-host', '127.0.0.1'];
  flags.push('--mqtt-port', '0', '--data', join(dir, 'data'), '--log-level', options.logLevel ?? 'silent');
  // close() is the end of a test: what is still in flight is cut at once, not waited for.
  flags.push('--shutdown-grace-ms', '0');
  if (seedFile !== undefined) flags.push('--seed', seedFile);
  const { rateLimits = false } = options;
  if (rateLimits === false) flags.push('--no-rate-limit');
  else if (rateLimits !== true) {
    const file = join(dir, 'rate-limits.json');
    writeFileSync(file, JSON.stringify(rateLimits));
    flags.push('--rate-limits', file);
  }
  if (options.commandTimeoutMs !== undefined)
    flags.push('--command-timeout-ms', String(options.commandTimeoutMs));
  if (options.lowBatteryThreshold !== undefined)
    flags.push('--low-battery', String(options.lowBatteryThreshold));
  return flags;
}

const OPTIONS = new Set([
  'seed',
  'rateLimits',
  'logLevel',
  'passwordHashing',
  'commandTimeoutMs',
  'lowBatteryThreshold',
]);

/**
 * What the types say, for callers in JavaScript: an option misspelt or of the wrong kind would
 * otherwise be ignored without a word. The values themselves are the server's to check.
 */
function checkOptions(options: StartLockcloudOptions): void {
  const problems: string[] = [];
  if (typeof options !== 'object' || options === null)
    throw new TypeError('startLockcloud: options must be an object');
  for (const name of Object.keys(options))
    if (!OPTIONS.has(name)) problems.push(`unknown option ${name} (options: ${[...OPTIONS].join(', ')})`);
  const { seed, rateLimits, passwordHashing } = options;
  if (seed !== undefined && typeof seed !== 'string' && (typeof seed !== 'object' || seed === null))
    problems.push('seed: a seed object or the path of a seed file');
  if (
    rateLimits !== undefined &&
    typeof rateLimits !== 'boolean' &&
    (typeof rateLimits !== 'object' || rateLimits === null)
  )
    problems.push('rateLimits: true, false or an object of limits');
  if (passwordHashing !== undefined && passwordHashing !== 'fast' && passwordHashing !== 'production')
    problems.push("passwordHashing: 'fast' or 'production'");
  if (problems.length > 0) throw new TypeError(`startLockcloud: ${problems.join('; ')}`);
}

/** The seed to load: the object validated as the server will, or the file read. */
function seedOf(seed: LockcloudSeed | string): LockcloudSeed {
  return typeof seed === 'string' ? readSeedFile(seed) : parseSeed(JSON.stringify(seed));
}

function seeded(seed: LockcloudSeed) {
  const accounts = (seed.accounts ?? []).map((a) => ({ email: a.email, password: a.password ?? null }));
  const apiKeys = (seed.api_keys ?? []).map((k) => ({ account: k.account, key: k.key }));
  const locks = (seed.locks ?? []).map((l) => ({
    device_id: l.device_id,
    owner: l.owner,
    nickname: l.nickname,
  }));
  return { accounts, apiKeys, apiKey: apiKeys[0]?.key, locks };
}

/**
 * Starts a lockcloud sandbox in this process: on a free port of 127.0.0.1, over a temporary data
 * directory, with its own MQTT broker on a free port and its simulated locks. Resolves once it
 * answers; rejects (leaving nothing behind) on a bad option or seed, with the reason.
 *
 * @example
 * const lockcloud = await startLockcloud({ seed: './test/seed.json' });
 * const res = await fetch(`${lockcloud.url}/public/locks`, { headers: { authorization: lockcloud.apiKey ?? '' } });
 * await lockcloud.sandbox.failNext(lockcloud.locks[0]?.device_id ?? '', 'JAMMED');
 * await lockcloud.close();
 */
export async function startLockcloud(options: StartLockcloudOptions = {}): Promise<RunningLockcloud> {
  checkOptions(options);
  const dir = mkdtempSync(join(tmpdir(), 'lockcloud-fake-'));
  const removeDir = () => rmSync(dir, { recursive: true, force: true });
  let server: LockcloudServer | undefined;
  try {
    const seed = options.seed === undefined ? undefined : seedOf(options.seed);
    let seedFile: string | undefined;
    if (seed !== undefined) {
      seedFile = join(dir, 'seed.json');
      writeFileSync(seedFile, JSON.stringify(seed));
    }
    // The caller's environment (LOCKCLOUD_*, DATABASE_URL, ...) is not this server's configuration.
    const config = loadConfig({}, serverFlags(options, dir, seedFile));
    server = await createServer(config, {
      ...(options.passwordHashing === 'production' ? {} : { passwords: scryptHasher(FAST_SCRYPT) }),
    });
    const url = await server.listen();
    const running = server;
    const { report } = running;
    const credentials = seeded(seed ?? (report.kind === 'demo' ? report.demo.seed : {}));
    let closing: Promise<void> | undefined;
    return {
      url,
      mqttUrl: running.devices.brokerUrl,
      ...credentials,
      sandbox: controls(running.http, () => closing !== undefined),
      close() {
        closing ??= running.close().finally(removeDir);
        return closing;
      },
    };
  } catch (error) {
    await server?.close().catch(() => undefined);
    removeDir();
    throw error;
  }
}
