/**
 * The base of every error answer of the lockcloud API ({@link LockcloudError} and what it is built
 * from), and the SDK's own failures (no answer at all, a failed or timed-out task, a webhook that
 * does not verify).
 */
import type { FailedResult, TaskFailureReason } from './types.js';

/**
 * What {@link LockcloudError} is built from.
 *
 * @example
 * const details: ErrorDetails = { status: 429, body: { error: 'THROTTLED' }, retryAfterSeconds: 1 };
 */
export interface ErrorDetails {
  /** HTTP status of the answer. */
  readonly status: number;
  /** The parsed JSON body, or the raw text when it was not JSON. */
  readonly body: unknown;
  /** `Retry-After` in seconds, when the answer carried one (or `DEVICE_IS_BUSY n`). */
  readonly retryAfterSeconds?: number | undefined;
  /** The `X-Request-Id` of the answer, to quote in a bug report. */
  readonly requestId?: string | undefined;
}

/**
 * The base class of every error answer of the lockcloud API.
 *
 * @example
 * try {
 *   await client.unlock(deviceId);
 * } catch (err) {
 *   if (err instanceof LockcloudError) console.error(err.status, err.code, err.requestId);
 * }
 */
export class LockcloudError extends Error {
  readonly status: number;
  /** v3: the error code (`DEVICE_IS_BUSY`, without its wait); v1: the integer code. */
  readonly code: string | number;
  readonly body: unknown;
  readonly retryAfterSeconds: number | undefined;
  readonly requestId: string | undefined;
  constructor(code: string | number, details: ErrorDetails, message?: string) {
    super(message ?? `lockcloud answered ${details.status} ${String(code)}`);
    this.name = new.target.name;
    this.code = code;
    this.status = details.status;
    this.body = details.body;
    this.retryAfterSeconds = details.retryAfterSeconds;
    this.requestId = details.requestId;
  }
}

// ---- the SDK's own ----

/**
 * No answer came: the server could not be reached (connection refused, a name that does not resolve,
 * no route) or the connection broke before the whole answer arrived (reset, closed). `cause` is what
 * `fetch` threw; `code` the system code found in its causes (`ECONNREFUSED`, `ENOTFOUND`,
 * `ECONNRESET`, ...), when there is one. Never retried automatically: a command may or may not have
 * reached the server, so read the lock before sending it again.
 *
 * @example
 * try {
 *   await client.listLocks();
 * } catch (err) {
 *   if (err instanceof ConnectionError) console.error(`lockcloud is unreachable (${err.code ?? err.message})`);
 * }
 */
export class ConnectionError extends Error {
  /** The request's method. */
  readonly method: string;
  /** The request's URL. */
  readonly url: string;
  /** The first error code in the chain of causes, e.g. `ECONNREFUSED` (`UND_ERR_SOCKET` for a broken answer). */
  readonly code: string | undefined;
  constructor(method: string, url: string, cause: unknown, message?: string) {
    super(message ?? `no answer from ${method} ${url}: ${describe(cause)}`, { cause });
    this.name = new.target.name;
    this.method = method;
    this.url = url;
    this.code = errorCode(cause);
  }
}

/**
 * The client's `timeoutMs` passed before the answer (its headers and its body) arrived, and the
 * request was aborted. A {@link ConnectionError}, so one `instanceof` catches every "no answer".
 *
 * @example
 * const client = new LockcloudClient({ baseUrl, apiKey, timeoutMs: 5000 });
 * await client.listLocks().catch((err) => {
 *   if (err instanceof RequestTimeoutError) console.error(`no answer within ${err.timeoutMs} ms`);
 * });
 */
export class RequestTimeoutError extends ConnectionError {
  readonly timeoutMs: number;
  constructor(method: string, url: string, timeoutMs: number) {
    super(method, url, undefined, `no answer from ${method} ${url} within ${timeoutMs} ms`);
    this.timeoutMs = timeoutMs;
  }
}

/** The messages of an error and its causes, `fetch failed: connect ECONNREFUSED 127.0.0.1:9`. */
function describe(error: unknown): string {
  const parts: string[] = [];
  for (let e = error, depth = 0; e !== undefined && e !== null && depth < 5; depth++) {
    parts.push(e instanceof Error ? e.message : String(e));
    e = e instanceof Error ? e.cause : undefined;
  }
  return parts.join(': ') || 'unknown failure';
}

function errorCode(error: unknown): string | undefined {
  for (let e = error, depth = 0; e instanceof Error && depth < 5; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && /^[A-Z][A-Z0-9_]+$/.test(code)) return code;
    e = e.cause;
  }
  return undefined;
}

/**
 * {@link LockcloudClient.waitForTask} found the task terminated with `successful: false`.
 *
 * @example
 * try {
 *   await client.waitForTask(taskId);
 * } catch (err) {
 *   if (err instanceof TaskFailedError) console.error(err.taskId, err.reason); // e.g. 'JAMMED'
 * }
 */
export class TaskFailedError extends Error {
  readonly taskId: string;
  /** The task's `error`. */
  readonly reason: TaskFailureReason;
  readonly result: FailedResult;
  constructor(taskId: string, result: FailedResult) {
    super(`task ${taskId} failed: ${result.error}`);
    this.name = 'TaskFailedError';
    this.taskId = taskId;
    this.reason = result.error;
    this.result = result;
  }
}

/**
 * {@link LockcloudClient.waitForTask} gave up before the task terminated (the task keeps running on
 * the server; the server ends it as `TIMEOUT` after its own command timeout).
 *
 * @example
 * await assert.rejects(client.waitForTask(taskId, { timeoutMs: 200 }), TaskTimeoutError);
 */
export class TaskTimeoutError extends Error {
  readonly taskId: string;
  readonly timeoutMs: number;
  constructor(taskId: string, timeoutMs: number) {
    super(`task ${taskId} still processing after ${timeoutMs} ms`);
    this.name = 'TaskTimeoutError';
    this.taskId = taskId;
    this.timeoutMs = timeoutMs;
  }
}

/**
 * A webhook message that does not verify: a header missing, a timestamp outside the tolerance, no
 * matching signature, or a body that is not a lockcloud payload.
 *
 * @example
 * try {
 *   await verifyWebhook(body, req.headers, secret);
 * } catch (err) {
 *   if (err instanceof WebhookVerificationError) res.writeHead(400).end();
 * }
 */
export class WebhookVerificationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookVerificationError';
  }
}
