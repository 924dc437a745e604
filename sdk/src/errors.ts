/**
 * One error class per documented error answer (docs/errors.md), plus the SDK's own failures
 * (a failed or timed-out task, a webhook that does not verify).
 *
 * Every error answer of the server is a {@link LockcloudError} with `status`, `code` (the v3 `error`
 * string without its wait, or the v1 integer) and, where the server gave one, `retryAfterSeconds`.
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

// ---- v3 ----

/**
 * Base class of the v3 (`/public`) error answers; `code` is the `error` string.
 *
 * @example
 * if (err instanceof V3Error) console.error(err.code); // e.g. 'LOW_BATTERY'
 */
export class V3Error extends LockcloudError {
  declare readonly code: string;
}

/**
 * `400 BAD_PARAMS` (also 408, 413, 431): a bad parameter, or an unknown, foreign or expired lock or task.
 *
 * @example
 * await assert.rejects(client.getLock('not-a-uuid'), BadParamsError);
 */
export class BadParamsError extends V3Error {}

/**
 * `400 CLOUD_INTEGRATION_NOT_ENABLED`: integration is off in the app, or no access point.
 *
 * @example
 * if (err instanceof IntegrationNotEnabledError) console.error('turn integration on in the app');
 */
export class IntegrationNotEnabledError extends V3Error {}

/**
 * `400 LOW_BATTERY`: lock or unlock refused, the battery is under the threshold.
 *
 * @example
 * if (err instanceof LowBatteryError) console.error('change the batteries');
 */
export class LowBatteryError extends V3Error {}

/**
 * `400 DEVICE_IS_BUSY [n]`: a command runs on the lock (`waitSeconds` = n, the longest wait), or the
 * mobile app holds the lock (`waitSeconds` undefined: no end is known).
 *
 * @example
 * if (err instanceof DeviceBusyError && err.waitSeconds !== undefined) await sleep(err.waitSeconds * 1000);
 */
export class DeviceBusyError extends V3Error {
  /** The n of `DEVICE_IS_BUSY n`, when given. */
  readonly waitSeconds: number | undefined;
  constructor(details: ErrorDetails, waitSeconds: number | undefined) {
    super('DEVICE_IS_BUSY', { ...details, retryAfterSeconds: waitSeconds });
    this.waitSeconds = waitSeconds;
  }
}

/**
 * `401 UNAUTHORIZED`: the API key is missing, unknown or deleted.
 *
 * @example
 * await assert.rejects(new LockcloudClient({ baseUrl, apiKey: 'wrong' }).listLocks(), UnauthorizedError);
 */
export class UnauthorizedError extends V3Error {}

/**
 * `403 ACCESS_DENY` (or `Forbidden`): the client address is blocked for 30 minutes;
 * `retryAfterSeconds` counts down to the end of the block. Never retried automatically.
 *
 * @example
 * if (err instanceof AccessDeniedError) console.error(`blocked for ${err.retryAfterSeconds} s`);
 */
export class AccessDeniedError extends V3Error {}

/**
 * `429 THROTTLED`: over the endpoint's rate limit; `retryAfterSeconds` from `Retry-After`.
 *
 * @example
 * if (err instanceof ThrottledError) await sleep((err.retryAfterSeconds ?? 1) * 1000);
 */
export class ThrottledError extends V3Error {}

/**
 * `404 NOT_FOUND`: no such route or method (a wrong base URL, usually).
 *
 * @example
 * if (err instanceof NotFoundError) console.error('is the base URL right?');
 */
export class NotFoundError extends V3Error {}

/**
 * `500 INTERNAL_ERROR`: a server failure, usually temporary; quote `requestId` when reporting it.
 *
 * @example
 * if (err instanceof InternalError) console.error(`server error, request ${err.requestId}`);
 */
export class InternalError extends V3Error {}

type V3Class = new (code: string, details: ErrorDetails) => V3Error;

/**
 * The v3 error class of each documented `error` value (DEVICE_IS_BUSY is built apart, for its wait).
 *
 * @example
 * V3_ERROR_CLASSES.LOW_BATTERY === LowBatteryError; // true
 */
