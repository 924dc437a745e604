/**
 * The one HTTP path of both clients (internal: not exported from the package).
 */
import type { ErrorDetails, LockcloudError } from './errors.ts';
import { type RetryOptions, withRetry } from './retry.ts';

/**
 * The options both clients share.
 *
 * @example
 * const options: ClientOptions = { baseUrl: 'http://127.0.0.1:8080', retry: true };
 */
export interface ClientOptions {
  /** The server's base URL, without `/public` or `/v1` (a trailing slash is fine). */
  readonly baseUrl: string;
  /** A fetch to use instead of the global one (a proxy agent, a test double). */
  readonly fetch?: typeof fetch;
  /** Opt-in retry of refusals that carry a wait; off by default. */
  readonly retry?: RetryOptions | boolean;
}

/**
 * Per-call options.
 *
 * @example
 * await client.listLocks({ signal: AbortSignal.timeout(5000) });
 */
export interface CallOptions {
  /** Aborts the request (and any retry wait). */
  readonly signal?: AbortSignal;
}

/**
 * One request of {@link Http}.
 *
 * @example
 * const req: HttpRequest = { method: 'GET', path: '/public/locks', headers: { authorization: key } };
 */
export interface HttpRequest {
  readonly method: 'GET' | 'POST';
  readonly path: string;
  readonly headers?: Record<string, string>;
  readonly json?: unknown;
  readonly signal?: AbortSignal | undefined;
}

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
  readonly #errorFrom: (details: ErrorDetails) => LockcloudError;

  constructor(options: ClientOptions, errorFrom: (details: ErrorDetails) => LockcloudError) {
    if (typeof options.baseUrl !== 'string' || options.baseUrl === '')
      throw new TypeError('baseUrl is required');
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.#fetch = options.fetch ?? globalThis.fetch.bind(globalThis);
    this.#retry = options.retry;
    this.#errorFrom = errorFrom;
  }

  /** Sends the request (with retries when on); resolves to the parsed body (undefined when empty). */
  request<T>(req: HttpRequest): Promise<T> {
    return withRetry(() => this.once<T>(req), this.#retry, req.signal);
  }

  /** One attempt, no retry. */
  async once<T>(req: HttpRequest): Promise<T> {
    const headers: Record<string, string> = { accept: 'application/json', ...req.headers };
    if (req.json !== undefined) headers['content-type'] = 'application/json';
    const init: RequestInit = { method: req.method, headers };
    if (req.json !== undefined) init.body = JSON.stringify(req.json);
    if (req.signal !== undefined) init.signal = req.signal;
    const res = await this.#fetch(this.baseUrl + req.path, init);
    const text = await res.text();
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
