/**
 * The one HTTP path of every client (internal: not exported from the package): the User-Agent, the
 * request timeout, a failed `fetch` as {@link ConnectionError}, error answers as their classes, and
 * retries when on.
 */
import type { Credential } from './credential.js';
import { ConnectionError, type ErrorDetails, type LockcloudError, RequestTimeoutError } from './errors.js';
import { type RetryOptions, withRetry } from './retry.js';
import { VERSION } from './version.js';

/**
 * The options every client shares.
 *
 * @example
 * const options: ClientOptions = { baseUrl: 'http://127.0.0.1:8080', retry: true, timeoutMs: 10_000 };
 */
export interface ClientOptions {
  /** The server's base URL (http or https), without `/public` or `/v1` (a trailing slash is fine). */
  readonly baseUrl: string;
  /** A fetch to use instead of the global one (a proxy agent, a test double). */
  readonly fetch?: typeof fetch | undefined;
  /** Opt-in retry of refusals that carry a wait; off by default. */
  readonly retry?: RetryOptions | boolean | undefined;
  /**
   * How long one request may take, its answer's body included, before it is aborted with
   * {@link RequestTimeoutError}: default 30 000 ms (a v1 control waits for the lock, up to the
   * server's command timeout, 15 s by default). `Infinity` waits for ever. Each retry has its own.
   */
  readonly timeoutMs?: number | undefined;
}

/**
 * Per-call options.
 *
 * @example
 * await client.listLocks({ signal: AbortSignal.timeout(5000) });
 */
export interface CallOptions {
  /** Aborts the request (and any retry wait) with the signal's reason. */
  readonly signal?: AbortSignal | undefined;
}

/**
 * The options of a command.
 *
 * @example
 * await client.unlock(deviceId, { idempotencyKey: crypto.randomUUID() });
 */
export interface CommandOptions extends CallOptions {
  /**
   * Sent as `Idempotency-Key` (1 to 255 visible ASCII characters): the same key with the same
   * command to the same lock within 24 h (on the same endpoint: v3, the partner's or /ext) answers the first command's `task_id` instead of sending
   * it again. With the client's `retry` on, a command whose answer was lost is then sent again with
   * the same key (and only then: without a key a lost answer is never resent).
   */
  readonly idempotencyKey?: string | undefined;
}

/**
 * One request of {@link Http}.
 *
 * @example
 * const req: HttpRequest = { method: 'GET', path: '/public/locks', headers: { authorization: key } };
 */
export interface HttpRequest {
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  readonly path: string;
  readonly headers?: Record<string, string>;
  /**
   * Sent as `Idempotency-Key` on every attempt of this request, retries included; with retries on,
   * a lost answer (no answer, or none in time) is then sent again too: the server answers the first
   * request's result instead of acting twice.
   */
  readonly idempotencyKey?: string | undefined;
  readonly json?: unknown;
  /** Sent as `application/x-www-form-urlencoded` (the OAuth endpoints), instead of `json`. */
  readonly form?: URLSearchParams | undefined;
  readonly signal?: AbortSignal | undefined;
}

/** The default of {@link ClientOptions.timeoutMs}. */
const DEFAULT_TIMEOUT_MS = 30_000;
/** setTimeout fires at once past 2^31 - 1 ms: a longer timeout is no timeout. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * `lockcloud-sdk/<version> node/<version>` (without the second part where there is no Node), made once.
 *
 * @example
 * USER_AGENT; // 'lockcloud-sdk/0.1.0 node/20.20.2'
 */
export const USER_AGENT = ((): string => {
  const node = (globalThis as { process?: { versions?: { node?: unknown } } }).process?.versions?.node;
  return typeof node === 'string' ? `lockcloud-sdk/${VERSION} node/${node}` : `lockcloud-sdk/${VERSION}`;
})();

/**
 * Sends requests, parses JSON answers and turns error answers into error classes, with retries when on.
 *
 * @example
 * const http = new Http({ baseUrl, retry: true }, v3ErrorFrom);
 * const locks = await http.request<Lock[]>({ method: 'GET', path: '/public/locks', headers: { authorization: key } });
 */
