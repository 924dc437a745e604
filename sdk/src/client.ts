/**
 * The v3 client (`/public`, API key or OAuth access token in `Authorization`), with the extension API (`/ext`) under
 * {@link LockcloudClient.webhook}, {@link LockcloudClient.events},
 * {@link LockcloudClient.webhookEndpoints} and {@link LockcloudClient.locks}.
 */
import { type AccessTokenRefresher, Credential } from './credential.js';
import { TaskFailedError, TaskTimeoutError, ThrottledError, v3ErrorFrom } from './errors.js';
import { EventsApi } from './events.js';
import { WebhookApi } from './ext.js';
import { GrantsApi } from './grants.js';
import { type CallOptions, type ClientOptions, type CommandOptions, Http, segment } from './http.js';
import { KeysApi } from './keys.js';
import { LocksApi } from './locks.js';
import { sleep } from './retry.js';
import type {
  ActionResult,
  Command,
  CommandResponse,
  Lock,
  LockStatus,
  PartnerCommand,
  SucceededResult,
} from './types.js';
import { WebhookEndpointsApi } from './webhook-endpoints.js';

/**
 * The options of {@link LockcloudClient}: the client options, and either an API key or an OAuth
 * access token (docs/oauth.md).
 *
 * @example
 * const options: LockcloudClientOptions = { baseUrl: 'http://127.0.0.1:8080', apiKey: process.env.LOCKCLOUD_API_KEY ?? '' };
 */
export type LockcloudClientOptions = ClientOptions & (ApiKeyCredentials | AccessTokenCredentials);

/**
 * A client that speaks for an account with one of its API keys.
 *
 * @example
 * const credentials: ApiKeyCredentials = { apiKey: 'lck_…' };
 */
export interface ApiKeyCredentials {
  /** The API key, sent as `Authorization: <key>`. */
  readonly apiKey: string;
  readonly accessToken?: undefined;
  readonly refreshAccessToken?: undefined;
}

/**
 * A client that speaks for an app an owner authorized through OAuth (docs/oauth.md): its access
 * token, and optionally how to get a new one when the token is refused (after its hour).
 *
 * @example
 * const credentials: AccessTokenCredentials = {
 *   accessToken: tokens.access_token,
 *   refreshAccessToken: async () => {
 *     tokens = await refreshToken({ baseUrl, clientId, refreshToken: tokens.refresh_token });
 *     return tokens.access_token;
 *   },
 * };
 */
export interface AccessTokenCredentials {
  /** An OAuth access token (`lco_…`), sent as `Authorization: Bearer <token>`. */
  readonly accessToken: string;
  /**
   * Called when a request is refused with 401 (the token expired or was revoked): resolves to a new
   * access token, with which the request is sent once more (and every later one). Concurrent
   * refusals share one call. Keep the new refresh token it gets: the old one is then spent. A
   * rejection rejects the request with it.
   */
  readonly refreshAccessToken?: AccessTokenRefresher | undefined;
  readonly apiKey?: undefined;
}

/**
 * How {@link LockcloudClient.waitForTask} polls.
 *
 * @example
 * await client.waitForTask(taskId, { timeoutMs: 20_000, signal: AbortSignal.timeout(30_000) });
 */
export interface WaitOptions extends CallOptions {
  /** Give up (TaskTimeoutError) after this long; default 30 000 ms (the server ends a task after 15 s by default). */
  readonly timeoutMs?: number;
  /** The first interval between polls (default 100 ms); it grows by half each poll up to `maxIntervalMs`. */
  readonly intervalMs?: number;
  /** The longest interval between polls (default 1000 ms). */
  readonly maxIntervalMs?: number;
}

/**
 * A client of the v3 API and of the extension API (`client.webhook`). Methods resolve to the
 * documented response bodies and reject with one error class per documented error (see errors.ts),
 * or {@link ConnectionError} when no answer came ({@link RequestTimeoutError} after `timeoutMs`);
 * with `retry` on, a busy lock (`DEVICE_IS_BUSY n`) is tried again until it is free, within n seconds,
 * and `THROTTLED` after the wait it carries.
 *
 * @example
 * const client = new LockcloudClient({ baseUrl: 'http://127.0.0.1:8080', apiKey: 'lck_…', retry: true });
 * const [first] = await client.listLocks();
 * const { task_id } = await client.unlock(first.device_id);
 * await client.waitForTask(task_id); // resolves once the lock confirmed; TaskFailedError if it did not
 * // For an app an owner authorized through OAuth (docs/oauth.md): its access token instead of a key.
 * const app = new LockcloudClient({ baseUrl, accessToken: tokens.access_token, refreshAccessToken });
 */
