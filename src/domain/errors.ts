/**
 * One error type for every rule the domain and the use cases can break. The code is stable and
 * transport-free: each API version maps it to its own status and body in its own table.
 */
export type DomainErrorCode =
  | 'INVALID_INPUT'
  | 'UNAUTHENTICATED'
  | 'LOCK_NOT_FOUND'
  | 'TASK_NOT_FOUND'
  | 'NOT_OWNER'
  | 'INTEGRATION_DISABLED'
  | 'LOW_BATTERY'
  | 'BUSY'
  | 'ACCOUNT_NOT_FOUND'
  | 'CONFLICT'
  | 'INVALID_COMMAND'
  // v1 login and tokens
  | 'MISSING_FIELD'
  | 'INVALID_EMAIL'
  | 'WRONG_CREDENTIALS'
  | 'EMAIL_NOT_VERIFIED'
  | 'ACCOUNT_LOCKED'
  | 'TOKEN_MISSING'
  | 'TOKEN_UNKNOWN'
  | 'TOKEN_EXPIRED'
  | 'TOKEN_PASSWORD_CHANGED'
  | 'ACCOUNT_DELETED'
  | 'THROTTLED'
  | 'BLOCKED'
  | 'NOT_CONFIGURED';

export interface DomainErrorDetails {
  /** For BUSY and THROTTLED: the longest wait in whole seconds before a retry can succeed, when it is known. */
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