export const V3_ERROR_CLASSES: Readonly<Record<string, V3Class>> = {
  BAD_PARAMS: BadParamsError,
  CLOUD_INTEGRATION_NOT_ENABLED: IntegrationNotEnabledError,
  LOW_BATTERY: LowBatteryError,
  DEVICE_IS_BUSY: DeviceBusyError as unknown as V3Class,
  UNAUTHORIZED: UnauthorizedError,
  ACCESS_DENY: AccessDeniedError,
  Forbidden: AccessDeniedError,
  THROTTLED: ThrottledError,
  NOT_FOUND: NotFoundError,
  INTERNAL_ERROR: InternalError,
};

/**
 * Builds the v3 error for an error answer (`{"error": "..."}`); an unknown code gives a plain V3Error.
 *
 * @example
 * const err = v3ErrorFrom({ status: 400, body: { error: 'DEVICE_IS_BUSY 3' } });
 * err instanceof DeviceBusyError && err.waitSeconds === 3; // true
 */
export function v3ErrorFrom(details: ErrorDetails): V3Error {
  const raw = (details.body as { error?: unknown } | null)?.error;
  const text = typeof raw === 'string' ? raw : `HTTP_${details.status}`;
  const busy = /^DEVICE_IS_BUSY(?: (\d+))?$/.exec(text);
  if (busy) return new DeviceBusyError(details, busy[1] === undefined ? undefined : Number(busy[1]));
  const Class = V3_ERROR_CLASSES[text];
  if (Class !== undefined) return new Class(text, details);
  if (details.status === 403) return new AccessDeniedError(text, details);
  return new V3Error(text, details);
}

// ---- v1 ----

/**
 * Base class of the v1 (`/v1`) error answers; `code` is the integer code, `message` names it.
 *
 * @example
 * if (err instanceof V1Error) console.error(err.code, err.message); // 11002 'LockNotFound'
 */
export class V1Error extends LockcloudError {
  declare readonly code: number;
}

/**
 * @example
 * await assert.rejects(LockcloudV1Client.login(baseUrl, '', ''), RequiredFieldEmptyError); // 10000
 */
export class RequiredFieldEmptyError extends V1Error {}
/**
 * @example
 * await assert.rejects(LockcloudV1Client.login(baseUrl, 'not-an-email', 'x'), InvalidEmailError); // 10001
 */
export class InvalidEmailError extends V1Error {}
/**
 * @example
 * await assert.rejects(LockcloudV1Client.login(baseUrl, email, 'wrong'), WrongEmailOrPasswordError); // 10002
 */
export class WrongEmailOrPasswordError extends V1Error {}
/**
 * @example
 * if (err instanceof WrongControlTypeError) console.error('type must be lock or unlock'); // 10005
 */
export class WrongControlTypeError extends V1Error {}
/**
 * @example
 * await assert.rejects(v1.getLock('no-such-lock'), LockNotFoundError); // 11002
 */
export class LockNotFoundError extends V1Error {}
/**
 * @example
 * if (err instanceof MissingAuthTokenError) console.error('log in first'); // 20000
 */
export class MissingAuthTokenError extends V1Error {}
/**
 * @example
 * await assert.rejects(new LockcloudV1Client({ baseUrl, token: 'x' }).listLocks(), WrongAuthTokenError); // 20001
 */
export class WrongAuthTokenError extends V1Error {}
/**
 * @example
 * if (err instanceof AuthTokenExpiredError) v1 = await LockcloudV1Client.login(baseUrl, email, password); // 20002
 */
export class AuthTokenExpiredError extends V1Error {}
/**
 * @example
 * if (err instanceof AuthTokenExpiredByPasswordChangeError) console.error('the password changed'); // 20003
 */
export class AuthTokenExpiredByPasswordChangeError extends V1Error {}
/**
 * @example
 * if (err instanceof AccountDeletedError) console.error('the account is gone'); // 20004
 */
export class AccountDeletedError extends V1Error {}
/**
 * @example
 * await assert.rejects(v1.control(sharedLockId, 'unlock'), OwnerPermissionRequiredError); // 30000
 */
export class OwnerPermissionRequiredError extends V1Error {}
/**
 * @example
 * if (err instanceof EmailNotVerifiedError) console.error('verify the e-mail first'); // 31000
 */