export class Http {
  readonly baseUrl: string;
  readonly #fetch: typeof fetch;
  readonly #retry: RetryOptions | boolean | undefined;
  readonly #timeoutMs: number;
  readonly #errorFrom: (details: ErrorDetails) => LockcloudError;

  constructor(options: ClientOptions, errorFrom: (details: ErrorDetails) => LockcloudError) {
    this.baseUrl = checkBaseUrl(options.baseUrl);
    const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    if (typeof timeoutMs !== 'number' || Number.isNaN(timeoutMs) || timeoutMs <= 0)
      throw new TypeError('timeoutMs must be a positive number of milliseconds (or Infinity)');
    this.#timeoutMs = timeoutMs;
    this.#fetch = options.fetch ?? globalThis.fetch.bind(globalThis);
    this.#retry = options.retry;
    this.#errorFrom = errorFrom;
  }

  /** Sends the request (with retries when on); resolves to the parsed body (undefined when empty). */
  request<T>(req: HttpRequest): Promise<T> {
    return withRetry(() => this.once<T>(req), this.#retry, req.signal, req.idempotencyKey !== undefined);
  }

  /**
   * Opens a streamed GET (`/ext/events/stream`): resolves once the answer's headers came, with its
   * body unread; the timeout covers only that wait, since a stream's body never ends by itself. An
   * error answer rejects with its class, no answer with {@link ConnectionError}.
   *
   * @example
   * const res = await http.open({ path: '/ext/events/stream', headers: { authorization: key } });
   */
  async open(req: Omit<HttpRequest, 'method' | 'json' | 'idempotencyKey'>): Promise<Response> {
    const url = this.baseUrl + req.path;
    const headers = { 'user-agent': USER_AGENT, ...req.headers };
    const timeout = new AbortController();
    const timer =
      this.#timeoutMs > MAX_TIMER_MS ? undefined : setTimeout(() => timeout.abort(), this.#timeoutMs);
    // The timer is cleared once headers came: from then on only the caller's signal aborts the body.
    const signal = req.signal === undefined ? timeout.signal : AbortSignal.any([req.signal, timeout.signal]);
    let res: Response;
    try {
      res = await this.#fetch(url, { method: 'GET', headers, signal });
    } catch (error) {
      if (req.signal?.aborted) throw req.signal.reason;
      if (timeout.signal.aborted) throw new RequestTimeoutError('GET', url, this.#timeoutMs);
      throw new ConnectionError('GET', url, error);
    } finally {
      clearTimeout(timer);
    }
    if (res.ok) return res;
    const text = await res.text().catch(() => '');
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // not JSON: keep the text
    }
    throw this.errorFrom({
      status: res.status,
      body,
      retryAfterSeconds: parseRetryAfter(res.headers.get('retry-after')),
      requestId: res.headers.get('x-request-id') ?? undefined,
    });
  }

  /**
   * The error class of an error answer (also of one a stream says in its body).
   *
   * @example
   * throw http.errorFrom({ status: 401, body: { error: 'UNAUTHORIZED' } });
   */
  errorFrom(details: ErrorDetails): LockcloudError {
    return this.#errorFrom(details);
  }

  /** One attempt, no retry. */
  async once<T>(req: HttpRequest): Promise<T> {
    const url = this.baseUrl + req.path;
    const headers: Record<string, string> = {
      accept: 'application/json',
      'user-agent': USER_AGENT,
      ...req.headers,
    };
    if (req.idempotencyKey !== undefined) headers['idempotency-key'] = req.idempotencyKey;
    if (req.json !== undefined) headers['content-type'] = 'application/json';
    if (req.form !== undefined) headers['content-type'] = 'application/x-www-form-urlencoded';
    const timeout = new AbortController();
    const timer =
      this.#timeoutMs > MAX_TIMER_MS ? undefined : setTimeout(() => timeout.abort(), this.#timeoutMs);
    const init: RequestInit = {
      method: req.method,
      headers,
      signal: req.signal === undefined ? timeout.signal : AbortSignal.any([req.signal, timeout.signal]),
    };
    if (req.json !== undefined) init.body = JSON.stringify(req.json);
    if (req.form !== undefined) init.body = req.form.toString();
    let res: Response;
    let text: string;
    try {
      // The timeout runs until the whole body is read: a server that sends headers and stalls is caught too.
      res = await this.#fetch(url, init);
      text = await res.text();
    } catch (error) {
      if (req.signal?.aborted) throw req.signal.reason;
      if (timeout.signal.aborted) throw new RequestTimeoutError(req.method, url, this.#timeoutMs);
      throw new ConnectionError(req.method, url, error);
    } finally {
      clearTimeout(timer);
    }
    let body: unknown = text;
    if (text !== '') {
      try {
        body = JSON.parse(text);
      } catch {
        // not JSON: keep the text
      }
    }
    if (res.ok) return (text === '' ? undefined : body) as T;
    throw this.#errorFrom({
      status: res.status,
      body,
      retryAfterSeconds: parseRetryAfter(res.headers.get('retry-after')),
      requestId: res.headers.get('x-request-id') ?? undefined,
    });
  }
}

