/**
 * The sandbox client (`/_sim`): the controls that push a lockcloud started in sandbox mode into any
 * state, for the test suites of the people who build on it. No credential: the sandbox has none,
 * and a server started with `--production` has no sandbox at all.
 */
import { type ErrorDetails, NotFoundError, type V3Error, v3ErrorFrom } from './errors.js';
import { type CallOptions, type ClientOptions, Http, segment } from './http.js';
import type {
  SandboxAccountChange,
  SandboxAccountChanged,
  SandboxAddedLock,
  SandboxClock,
  SandboxLockChange,
  SandboxLockState,
  SandboxMail,
  SandboxNewLock,
} from './types-sandbox.js';

/**
 * The options of {@link LockcloudSandboxClient}: those of every client but `retry` (the sandbox
 * never asks to wait).
 *
 * @example
 * const sandbox = new LockcloudSandboxClient({ baseUrl: 'http://127.0.0.1:8080', timeoutMs: 5000 });
 */
export type LockcloudSandboxClientOptions = Omit<ClientOptions, 'retry'>;

/**
 * The sandbox's errors: the v3 classes (`BadParamsError` naming the field, `NotFoundError` for an
 * unknown lock or account); a `NOT_FOUND` without a message is a server without a sandbox.
 *
 * @example
 * sandboxErrorFrom({ status: 404, body: { error: 'NOT_FOUND' } }).message; // '... no sandbox here ...'
 */
export function sandboxErrorFrom(details: ErrorDetails): V3Error {
  const body = details.body as { error?: unknown; message?: unknown } | null;
  if (details.status === 404 && body?.error === 'NOT_FOUND' && body.message === undefined) {
    const message =
      'lockcloud answered 404 NOT_FOUND: no sandbox here (was the server started with --production?)';
    return new NotFoundError('NOT_FOUND', details, message);
  }
  return v3ErrorFrom(details);
}

/**
 * A client of the sandbox controls (`/_sim`, sandbox mode only). Errors are the v3 classes with the
 * server's message: `BadParamsError` (a field missing, unknown or out of range, named),
 * `NotFoundError` (no such lock or account; or no sandbox: a server started with `--production`).
 *
 * @example
 * const sandbox = new LockcloudSandboxClient({ baseUrl: 'http://127.0.0.1:8080' });
 * await sandbox.setLock(deviceId, { fail_next: 'JAMMED' }); // the next command fails as JAMMED
 * await sandbox.advanceClock(31 * 24 * 3600); // v1 tokens are now expired
 * await sandbox.reset(); // back to the seed
 */
export class LockcloudSandboxClient {
  readonly #http: Http;

  constructor(options: LockcloudSandboxClientOptions) {
    this.#http = new Http({ ...options, retry: false }, sandboxErrorFrom);
  }

  /**
   * The base URL, without a trailing slash.
   *
   * @example
   * console.log(`sandbox at ${sandbox.baseUrl}`);
   */
  get baseUrl(): string {
    return this.#http.baseUrl;
  }

  /**
   * `POST /_sim/locks/{device_id}`: changes a simulated lock as the lock itself, the owner's app or
   * the access point would (`locked` is the lock turned by hand and fires the webhook; `app_open`
   * makes commands answer `DEVICE_IS_BUSY`; `fail_next` makes the next command fail that way).
   * Resolves to the lock's simulated state.
   *
   * @example
   * await sandbox.setLock(deviceId, { battery: 5 }); // lock and unlock now answer LOW_BATTERY
   * await sandbox.setLock(deviceId, { latency_ms: 2000, fail_next: 'TIMEOUT' });
   */
  setLock(deviceId: string, change: SandboxLockChange, options?: CallOptions): Promise<SandboxLockState> {
    return this.#http.request({
      method: 'POST',
      path: `/_sim/locks/${segment(deviceId)}`,
      json: change,
      signal: options?.signal,
    });
  }

  /**
   * `POST /_sim/locks`: adds a simulated lock to an account, run by the server's own simulator and
   * paired with the account's simulated access point; it is listed and takes commands as soon as
   * this resolves. A restart keeps it, a reset removes it. `NotFoundError` for an unknown or
   * deleted account; `BadParamsError` for a bad field, or a server run with `--no-simulator`.
   *
   * @example
   * const { device_id } = await sandbox.addLock({ owner: 'ann@example.com', nickname: 'Shed' });
   * await client.unlock(device_id);
   */
  addLock(lock: SandboxNewLock, options?: CallOptions): Promise<SandboxAddedLock> {
    return this.#http.request({ method: 'POST', path: '/_sim/locks', json: lock, signal: options?.signal });
  }

  /**
   * `GET /_sim/clock`: the server's clock.
   *
   * @example
   * const { epoch_ms } = await sandbox.getClock();
   */
  getClock(options?: CallOptions): Promise<SandboxClock> {
    return this.#http.request({ method: 'GET', path: '/_sim/clock', signal: options?.signal });
  }

  /**
   * `POST /_sim/clock`: moves the server's clock forward by whole seconds (token expiry, blocks,
   * task timeouts and rate-limit windows follow it); resolves to the new time.
   *
   * @example
   * await sandbox.advanceClock(30 * 60); // a 30-minute block is over
   */
  advanceClock(seconds: number, options?: CallOptions): Promise<SandboxClock> {
    return this.#http.request({
      method: 'POST',
      path: '/_sim/clock',
      json: { advance_seconds: seconds },
      signal: options?.signal,
    });
  }

  /**
   * `POST /_sim/accounts/{email}`: what the owner would do in the app: a new password (earlier v1
   * tokens then answer 20003), or the account deleted (20004).
   *
   * @example
   * await sandbox.changeAccount('ann@example.com', { password: 'a-new-password' });
   * await sandbox.changeAccount('ann@example.com', { deleted: true });
   */
  changeAccount(
    email: string,
    change: SandboxAccountChange,
    options?: CallOptions,
  ): Promise<SandboxAccountChanged> {
    return this.#http.request({
      method: 'POST',
      path: `/_sim/accounts/${segment(email)}`,
      json: change,
      signal: options?.signal,
    });
  }

  /**
   * `POST /_sim/reset`: everything back as the seed left it: the stored data, the simulated locks,
   * the clock and the rate limits.
   *
   * @example
   * afterEach(() => sandbox.reset());
   */
  async reset(options?: CallOptions): Promise<void> {
    await this.#http.request<undefined>({ method: 'POST', path: '/_sim/reset', signal: options?.signal });
  }

  /**
   * `GET /_sim/mailbox?to=…`: the mails sent to an address (verification and password codes),
   * newest first.
   *
   * @example
   * const [latest] = await sandbox.mailbox('new@example.com');
   * const code = /\b\d{6}\b/.exec(latest?.text ?? '')?.[0];
   */
  mailbox(to: string, options?: CallOptions): Promise<SandboxMail[]> {
    if (typeof to !== 'string' || to === '') throw new TypeError('an address is required');
    return this.#http.request({
      method: 'GET',
      path: `/_sim/mailbox?to=${encodeURIComponent(to)}`,
      signal: options?.signal,
    });
  }
}
