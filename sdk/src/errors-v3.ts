/**
 * One error class per documented v3 (`/public`) error answer (docs/errors.md). The extension API
 * (`/ext`) and the sandbox (`/_sim`) answer in the same shape, plus a `message`, so their errors are
 * these classes too, the message in theirs.
 */
import { type ErrorDetails, LockcloudError } from './errors-base.js';

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
 * `401 UNAUTHORIZED`: the API key is missing, unknown or deleted, or the access token expired or ended.
 *
 * @example
 * await assert.rejects(new LockcloudClient({ baseUrl, apiKey: 'wrong' }).listLocks(), UnauthorizedError);
 */
export class UnauthorizedError extends V3Error {}

/**
 * `403 ACCESS_DENY` (or `Forbidden`): the client address is blocked for 30 minutes, and
 * `retryAfterSeconds` counts down to the end of the block; or, without `retryAfterSeconds`, the API
 * key lacks the scope the endpoint needs (a scoped key; the message names the scope on /ext).
 * Never retried automatically.
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

/**
 * `503 SERVICE_UNAVAILABLE`: a backend the server needs (its database) is briefly away; try again
 * after `retryAfterSeconds`. A command may or may not have been carried out: read the lock before
 * sending it again. Not retried automatically for that reason.
 *
 * @example
 * if (err instanceof ServiceUnavailableError) await sleep((err.retryAfterSeconds ?? 2) * 1000);
 */
export class ServiceUnavailableError extends V3Error {}

type V3Class = new (code: string, details: ErrorDetails, message?: string) => V3Error;

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
  SERVICE_UNAVAILABLE: ServiceUnavailableError,
};

/**
 * Builds the v3 error for an error answer (`{"error": "..."}`, with a `message` from `/ext` and
 * `/_sim`); an unknown code gives a plain V3Error.
 *
 * @example
 * const err = v3ErrorFrom({ status: 400, body: { error: 'DEVICE_IS_BUSY 3' } });
 * err instanceof DeviceBusyError && err.waitSeconds === 3; // true
 */
export function v3ErrorFrom(details: ErrorDetails): V3Error {
  const body = details.body as { error?: unknown; message?: unknown } | null;
  const text = typeof body?.error === 'string' ? body.error : `HTTP_${details.status}`;
  const busy = /^DEVICE_IS_BUSY(?: (\d+))?$/.exec(text);
  if (busy) return new DeviceBusyError(details, busy[1] === undefined ? undefined : Number(busy[1]));
  const message =
    typeof body?.message === 'string'
      ? `lockcloud answered ${details.status} ${text}: ${body.message}`
      : undefined;
  const Class = V3_ERROR_CLASSES[text] ?? (details.status === 403 ? AccessDeniedError : V3Error);
  return new Class(text, details, message);
}
