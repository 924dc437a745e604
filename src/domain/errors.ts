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
  // A webhook delivery or endpoint the account does not have (an unknown id, or another account's).
  'DELIVERY_NOT_FOUND',
  // A grant of a lock the account cannot act on: an unknown id, another lock's, or another guest's.
  'GRANT_NOT_FOUND',
  // An OAuth app the account did not register, or an app it never authorized (issue 24).
  'APP_NOT_FOUND',
  // A guest's grant does not allow this now: outside its window or schedule, view only, used up.
  'GRANT_DENIED',
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
  // An Idempotency-Key the account already used for another request (another lock, command or endpoint).
  'IDEMPOTENCY_KEY_REUSED',
  // An API key without the scope its route needs (domain/scope.ts); its message names the scope.
  'SCOPE_MISSING',
] as const;

export type DomainErrorCode = (typeof DOMAIN_ERROR_CODES)[number];

export interface DomainErrorDetails {
  /** For BUSY, THROTTLED, BLOCKED and TOO_MANY_COMMANDS: the longest wait in whole seconds before a retry can succeed, when it is known. */
  readonly retryAfterSeconds?: number;
  /** For INVALID_INPUT: which field was wrong, for the extension APIs that can say so. */
  readonly field?: string;
  /**
   * For INVALID_INPUT, when more than one field of a form was wrong: each one's message, so a form
   * shows them all at once. `field` and the error's message are the first of them, so a surface that
   * names one field answers as it did.
   */
  readonly fields?: Readonly<Record<string, string>>;
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

/**
 * Runs every check of a form's fields and answers their values; when some refuse with an
 * INVALID_INPUT naming its field, throws one error carrying them all (`details.fields`), the first
 * one's message and field on top. Any other refusal is thrown as it comes.
 */
export function checkFields<T extends readonly unknown[]>(
  ...checks: { readonly [K in keyof T]: () => T[K] }
): T {
  const values: unknown[] = [];
  const failed: DomainError[] = [];
  for (const check of checks) {
    try {
      values.push(check());
    } catch (error) {
      if (!isDomainError(error) || error.code !== 'INVALID_INPUT' || error.details.field === undefined)
        throw error;
      failed.push(error);
      values.push(undefined);
    }
  }
  const [first] = failed;
  if (first === undefined) return values as unknown as T;
  if (failed.length === 1) throw first;
  const fields: Record<string, string> = {};
  for (const e of failed) fields[e.details.field as string] ??= e.message;
  throw new DomainError('INVALID_INPUT', first.message, { field: first.details.field, fields });
}