export class EmailNotVerifiedError extends V1Error {}
/**
 * @example
 * if (err instanceof AccountLockedError) console.error('set a password in the app'); // 31001
 */
export class AccountLockedError extends V1Error {}
/**
 * @example
 * if (err instanceof CloudApiNotEnabledError) console.error('turn integration on in the app'); // 32000
 */
export class CloudApiNotEnabledError extends V1Error {}
/**
 * No such v1 route (40400).
 *
 * @example
 * if (err instanceof V1NotFoundError) console.error('is the base URL right?');
 */
export class V1NotFoundError extends V1Error {}
/**
 * Too many login attempts (42900); `retryAfterSeconds` from `Retry-After`.
 *
 * @example
 * if (err instanceof TooManyRequestsError) await sleep((err.retryAfterSeconds ?? 60) * 1000);
 */
export class TooManyRequestsError extends V1Error {}
/**
 * A v1 server failure (50000).
 *
 * @example
 * if (err instanceof V1InternalError) console.error(`server error, request ${err.requestId}`);
 */
export class V1InternalError extends V1Error {}
/**
 * Another command is in flight (`retryAfterSeconds` from `Retry-After`), or the app holds the lock (50001).
 *
 * @example
 * if (err instanceof LockBusyError && err.retryAfterSeconds !== undefined) await sleep(err.retryAfterSeconds * 1000);
 */
export class LockBusyError extends V1Error {}
/**
 * @example
 * if (err instanceof LockUnreachableError) console.error('the access point or the lock is offline'); // 50002
 */
export class LockUnreachableError extends V1Error {}
/**
 * @example
 * if (err instanceof LockCommandTimeoutError) console.error('the lock did not confirm'); // 50003
 */
export class LockCommandTimeoutError extends V1Error {}
/**
 * @example
 * if (err instanceof LockLowBatteryError) console.error('change the batteries'); // 50004
 */
export class LockLowBatteryError extends V1Error {}
/**
 * @example
 * if (err instanceof LockJammedError) console.error('the lock jammed'); // 50005
 */
export class LockJammedError extends V1Error {}

type V1Class = new (code: number, details: ErrorDetails, message?: string) => V1Error;

/**
 * The v1 error class of each documented code.
 *
 * @example
 * V1_ERROR_CLASSES[11002] === LockNotFoundError; // true
 */
export const V1_ERROR_CLASSES: Readonly<Record<number, V1Class>> = {
  10000: RequiredFieldEmptyError,
  10001: InvalidEmailError,
  10002: WrongEmailOrPasswordError,
  10005: WrongControlTypeError,
  11002: LockNotFoundError,
  20000: MissingAuthTokenError,
  20001: WrongAuthTokenError,
  20002: AuthTokenExpiredError,
  20003: AuthTokenExpiredByPasswordChangeError,
  20004: AccountDeletedError,
  30000: OwnerPermissionRequiredError,
  31000: EmailNotVerifiedError,
  31001: AccountLockedError,
  32000: CloudApiNotEnabledError,
  40400: V1NotFoundError,
  42900: TooManyRequestsError,
  50000: V1InternalError,
  50001: LockBusyError,
  50002: LockUnreachableError,
  50003: LockCommandTimeoutError,
  50004: LockLowBatteryError,
  50005: LockJammedError,
};

/**
 * Builds the v1 error for an error answer (`{"code": n, "message": "Name"}`); an unknown code
 * gives a plain V1Error (another 5xxxx gives a V1InternalError).
 *
 * @example
 * v1ErrorFrom({ status: 400, body: { code: 11002, message: 'LockNotFound' } }) instanceof LockNotFoundError; // true
 */
export function v1ErrorFrom(details: ErrorDetails): V1Error {
  const body = details.body as { code?: unknown; message?: unknown } | null;
  const code = typeof body?.code === 'number' ? body.code : details.status * 100;
  const message = typeof body?.message === 'string' ? body.message : undefined;
  const Class = V1_ERROR_CLASSES[code] ?? (code >= 50000 && code < 60000 ? V1InternalError : V1Error);
  return new Class(code, details, message === undefined ? undefined : `${message} (${code})`);
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