export class LockcloudClient {
  readonly #http: Http;
  readonly #credential: Credential;
  /**
   * The account's webhook (`/ext/webhook`): its settings, signing secret and delivery log.
   *
   * @example
   * await client.webhook.set({ url: 'https://hooks.example.com/lock/{device_id}/{state}' });
   */
  readonly webhook: WebhookApi;
  /**
   * The event log (`/ext/events`): what happened to the account's locks and account, who did it and how.
   *
   * @example
   * for await (const e of client.events.list({ type: 'lock.' })) console.log(e.type, e.method);
   */
  readonly events: EventsApi;
  /**
   * The account's webhook endpoints (`/ext/webhook-endpoints`): receivers of the event log.
   *
   * @example
   * const { id, secret } = await client.webhookEndpoints.create({ url: 'https://hooks.example.com/in' });
   */
  readonly webhookEndpoints: WebhookEndpointsApi;
  /**
   * The account's locks with their health (`/ext/locks`): jammed, door, last seen, firmware, the
   * battery state, and for the owner the settings and the access point.
   *
   * @example
   * const { jammed, door, battery_state } = await client.locks.get(deviceId);
   */
  readonly locks: LocksApi;
  /**
   * The account's API keys (`/ext/keys`), for a key with `keys:manage`: list, make (limited to
   * scopes, locks and an expiry within the calling key's own) and delete.
   *
   * @example
   * const { key } = await client.keys.create({ scopes: ['locks:read'] });
   */
  readonly keys: KeysApi;
  /**
   * Grants of locks to other accounts (`/ext/locks/{device_id}/grants`, `/ext/invitations`,
   * `/ext/grants`): the owner invites, edits and revokes; the guest accepts or declines.
   *
   * @example
   * await client.grants.invite(deviceId, { email: 'guest@example.com', role: 'view' });
   */
  readonly grants: GrantsApi;

  constructor(options: LockcloudClientOptions) {
    this.#credential = credentialOf(options);
    this.#http = new Http(options, v3ErrorFrom);
    this.webhook = new WebhookApi(this.#http, this.#credential);
    this.events = new EventsApi(this.#http, this.#credential);
    this.webhookEndpoints = new WebhookEndpointsApi(this.#http, this.#credential);
    this.locks = new LocksApi(this.#http, this.#credential);
    this.keys = new KeysApi(this.#http, this.#credential);
    this.grants = new GrantsApi(this.#http, this.#credential);
  }

  /**
   * The base URL, without a trailing slash.
   *
   * @example
   * console.log(`talking to ${client.baseUrl}`);
   */
  get baseUrl(): string {
    return this.#http.baseUrl;
  }

  #get<T>(path: string, options: CallOptions | undefined): Promise<T> {
    return this.#credential.send((authorization) =>
      this.#http.request<T>({
        method: 'GET',
        path: `/public${path}`,
        headers: { authorization },
        signal: options?.signal,
      }),
    );
  }

  /**
   * `GET /public/locks`: the locks the key's account owns.
   *
   * @example
   * for (const lock of await client.listLocks()) console.log(lock.device_id, lock.nickname);
   */
  listLocks(options?: CallOptions): Promise<Lock[]> {
    return this.#get('/locks', options);
  }

  /**
   * `GET /public/lock/{device_id}`: the stored status.
   *
   * @example
   * const { locked, battery } = await client.getLock(deviceId);
   */
  getLock(deviceId: string, options?: CallOptions): Promise<LockStatus> {
    return this.#get(`/lock/${segment(deviceId)}`, options);
  }

  /**
   * `POST /public/lock/{device_id}`: sends a command; resolves to the task to poll.
   *
   * @example
   * const { task_id } = await client.sendCommand(deviceId, 'sync');
   */
  sendCommand(deviceId: string, command: Command, options?: CommandOptions): Promise<CommandResponse> {
    return this.#credential.send((authorization) =>
      this.#http.request({
        method: 'POST',
        path: `/public/lock/${segment(deviceId)}`,
        headers: { authorization },
        json: { command },
        signal: options?.signal,
        idempotencyKey: options?.idempotencyKey,
      }),
    );
  }

  /**
   * Sends `lock`.
   *
   * @example
   * const { task_id } = await client.lock(deviceId);
   */
  lock(deviceId: string, options?: CommandOptions): Promise<CommandResponse> {
    return this.sendCommand(deviceId, 'lock', options);
  }

  /**
   * Sends `unlock`.
   *
   * @example
   * const { task_id } = await client.unlock(deviceId);
   */
  unlock(deviceId: string, options?: CommandOptions): Promise<CommandResponse> {
    return this.sendCommand(deviceId, 'unlock', options);
  }

  /**
   * Sends `sync` (the lock reports its real state). Use sparingly: it drains the battery.
   *
   * @example
   * const { task_id } = await client.sync(deviceId);
   */
  sync(deviceId: string, options?: CommandOptions): Promise<CommandResponse> {
    return this.sendCommand(deviceId, 'sync', options);
  }

  /**
   * `GET /public/action-result`: one read of the task's state.
   *
   * @example
   * const result = await client.actionResult(taskId);
   * if (result.status === 'terminated') console.log(result.successful);
   */
  actionResult(taskId: string, options?: CallOptions): Promise<ActionResult> {
    if (typeof taskId !== 'string' || taskId === '') throw new TypeError('taskId is required');
    return this.#get(`/action-result?task_id=${encodeURIComponent(taskId)}`, options);
  }

  /**
   * Polls the task until it terminates: after 100 ms, then 150, 225, … up to 1 s between polls. A
   * `THROTTLED` poll waits its Retry-After (within the timeout) whatever the retry setting.
   *
   * Resolves to `{status: 'terminated', successful: true}`. Rejects with {@link TaskFailedError}
   * (its `reason` the task's `error`) when the task terminated with `successful: false`, so that
   * `await client.waitForTask(id)` means "the lock did it"; with {@link TaskTimeoutError} after
   * `timeoutMs`; with the signal's reason when aborted; with the API error of a poll otherwise.
   *
   * @example
   * try {
   *   await client.waitForTask(task_id, { timeoutMs: 20_000 });
   * } catch (err) {
   *   if (err instanceof TaskFailedError) console.error(`the lock said ${err.reason}`);
   *   else throw err;
   * }
   */
  async waitForTask(taskId: string, options: WaitOptions = {}): Promise<SucceededResult> {
    const timeoutMs = options.timeoutMs ?? 30_000;
    const maxIntervalMs = options.maxIntervalMs ?? 1000;
    let intervalMs = options.intervalMs ?? 100;
    const deadline = Date.now() + timeoutMs;
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(new TaskTimeoutError(taskId, timeoutMs)), timeoutMs);
    const signal =
      options.signal === undefined ? timeout.signal : AbortSignal.any([options.signal, timeout.signal]);
    try {
      for (;;) {
        signal.throwIfAborted();
        let result: ActionResult | undefined;
        try {
          result = await this.actionResult(taskId, { signal });
        } catch (error) {
          if (!(error instanceof ThrottledError)) throw signal.aborted ? signal.reason : error;
          const waitMs = (error.retryAfterSeconds ?? 1) * 1000;
          if (Date.now() + waitMs > deadline) throw new TaskTimeoutError(taskId, timeoutMs);
          await sleep(waitMs, signal);
          continue;
        }
        if (result.status === 'terminated') {
          if (result.successful) return result;
          throw new TaskFailedError(taskId, result);
        }
        await sleep(intervalMs, signal);
        intervalMs = Math.min(maxIntervalMs, intervalMs * 1.5);
      }
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Sends a command and waits for its task: the common case in one call.
   *
   * @example
   * await client.run(deviceId, 'unlock', { timeoutMs: 20_000 });
   */
  async run(
    deviceId: string,
    command: Command,
    options: WaitOptions & CommandOptions = {},
  ): Promise<SucceededResult> {
    const { task_id } = await this.sendCommand(deviceId, command, options);
    return this.waitForTask(task_id, options);
  }

  /**
   * `POST /public/partners/automation`: the partner endpoint, with this client's key in the body
   * (no header); `lock` or `unlock` only.
   *
   * @example
   * const { task_id } = await client.partnerAutomation({ command: 'lock', deviceId });
   */
  partnerAutomation(
    request: { command: PartnerCommand; deviceId: string },
    options?: CommandOptions,
  ): Promise<CommandResponse> {
    return this.#credential.send((authorization) =>
      this.#http.request({
        method: 'POST',
        path: '/public/partners/automation',
        json: { command: request.command, apikey: bare(authorization), device_id: request.deviceId },
        signal: options?.signal,
        idempotencyKey: options?.idempotencyKey,
      }),
    );
  }
}

