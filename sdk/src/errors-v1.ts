/** One error class per documented v1 (`/v1`) error code (docs/errors.md). */
import { type ErrorDetails, LockcloudError } from './errors-base.js';

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
 * Too many login attempts, or too many commands to one lock (its command budget, shared with v3 and
 * the dashboard) (42900); `retryAfterSeconds` from `Retry-After`.
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
 * The server's database is briefly away (50300); try again after `retryAfterSeconds`. A control may
 * or may not have been carried out: read the lock before sending it again.
 *
 * @example
 * if (err instanceof V1ServiceUnavailableError) await sleep((err.retryAfterSeconds ?? 2) * 1000);
 */
export class V1ServiceUnavailableError extends V1Error {}
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
  50300: V1ServiceUnavailableError,
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
