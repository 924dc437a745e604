import type { DomainError, DomainErrorCode } from '../../domain/errors.ts';
import type { ErrorAnswer, ErrorRenderer } from '../error-pipeline.ts';

/** Every answer v3 can give that is not a success. docs/errors.md is checked against this table. */
export const V3_ERRORS = [
  {
    status: 400,
    error: 'BAD_PARAMS',
    cause:
      "a parameter is missing, of the wrong type or value, or has unknown fields; the body is not valid JSON, not an object, or of another content type; the path cannot be decoded or the request is not valid HTTP; the lock or task is unknown, malformed, not the account's (or outside the API key's locks), or expired; an Idempotency-Key is malformed, or the account used it within 24 h for another request (another lock, command or endpoint)",
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
    status: 403,
    error: 'ACCESS_DENY',
    cause:
      "the API key is limited to scopes that do not include the endpoint's (docs/security.md); no Retry-After, which tells it from the address block",
  },
  {
    status: 429,
    error: 'THROTTLED',
    cause:
      "the account or the client address is over the endpoint's rate limit, or a command to a lock whose command budget is spent (per account and lock, shared with v1 control and the dashboard); Retry-After says when one request will be allowed",
  },
  {
    status: 401,
    error: 'UNAUTHORIZED',
    cause:
      'the API key (header, or apikey for the partner endpoint) is missing, unknown, deleted, past its expiry, or its account is deleted',
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

type V3Name = (typeof V3_ERRORS)[number]['error'];

export interface V3ErrorBody {
  readonly error: string;
}

export type V3ErrorAnswer = ErrorAnswer<V3ErrorBody>;

interface V3Entry {
  readonly status: number;
  readonly error: V3Name;
  /** Where a known wait goes: appended to the name (DEVICE_IS_BUSY <n>), or in Retry-After. */
  readonly wait?: 'in-name' | 'retry-after';
}

const BAD_PARAMS: V3Entry = { status: 400, error: 'BAD_PARAMS' };
const UNAUTHORIZED: V3Entry = { status: 401, error: 'UNAUTHORIZED' };

/** Every domain code, as v3 answers it: an unknown, foreign or expired lock or task is BAD_PARAMS. */
const BY_CODE: Record<DomainErrorCode, V3Entry> = {
  INVALID_INPUT: BAD_PARAMS,
  LOCK_NOT_FOUND: BAD_PARAMS,
  TASK_NOT_FOUND: BAD_PARAMS,
  NOT_OWNER: BAD_PARAMS,
  CONFLICT: BAD_PARAMS,
  INVALID_COMMAND: BAD_PARAMS,
  INTEGRATION_DISABLED: { status: 400, error: 'CLOUD_INTEGRATION_NOT_ENABLED' },
  LOW_BATTERY: { status: 400, error: 'LOW_BATTERY' },
  BUSY: { status: 400, error: 'DEVICE_IS_BUSY', wait: 'in-name' },
  UNAUTHENTICATED: UNAUTHORIZED,
  THROTTLED: { status: 429, error: 'THROTTLED', wait: 'retry-after' },
  BLOCKED: { status: 403, error: 'ACCESS_DENY', wait: 'retry-after' },
  // The lock's command budget: v3's documented throttle, and RateLimit headers still of the endpoint.
  TOO_MANY_COMMANDS: { status: 429, error: 'THROTTLED', wait: 'retry-after' },
  // v3 never logs in, reads tokens, keeps deliveries or asks for a confirmation code: the nearest
  // answers of its published table, should one of these arrive here (docs/errors.md, "Domain error codes").
  MISSING_FIELD: BAD_PARAMS,
  INVALID_EMAIL: BAD_PARAMS,
  WRONG_CREDENTIALS: UNAUTHORIZED,
  EMAIL_NOT_VERIFIED: UNAUTHORIZED,
  ACCOUNT_LOCKED: UNAUTHORIZED,
  TOKEN_MISSING: UNAUTHORIZED,
  TOKEN_UNKNOWN: UNAUTHORIZED,
  TOKEN_EXPIRED: UNAUTHORIZED,
  TOKEN_PASSWORD_CHANGED: UNAUTHORIZED,
  ACCOUNT_DELETED: UNAUTHORIZED,
  ACCOUNT_NOT_FOUND: UNAUTHORIZED,
  NOT_CONFIGURED: BAD_PARAMS,
  DELIVERY_NOT_FOUND: BAD_PARAMS,
  // v3 answers only owners' locks: a grant is never its business (its nearest row).
  GRANT_NOT_FOUND: BAD_PARAMS,
  APP_NOT_FOUND: BAD_PARAMS,
  GRANT_DENIED: BAD_PARAMS,
  CONFIRMATION_REQUIRED: BAD_PARAMS,
  // As decided for v3 (docs/decisions.md): its one 400 for a request it will not carry out.
  IDEMPOTENCY_KEY_REUSED: BAD_PARAMS,
  // A scoped key on a route outside its scopes: v3's one 403, without the Retry-After the address
  // block always carries, which is how a client tells the two apart (docs/errors.md).
  SCOPE_MISSING: { status: 403, error: 'ACCESS_DENY' },
};

export function v3Answer(error: DomainError): V3ErrorAnswer {
  const { status, error: name, wait } = BY_CODE[error.code];
  const seconds = error.details.retryAfterSeconds;
  if (wait === undefined || seconds === undefined) return { status, body: { error: name } };
  return wait === 'in-name'
    ? { status, body: { error: `${name} ${seconds}` } }
    : { status, body: { error: name }, retryAfterSeconds: seconds };
}

export const V3_BAD_PARAMS = { error: 'BAD_PARAMS' } as const;
export const V3_NOT_FOUND = { error: 'NOT_FOUND' } as const;
export const V3_INTERNAL_ERROR = { error: 'INTERNAL_ERROR' } as const;
export const V3_UNAVAILABLE = { error: 'SERVICE_UNAVAILABLE' } as const;

/** v3's words for every step of the error pipeline; outside the versioned prefixes they apply too. */
export const v3Errors: ErrorRenderer<V3ErrorBody> = {
  surface: 'v3',
  notFound: () => V3_NOT_FOUND,
  domain: v3Answer,
  badRequest: () => V3_BAD_PARAMS,
  unavailable: V3_UNAVAILABLE,
  internal: V3_INTERNAL_ERROR,
};
