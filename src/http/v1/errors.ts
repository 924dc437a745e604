import type { FastifyReply } from 'fastify';
import type { DomainError, DomainErrorCode } from '../../domain/errors.ts';
import type { TaskFailure } from '../../domain/task.ts';
import type { ErrorAnswer, ErrorRenderer } from '../error-pipeline.ts';

export interface V1ErrorBody {
  readonly code: number;
  readonly message: string;
}

/** Every answer v1 can give that is not a success. docs/errors.md is checked against this table. */
export const V1_ERRORS = [
  {
    status: 400,
    code: 10000,
    message: 'RequiredFieldEmpty',
    cause:
      'a required field is missing, empty or not a string; the body is not valid JSON, not an object, or of another content type; the request is not valid HTTP',
  },
  { status: 413, code: 10000, message: 'RequiredFieldEmpty', cause: 'the request body is over 16 KiB' },
  {
    status: 431,
    code: 10000,
    message: 'RequiredFieldEmpty',
    cause: 'the request line and headers are over 16 KiB',
  },
  {
    status: 408,
    code: 10000,
    message: 'RequiredFieldEmpty',
    cause: 'the request line and headers did not arrive in time',
  },
  { status: 400, code: 10001, message: 'InvalidEmail', cause: 'login: the e-mail is not of e-mail form' },
  {
    status: 400,
    code: 10002,
    message: 'WrongEmailOrPassword',
    cause:
      'login: no such account, a deleted account, or a wrong password (one answer, so accounts cannot be enumerated)',
  },
  {
    status: 400,
    code: 10005,
    message: 'WrongControlType',
    cause: 'control: `type` is present but not lock or unlock',
  },
  {
    status: 400,
    code: 11002,
    message: 'LockNotFound',
    cause: 'no lock with that id, or one the account has no relation to',
  },
  {
    status: 401,
    code: 20000,
    message: 'MissingAuthToken',
    cause: 'no X-Authorization header, or an empty one',
  },
  { status: 401, code: 20001, message: 'WrongAuthToken', cause: 'the token is not known' },
  {
    status: 401,
    code: 20002,
    message: 'AuthTokenExpired',
    cause: 'the token was issued more than 30 days ago',
  },
  {
    status: 401,
    code: 20003,
    message: 'AuthTokenExpiredByPasswordChange',
    cause: 'the password was changed after the token was issued',
  },
  { status: 401, code: 20004, message: 'AccountDeleted', cause: 'the account of the token has been deleted' },
  {
    status: 403,
    code: 30000,
    message: 'OwnerPermissionRequired',
    cause: 'the lock is shared with the account, not owned by it',
  },
  {
    status: 403,
    code: 31000,
    message: 'EmailNotVerified',
    cause: 'login: the password matched but the e-mail is not verified',
  },
  {
    status: 403,
    code: 31001,
    message: 'AccountLocked',
    cause: 'login: the account has no password (created by social login), whatever password is sent',
  },
  {
    status: 403,
    code: 32000,
    message: 'CloudApiNotEnabled',
    cause: 'control: integration is off or the lock is not paired with an access point',
  },
  {
    status: 404,
    code: 40400,
    message: 'NotFound',
    cause: 'no such route or method (no credential check runs first)',
  },
  {
    status: 429,
    code: 42900,
    message: 'TooManyRequests',
    cause:
      "login: too many attempts from the client address, too many failed ones for the e-mail from that address, or too many for the e-mail from clients that have not logged in to it; control: the lock's command budget is spent (per account and lock, shared with v3 and the dashboard); Retry-After says when to try again",
  },
  {
    status: 500,
    code: 50000,
    message: 'InternalError',
    cause: 'an unexpected server failure; logged with the request id',
  },
  {
    status: 500,
    code: 50001,
    message: 'LockBusy',
    cause:
      'control: another command is in flight on the lock (Retry-After gives the wait), or the mobile app holds its one connection',
  },
  {
    status: 500,
    code: 50002,
    message: 'LockUnreachable',
    cause: 'control: the access point or the lock is offline',
  },
  {
    status: 500,
    code: 50003,
    message: 'LockCommandTimeout',
    cause: 'control: the lock did not confirm within the command timeout',
  },
  {
    status: 500,
    code: 50004,
    message: 'LockLowBattery',
    cause: 'control: the battery is under the threshold, or the lock refused for its battery',
  },
  {
    status: 500,
    code: 50005,
    message: 'LockJammed',
    cause:
      'control: the lock jammed and did not move (an addition: the documents leave other 5xxxx codes open)',
  },
  {
    status: 503,
    code: 50300,
    message: 'ServiceUnavailable',
    cause:
      'the database cannot be reached (it restarts, fails over or is down): a temporary condition, and the request may not have been carried out; Retry-After says when to try again',
  },
] as const;

type V1Message = (typeof V1_ERRORS)[number]['message'];

export type V1ErrorAnswer = ErrorAnswer<V1ErrorBody>;

