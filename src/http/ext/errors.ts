import type { DomainError, DomainErrorCode } from '../../domain/errors.ts';
import type { ErrorAnswer, ErrorRenderer } from '../error-pipeline.ts';
import { UNAVAILABLE_MESSAGE } from '../unavailable.ts';

/** The extension API's errors: v3's shape plus a message naming the problem. */
export const EXT_ERRORS = [
  {
    status: 400,
    error: 'BAD_PARAMS',
    cause:
      'a field is missing, unknown, of the wrong type or value (the message names it); the body is not valid JSON, not an object, or of another content type; no webhook is set for an operation that needs one (test, rotate-secret, resend); `PATCH /ext/locks/{device_id}` by a guest of the lock (only its owner changes its settings), with `battery_critical` not under `battery_low`, or with auto-lock for a lock whose access point cannot carry it out (device protocol 1, or none: docs/locks.md); `POST /ext/locks/{device_id}/grants` with an e-mail address that has no verified account (one answer for unknown, unverified and deleted ones), the address of the owner, or an account that has a pending or accepted grant of the lock already; a grant edited or revoked once it is declined, revoked or used; a filter of `GET /ext/events` or `GET /ext/events/stream` is bad, unknown or given twice (the message names it; docs/events.md); the stream resume id (`Last-Event-ID`, `last_event_id`) is malformed or names an event the log holds that the account cannot see, or none it ever held (`last_event_id: unknown event`); an Idempotency-Key on `POST /ext/locks/{device_id}/commands` that is malformed, or that the account used within 24 h for another request (another lock, command or endpoint, v3 included); the path cannot be decoded or the request is not valid HTTP',
  },
  { status: 413, error: 'BAD_PARAMS', cause: 'the request body is over 16 KiB' },
  {
    status: 431,
    error: 'BAD_PARAMS',
    cause: 'the request line and headers are over 16 KiB (a very long path or query string)',
  },
  { status: 408, error: 'BAD_PARAMS', cause: 'the request line and headers did not arrive in time' },
  {
    status: 401,
    error: 'UNAUTHORIZED',
    cause: 'the API key is missing, unknown, deleted, past its expiry, or its account is deleted',
  },
  {
    status: 404,
    error: 'NOT_FOUND',
    cause:
      "no such route, no webhook set (GET, DELETE), no such delivery or webhook endpoint, no such API key (`DELETE /ext/keys/{id}`), or no such lock for the account (`/ext/locks/{device_id}`: a lock of another account not shared with it, or one outside the API key's locks, is one that does not exist; its `/grants` are for the owner alone, so for a guest of the lock too); no such grant of the lock (`/ext/locks/{device_id}/grants/{grant_id}`), or no such invitation or grant of the account to answer (`/ext/invitations/{grant_id}/accept`, `/decline`: one withdrawn, declined or answered already is gone); no such task for the account (`GET /ext/tasks/{task_id}`: its sender and the owner of the lock read it); a command on a lock the account neither owns nor holds an accepted grant of",
  },
  {
    status: 403,
    error: 'ACCESS_DENY',
    cause:
      'the client address is blocked for 30 minutes after repeatedly and significantly exceeding the rate limits (of v3 or of this API); on every endpoint, before the key is checked; Retry-After counts down. Also, without Retry-After, `POST /ext/locks/{device_id}/commands` by a guest whose grant does not allow it now, the message saying why: outside the grant window (not started, or ended), outside the grant schedule, view only, or a one-time grant used',
  },
  {
    status: 403,
    error: 'ACCESS_DENY',
    cause:
      "the API key is limited to scopes that do not include the endpoint's (the message names the scope and the credential: `the API key lacks the scope locks:operate`, or `the access token lacks the scope locks:operate` for an app's OAuth token); `POST /ext/keys` asking for more than the calling key has; no Retry-After, which tells it from the address block",
  },
  {
    status: 429,
    error: 'THROTTLED',
    cause:
      "the client address (checked before the key) or the account is over the endpoint's rate limit; test events and resends: over the account's budget (30 at once, then one every 2 s); `GET /ext/events/stream`: the account already holds `--event-streams-per-account` (20) streams open on this server process; Retry-After says when one more is allowed",
  },
  { status: 500, error: 'INTERNAL_ERROR', cause: 'an unexpected server failure; logged with the request id' },
  {
    status: 503,
    error: 'SERVICE_UNAVAILABLE',
    cause:
      'the database cannot be reached (it restarts, fails over or is down): a temporary condition, and the request may not have been carried out; Retry-After says when to try again',
  },
] as const;