/**
 * The base URL without its trailing slashes; a TypeError for anything but an absolute http(s) URL
 * without a query or fragment.
 *
 * @example
 * checkBaseUrl('http://127.0.0.1:8080/'); // 'http://127.0.0.1:8080'
 */
export function checkBaseUrl(baseUrl: unknown): string {
  if (typeof baseUrl !== 'string' || baseUrl === '') throw new TypeError('baseUrl is required');
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new TypeError(`baseUrl is not a URL: ${baseUrl}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new TypeError(`baseUrl must be http or https: ${baseUrl}`);
  if (url.search !== '' || url.hash !== '')
    throw new TypeError(`baseUrl takes no query or fragment: ${baseUrl}`);
  return baseUrl.replace(/\/+$/, '');
}

/**
 * `Retry-After` as seconds: a whole number, or an HTTP date (seconds from now, at least 0).
 *
 * @example
 * parseRetryAfter('3'); // 3
 */
export function parseRetryAfter(value: string | null): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - Date.now()) / 1000));
}

/**
 * A path segment, encoded; an empty or missing id is a TypeError, not a request.
 *
 * @example
 * `/public/lock/${segment(deviceId)}`;
 */
export function segment(value: string): string {
  if (typeof value !== 'string' || value === '') throw new TypeError('an id is required');
  return encodeURIComponent(value);
}

/**
 * One call of an API-key resource: `path` under `prefix`, the key (or access token) as
 * `authorization`, the call's signal.
 *
 * @example
 * const send: KeyedSend = keyedSend(http, credential, '/ext/webhook');
 */
export type KeyedSend = <T>(
  method: HttpRequest['method'],
  path: string,
  options: CommandOptions | undefined,
  json?: unknown,
) => Promise<T>;

/**
 * The {@link KeyedSend} of a resource under `prefix` (`/ext/webhook`, `/ext/webhook-endpoints`):
 * those classes differ in their paths only. A 401 is tried once more with a refreshed access token
 * when the client has a way to get one.
 *
 * @example
 * const hook = await keyedSend(http, credential, '/ext/webhook')<Webhook>('GET', '', undefined);
 */
export function keyedSend(http: Http, credential: Credential, prefix: string): KeyedSend {
  return <T>(
    method: HttpRequest['method'],
    path: string,
    options: CommandOptions | undefined,
    json?: unknown,
  ): Promise<T> =>
    credential.send((authorization) =>
      http.request<T>({
        method,
        path: `${prefix}${path}`,
        headers: { authorization },
        json,
        signal: options?.signal,
        idempotencyKey: options?.idempotencyKey,
      }),
    );
}