/** The answers that carry Retry-After when the wait is known (docs/errors.md: 42900 and 50001). */
const WITH_RETRY_AFTER: ReadonlySet<V1Message> = new Set(['TooManyRequests', 'LockBusy']);

function answer(message: V1Message, retryAfterSeconds?: number): V1ErrorAnswer {
  const row = V1_ERRORS.find(
    (e) => e.message === message && e.status !== 413 && e.status !== 431 && e.status !== 408,
  );
  if (!row) throw new Error(`no v1 error named ${message}`);
  const body = { code: row.code, message: row.message };
  return retryAfterSeconds !== undefined && WITH_RETRY_AFTER.has(message)
    ? { status: row.status, body, retryAfterSeconds }
    : { status: row.status, body };
}

/** Every domain code, as v1 answers it. */
const BY_CODE: Record<DomainErrorCode, V1Message> = {
  INVALID_INPUT: 'RequiredFieldEmpty',
  MISSING_FIELD: 'RequiredFieldEmpty',
  INVALID_COMMAND: 'WrongControlType',
  INVALID_EMAIL: 'InvalidEmail',
  WRONG_CREDENTIALS: 'WrongEmailOrPassword',
  EMAIL_NOT_VERIFIED: 'EmailNotVerified',
  ACCOUNT_LOCKED: 'AccountLocked',
  TOKEN_MISSING: 'MissingAuthToken',
  TOKEN_UNKNOWN: 'WrongAuthToken',
  TOKEN_EXPIRED: 'AuthTokenExpired',
  TOKEN_PASSWORD_CHANGED: 'AuthTokenExpiredByPasswordChange',
  ACCOUNT_DELETED: 'AccountDeleted',
  LOCK_NOT_FOUND: 'LockNotFound',
  NOT_OWNER: 'OwnerPermissionRequired',
  INTEGRATION_DISABLED: 'CloudApiNotEnabled',
  LOW_BATTERY: 'LockLowBattery',
  BUSY: 'LockBusy',
  THROTTLED: 'TooManyRequests',
  BLOCKED: 'TooManyRequests',
  TOO_MANY_COMMANDS: 'TooManyRequests',
  NOT_CONFIGURED: 'RequiredFieldEmpty',
  // v1 has no API keys, tasks, deliveries, API Settings or sandbox accounts: the nearest answers of
  // its published table, should one of these arrive here (docs/errors.md, "Domain error codes").
  UNAUTHENTICATED: 'WrongAuthToken',
  ACCOUNT_NOT_FOUND: 'WrongAuthToken',
  TASK_NOT_FOUND: 'LockNotFound',
  DELIVERY_NOT_FOUND: 'NotFound',
  GRANT_NOT_FOUND: 'NotFound',
  APP_NOT_FOUND: 'NotFound',
  // v1's rule stands: only owners control (docs/errors.md).
  GRANT_DENIED: 'OwnerPermissionRequired',
  CONFIRMATION_REQUIRED: 'OwnerPermissionRequired',
  CONFLICT: 'RequiredFieldEmpty',
  IDEMPOTENCY_KEY_REUSED: 'RequiredFieldEmpty',
  SCOPE_MISSING: 'OwnerPermissionRequired',
};

export function v1Answer(error: DomainError): V1ErrorAnswer {
  return answer(BY_CODE[error.code], error.details.retryAfterSeconds);
}

const FAILURES: Record<TaskFailure, V1Message> = {
  DEVICE_IS_BUSY: 'LockBusy',
  DEVICE_UNREACHABLE: 'LockUnreachable',
  TIMEOUT: 'LockCommandTimeout',
  LOW_BATTERY: 'LockLowBattery',
  JAMMED: 'LockJammed',
  INTERNAL_ERROR: 'InternalError',
};

/** How a command that ran and failed is told to a v1 client, which waited for it. */
export function v1FailureAnswer(failure: TaskFailure): V1ErrorAnswer {
  return answer(FAILURES[failure]);
}

export const V1_BAD_REQUEST: V1ErrorBody = { code: 10000, message: 'RequiredFieldEmpty' };
export const V1_NOT_FOUND: V1ErrorBody = { code: 40400, message: 'NotFound' };
export const V1_INTERNAL_ERROR: V1ErrorBody = { code: 50000, message: 'InternalError' };
export const V1_UNAVAILABLE: V1ErrorBody = { code: 50300, message: 'ServiceUnavailable' };

/** A command's outcome, which the control route answers itself (it is no error the pipeline sees). */
export function sendV1Answer(reply: FastifyReply, answer: V1ErrorAnswer): FastifyReply {
  if (answer.retryAfterSeconds !== undefined) reply.header('retry-after', String(answer.retryAfterSeconds));
  return reply.code(answer.status).send(answer.body);
}

/** v1's words for every step of the error pipeline: its bodies carry no message of ours. */
export const v1Errors: ErrorRenderer<V1ErrorBody> = {
  surface: 'v1',
  notFound: () => V1_NOT_FOUND,
  domain: v1Answer,
  badRequest: () => V1_BAD_REQUEST,
  unavailable: V1_UNAVAILABLE,
  internal: V1_INTERNAL_ERROR,
};