/** The extension API's bodies: a message except on the 401 and the 500. */
export interface ExtErrorBody {
  readonly error: string;
  readonly message?: string;
}

type ExtAnswer = 'BAD_PARAMS' | 'NOT_FOUND' | 'UNAUTHORIZED' | 'THROTTLED' | 'ACCESS_DENY';

/**
 * Every domain code, as the extension API answers it. Its routes raise UNAUTHENTICATED,
 * INVALID_INPUT, NOT_CONFIGURED, DELIVERY_NOT_FOUND, THROTTLED and BLOCKED; for the rest, the nearest
 * row: a credential problem is 401, a missing thing 404, a rate limit 429, anything else a request
 * that cannot be carried out (400).
 */
const BY_CODE: Record<DomainErrorCode, ExtAnswer> = {
  UNAUTHENTICATED: 'UNAUTHORIZED',
  INVALID_INPUT: 'BAD_PARAMS',
  NOT_CONFIGURED: 'BAD_PARAMS',
  DELIVERY_NOT_FOUND: 'NOT_FOUND',
  GRANT_NOT_FOUND: 'NOT_FOUND',
  APP_NOT_FOUND: 'NOT_FOUND',
  GRANT_DENIED: 'ACCESS_DENY',
  TASK_NOT_FOUND: 'NOT_FOUND',
  LOCK_NOT_FOUND: 'BAD_PARAMS',
  NOT_OWNER: 'BAD_PARAMS',
  CONFIRMATION_REQUIRED: 'BAD_PARAMS',
  INTEGRATION_DISABLED: 'BAD_PARAMS',
  LOW_BATTERY: 'BAD_PARAMS',
  BUSY: 'BAD_PARAMS',
  CONFLICT: 'BAD_PARAMS',
  INVALID_COMMAND: 'BAD_PARAMS',
  MISSING_FIELD: 'BAD_PARAMS',
  INVALID_EMAIL: 'BAD_PARAMS',
  // The message says the key was used for another request; ext keeps v3's status and name for it.
  IDEMPOTENCY_KEY_REUSED: 'BAD_PARAMS',
  SCOPE_MISSING: 'ACCESS_DENY',
  // The endpoints' limits (src/http/rate-limits-hook.ts) and the budget of test events and resends
  // (app/webhooks/manual-sends.ts), with their wait; the address blocked as on v3.
  THROTTLED: 'THROTTLED',
  TOO_MANY_COMMANDS: 'THROTTLED',
  BLOCKED: 'ACCESS_DENY',
  WRONG_CREDENTIALS: 'UNAUTHORIZED',
  EMAIL_NOT_VERIFIED: 'UNAUTHORIZED',
  ACCOUNT_LOCKED: 'UNAUTHORIZED',
  TOKEN_MISSING: 'UNAUTHORIZED',
  TOKEN_UNKNOWN: 'UNAUTHORIZED',
  TOKEN_EXPIRED: 'UNAUTHORIZED',
  TOKEN_PASSWORD_CHANGED: 'UNAUTHORIZED',
  ACCOUNT_DELETED: 'UNAUTHORIZED',
  ACCOUNT_NOT_FOUND: 'UNAUTHORIZED',
};

const STATUS: Record<ExtAnswer, number> = {
  BAD_PARAMS: 400,
  NOT_FOUND: 404,
  UNAUTHORIZED: 401,
  THROTTLED: 429,
  ACCESS_DENY: 403,
};

export function extAnswer(error: DomainError): ErrorAnswer<ExtErrorBody> {
  const name = BY_CODE[error.code];
  const body = name === 'UNAUTHORIZED' ? { error: name } : { error: name, message: error.message };
  // A missing scope waits for nothing: no Retry-After, unlike the address block (also ACCESS_DENY).
  if (name === 'THROTTLED' || (name === 'ACCESS_DENY' && error.code === 'BLOCKED'))
    return { status: STATUS[name], body, retryAfterSeconds: error.details.retryAfterSeconds ?? 1 };
  return { status: STATUS[name], body };
}

/** The extension API's words for every step of the error pipeline. */
export const extErrors: ErrorRenderer<ExtErrorBody> = {
  surface: 'ext',
  notFound: () => ({ error: 'NOT_FOUND', message: 'no such route' }),
  domain: extAnswer,
  badRequest: (message) => ({ error: 'BAD_PARAMS', message }),
  unavailable: { error: 'SERVICE_UNAVAILABLE', message: UNAVAILABLE_MESSAGE },
  internal: { error: 'INTERNAL_ERROR' },
};
