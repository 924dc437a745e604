/**
 * The base of every error answer of the lockcloud API ({@link LockcloudError} and what it is built
 * from), and the SDK's own failures (a failed or timed-out task, a webhook that does not verify).
 */
import type { FailedResult, TaskFailureReason } from './types.ts';

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
