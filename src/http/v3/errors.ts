import type { DomainError, DomainErrorCode } from '../../domain/errors.ts';

/** Every answer v3 can give that is not a success. docs/errors.md is checked against this table. */
export const V3_ERRORS = [
  {
    status: 400,
    error: 'BAD_PARAMS',
    cause:
      "a parameter is missing, of the wrong type or value, or has unknown fields; the body is not valid JSON, not an object, or of another content type; the path cannot be decoded or the request is not valid HTTP; the lock or task is unknown, malformed, not the account's, or expired",
  },
  { status: 413, error: 'BAD_PARAMS', cause: 'the request body is over 16 KiB' },
  {
    status: 431,
    error: 'BAD_PARAMS',
    cause: 'the request line and headers are over 16 KiB (a very long path or query string)',
  },
  { status: 408, error: 'BAD_PARAMS', cause: 'the request line and headers did not arrive in time' },
  {
    status: 400,
    error: 'CLOUD_INTEGRATION_NOT_ENABLED',
    cause: 'integration is off in the app, or the lock is not paired with an access point',
  },
  {
    status: 400,
    error: 'LOW_BATTERY',
    cause: 'lock or unlock while the battery is under the threshold (10 % by default)',
  },
  {
    status: 400,
    error: 'DEVICE_IS_BUSY <n>',
    cause: 'a command is running on the lock; n whole seconds (at least 1) until it ends at the latest',
  },
  {
    status: 400,
    error: 'DEVICE_IS_BUSY',
    cause: "the mobile app holds the lock's one connection: no wait is known",
  },
  {
    status: 403,
    error: 'ACCESS_DENY',
    cause:
      'the client address is blocked for 30 minutes after repeatedly and significantly exceeding the rate limit; on every endpoint, before the key is checked; Retry-After counts down',
  },
  {
    status: 429,
    error: 'THROTTLED',
    cause:
      "the account or the client address is over the endpoint's rate limit; Retry-After says when one request will be allowed",
  },
  {
    status: 401,
    error: 'UNAUTHORIZED',
    cause:
      'the API key (header, or apikey for the partner endpoint) is missing, unknown, deleted, or its account is deleted',
  },
  { status: 404, error: 'NOT_FOUND', cause: 'no such route or method (no credential check runs first)' },
  { status: 500, error: 'INTERNAL_ERROR', cause: 'an unexpected server failure; logged with the request id' },
  {
    status: 503,
    error: 'SERVICE_UNAVAILABLE',
    cause:
      'the database cannot be reached (it restarts, fails over or is down): a temporary condition, and the request may not have been carried out; Retry-After says when to try again',
  },
] as const;

export interface V3ErrorAnswer {
  readonly status: number;
  readonly body: { readonly error: string };
}

const BY_CODE: Record<DomainErrorCode, { status: number; error: string }> = {
  INVALID_INPUT: { status: 400, error: 'BAD_PARAMS' },
  LOCK_NOT_FOUND: { status: 400, error: 'BAD_PARAMS' },
  TASK_NOT_FOUND: { status: 400, error: 'BAD_PARAMS' },
  NOT_OWNER: { status: 400, error: 'BAD_PARAMS' },
  CONFLICT: { status: 400, error: 'BAD_PARAMS' },
  INVALID_COMMAND: { status: 400, error: 'BAD_PARAMS' },
  INTEGRATION_DISABLED: { status: 400, error: 'CLOUD_INTEGRATION_NOT_ENABLED' },
  LOW_BATTERY: { status: 400, error: 'LOW_BATTERY' },
  BUSY: { status: 400, error: 'DEVICE_IS_BUSY' },
  UNAUTHENTICATED: { status: 401, error: 'UNAUTHORIZED' },
  // v3 never logs in nor reads tokens; should one of these reach it, the nearest v3 answer is given.
  MISSING_FIELD: { status: 400, error: 'BAD_PARAMS' },
  INVALID_EMAIL: { status: 400, error: 'BAD_PARAMS' },
  WRONG_CREDENTIALS: { status: 401, error: 'UNAUTHORIZED' },
  EMAIL_NOT_VERIFIED: { status: 401, error: 'UNAUTHORIZED' },
  ACCOUNT_LOCKED: { status: 401, error: 'UNAUTHORIZED' },
  TOKEN_MISSING: { status: 401, error: 'UNAUTHORIZED' },
  TOKEN_UNKNOWN: { status: 401, error: 'UNAUTHORIZED' },
  TOKEN_EXPIRED: { status: 401, error: 'UNAUTHORIZED' },
  TOKEN_PASSWORD_CHANGED: { status: 401, error: 'UNAUTHORIZED' },
  ACCOUNT_DELETED: { status: 401, error: 'UNAUTHORIZED' },
  THROTTLED: { status: 429, error: 'THROTTLED' },
  BLOCKED: { status: 403, error: 'ACCESS_DENY' },
  NOT_CONFIGURED: { status: 400, error: 'BAD_PARAMS' },
  ACCOUNT_NOT_FOUND: { status: 401, error: 'UNAUTHORIZED' },
};

export function v3Answer(error: DomainError): V3ErrorAnswer {
  const { status, error: name } = BY_CODE[error.code];
  const wait = error.details.retryAfterSeconds;
  const detail = error.code === 'BUSY' && wait !== undefined ? `${name} ${wait}` : name;
  return { status, body: { error: detail } };
}

export const V3_BAD_PARAMS = { error: 'BAD_PARAMS' } as const;
export const V3_NOT_FOUND = { error: 'NOT_FOUND' } as const;
export const V3_INTERNAL_ERROR = { error: 'INTERNAL_ERROR' } as const;
export const V3_UNAVAILABLE = { error: 'SERVICE_UNAVAILABLE' } as const;