/** The credential the options give: exactly one of an API key and an access token. */
function credentialOf(options: LockcloudClientOptions): Credential {
  const { apiKey, accessToken, refreshAccessToken } = options as {
    apiKey?: unknown;
    accessToken?: unknown;
    refreshAccessToken?: unknown;
  };
  if (apiKey !== undefined && accessToken !== undefined)
    throw new TypeError('give apiKey or accessToken, not both');
  if (refreshAccessToken !== undefined && typeof refreshAccessToken !== 'function')
    throw new TypeError('refreshAccessToken must be a function');
  if (accessToken !== undefined) {
    if (typeof accessToken !== 'string' || accessToken === '')
      throw new TypeError('accessToken must be a non-empty string');
    return new Credential(`Bearer ${accessToken}`, bearerOf(refreshAccessToken as AccessTokenRefresher));
  }
  if (refreshAccessToken !== undefined) throw new TypeError('refreshAccessToken goes with accessToken');
  if (typeof apiKey !== 'string' || apiKey === '') throw new TypeError('apiKey (or accessToken) is required');
  return new Credential(apiKey);
}

/** The refresher of a `Bearer` header value: the app's, its token prefixed. */
function bearerOf(refresh: AccessTokenRefresher | undefined): AccessTokenRefresher | undefined {
  if (refresh === undefined) return undefined;
  return async () => {
    const token = await refresh();
    if (typeof token !== 'string' || token === '')
      throw new TypeError('refreshAccessToken must resolve to the new access token');
    return `Bearer ${token}`;
  };
}

/** The token of a header value, as the partner endpoint takes it in its body. */
const bare = (authorization: string): string => authorization.replace(/^Bearer /, '');
