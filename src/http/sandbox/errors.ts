import type { DomainError, DomainErrorCode } from '../../domain/errors.ts';
import type { ErrorAnswer, ErrorRenderer } from '../error-pipeline.ts';
import { UNAVAILABLE_MESSAGE } from '../unavailable.ts';

/** The sandbox's errors: the v3 shape plus a message, since these callers are people writing tests. */
export const SANDBOX_ERRORS = [
  {
    status: 400,
    error: 'BAD_PARAMS',
    cause:
      'a field is missing, unknown, or of the wrong type or range (the message names it); the body is not valid JSON, not an object, or of another content type; the path cannot be decoded or the request is not valid HTTP',
  },
  {
    status: 400,
    error: 'BAD_PARAMS',
    cause:
      'POST /_sim/locks on a server that runs no simulated devices (--no-simulator), or whose external broker refuses the new simulated access point (the message says which)',
  },
  { status: 413, error: 'BAD_PARAMS', cause: 'the request body is over 16 KiB' },
  {
    status: 431,
    error: 'BAD_PARAMS',
    cause: 'the request line and headers are over 16 KiB (a very long path or query string)',
  },
  { status: 408, error: 'BAD_PARAMS', cause: 'the request line and headers did not arrive in time' },
  {
    status: 404,
    error: 'NOT_FOUND',
    cause:
      'no such lock or account (a deleted one, for POST /_sim/locks), or no such sandbox route or method',
  },
  { status: 500, error: 'INTERNAL_ERROR', cause: 'an unexpected server failure; logged with the request id' },
  {
    status: 503,
    error: 'SERVICE_UNAVAILABLE',
    cause:
      'the database, or Redis for a reset, cannot be reached (it restarts or is down): a temporary condition, and the change may not have been made; Retry-After says when to try again',
  },
] as const;

export interface SandboxErrorBody {
  readonly error: string;
  readonly message: string;
}

type SandboxAnswer = 'BAD_PARAMS' | 'NOT_FOUND';

/**
 * Every domain code, as the sandbox answers it. Its routes raise LOCK_NOT_FOUND and
 * ACCOUNT_NOT_FOUND (404) and the input rules of the use cases they drive (400). It has no
 * credentials nor limits: any other code is a change it could not make, 400 with the reason.
 */
const BY_CODE: Record<DomainErrorCode, SandboxAnswer> = {
  LOCK_NOT_FOUND: 'NOT_FOUND',
  ACCOUNT_NOT_FOUND: 'NOT_FOUND',
  TASK_NOT_FOUND: 'NOT_FOUND',
  DELIVERY_NOT_FOUND: 'NOT_FOUND',
  GRANT_NOT_FOUND: 'NOT_FOUND',
  APP_NOT_FOUND: 'NOT_FOUND',
  GRANT_DENIED: 'BAD_PARAMS',
  INVALID_INPUT: 'BAD_PARAMS',
  UNAUTHENTICATED: 'BAD_PARAMS',
  NOT_OWNER: 'BAD_PARAMS',
  CONFIRMATION_REQUIRED: 'BAD_PARAMS',
  INTEGRATION_DISABLED: 'BAD_PARAMS',
  LOW_BATTERY: 'BAD_PARAMS',
  BUSY: 'BAD_PARAMS',
  CONFLICT: 'BAD_PARAMS',
  IDEMPOTENCY_KEY_REUSED: 'BAD_PARAMS',
  SCOPE_MISSING: 'BAD_PARAMS',
  INVALID_COMMAND: 'BAD_PARAMS',
  MISSING_FIELD: 'BAD_PARAMS',
  INVALID_EMAIL: 'BAD_PARAMS',
  WRONG_CREDENTIALS: 'BAD_PARAMS',
  EMAIL_NOT_VERIFIED: 'BAD_PARAMS',
  ACCOUNT_LOCKED: 'BAD_PARAMS',
  TOKEN_MISSING: 'BAD_PARAMS',
  TOKEN_UNKNOWN: 'BAD_PARAMS',
  TOKEN_EXPIRED: 'BAD_PARAMS',
  TOKEN_PASSWORD_CHANGED: 'BAD_PARAMS',
  ACCOUNT_DELETED: 'BAD_PARAMS',
  THROTTLED: 'BAD_PARAMS',
  BLOCKED: 'BAD_PARAMS',
  TOO_MANY_COMMANDS: 'BAD_PARAMS',
  NOT_CONFIGURED: 'BAD_PARAMS',
};

export function sandboxAnswer(error: DomainError): ErrorAnswer<SandboxErrorBody> {
  const name = BY_CODE[error.code];
  return { status: name === 'NOT_FOUND' ? 404 : 400, body: { error: name, message: error.message } };
}

/** The sandbox's words for every step of the error pipeline: always a message, for people writing tests. */
export const sandboxErrors: ErrorRenderer<SandboxErrorBody> = {
  surface: 'sandbox',
  notFound: (request) => ({
    error: 'NOT_FOUND',
    message: `no ${request.method} route here (docs/sandbox.md)`,
  }),
  domain: sandboxAnswer,
  badRequest: (message) => ({ error: 'BAD_PARAMS', message }),
  unavailable: { error: 'SERVICE_UNAVAILABLE', message: UNAVAILABLE_MESSAGE },
  internal: { error: 'INTERNAL_ERROR', message: 'unexpected failure, logged under this X-Request-Id' },
};
