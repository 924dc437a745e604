/**
 * Every rule the domain and the use cases can break, as a stable, transport-free code. Each HTTP
 * surface maps every code to its own status and body in an exhaustive table (its errors.ts under
 * src/http/), so a code added here does not compile until each surface says how it answers it; and
 * docs/errors.md lists every code with each surface's answer (test/docs/errors-doc.test.ts).
 */
export const DOMAIN_ERROR_CODES = [
  'INVALID_INPUT',
  'UNAUTHENTICATED',
  'LOCK_NOT_FOUND',
  'TASK_NOT_FOUND',
  // A webhook delivery the account does not have (an unknown id, or another account's).
  'DELIVERY_NOT_FOUND',
  // The lock is shared with the account, not owned by it.
  'NOT_OWNER',
  // A change that needs a fresh confirmation first (API Settings' mailed code, good for 30 minutes).
  'CONFIRMATION_REQUIRED',
  'INTEGRATION_DISABLED',
  'LOW_BATTERY',
  'BUSY',
  'ACCOUNT_NOT_FOUND',
  'CONFLICT',
  'INVALID_COMMAND',
  // v1 login and tokens
  'MISSING_FIELD',
  'INVALID_EMAIL',
  'WRONG_CREDENTIALS',
  'EMAIL_NOT_VERIFIED',
  'ACCOUNT_LOCKED',
  'TOKEN_MISSING',
  'TOKEN_UNKNOWN',
  'TOKEN_EXPIRED',
  'TOKEN_PASSWORD_CHANGED',
  'ACCOUNT_DELETED',
  // Over a rate limit (for a while), and an address blocked for exceeding them repeatedly.
  'THROTTLED',
  'BLOCKED',
  // The lock's command budget is spent (per account and lock, over every surface); the wait is known.
  'TOO_MANY_COMMANDS',
  // A webhook operation while no webhook is set; a simulated lock to add where no simulator runs.
  'NOT_CONFIGURED',
] as const;

export type DomainErrorCode = (typeof DOMAIN_ERROR_CODES)[number];

export interface DomainErrorDetails {
  /** For BUSY, THROTTLED, BLOCKED and TOO_MANY_COMMANDS: the longest wait in whole seconds before a retry can succeed, when it is known. */
  readonly retryAfterSeconds?: number;
  /** For INVALID_INPUT: which field was wrong, for the extension APIs that can say so. */
  readonly field?: string;
}

export class DomainError extends Error {
  readonly code: DomainErrorCode;
  readonly details: DomainErrorDetails;

  constructor(code: DomainErrorCode, message?: string, details: DomainErrorDetails = {}) {
    super(message ?? code);
    this.name = 'DomainError';
    this.code = code;
    this.details = details;
  }
}

export function isDomainError(error: unknown): error is DomainError {
  return error instanceof DomainError;
}
