import type { DomainError } from '../../domain/errors.ts';
import type { TaskFailure } from '../../domain/task.ts';

/**
 * The dashboard's JSON endpoints (/dashboard/api): v3's error names with a readable message the page
 * shows as it is. Forms answer the same problems as HTML, the message next to the field.
 */
export const DASHBOARD_ERRORS = [
  {
    status: 400,
    error: 'BAD_PARAMS',
    cause:
      'a field is missing or of the wrong value (the message names it); the body is not valid JSON or form data',
  },
  {
    status: 400,
    error: 'CLOUD_INTEGRATION_NOT_ENABLED',
    cause: 'a command to a lock whose cloud integration is off or that is not paired with an access point',
  },
  { status: 400, error: 'LOW_BATTERY', cause: 'lock or unlock while the battery is under the threshold' },
  {
    status: 400,
    error: 'DEVICE_IS_BUSY',
    cause: 'a command runs on the lock (the message says how long to wait) or the mobile app holds it',
  },
  {
    status: 401,
    error: 'UNAUTHORIZED',
    cause: 'no live session: not logged in, logged out, expired or ended',
  },
  {
    status: 403,
    error: 'FORBIDDEN',
    cause: 'the CSRF token is missing or wrong, the Origin is another site, or API Settings are not unlocked',
  },
  { status: 404, error: 'NOT_FOUND', cause: 'no such route, or a lock or task the account does not own' },
  { status: 413, error: 'BAD_PARAMS', cause: 'the request body is over 16 KiB' },
  {
    status: 429,
    error: 'THROTTLED',
    cause: 'too many attempts (login, codes, sign-up); `Retry-After` says when to retry',
  },
  { status: 500, error: 'INTERNAL_ERROR', cause: 'an unexpected server failure; logged with the request id' },
  {
    status: 503,
    error: 'SERVICE_UNAVAILABLE',
    cause:
      'the database cannot be reached (it restarts, fails over or is down): a temporary condition, and the request may not have been carried out; Retry-After says when to try again',
  },
] as const;

export interface Refusal {
  readonly status: number;
  readonly error: (typeof DASHBOARD_ERRORS)[number]['error'];
  readonly message: string;
  readonly field?: string;
  readonly retryAfterSeconds?: number;
}

const LOGIN_MESSAGES: Partial<Record<string, string>> = {
  MISSING_FIELD: 'Enter your e-mail address and password.',
  INVALID_EMAIL: 'That is not an e-mail address.',
  WRONG_CREDENTIALS: 'Wrong e-mail or password.',
  EMAIL_NOT_VERIFIED: 'Verify your e-mail address first: enter the code we mailed you.',
  ACCOUNT_LOCKED:
    'This account has no password yet (it was made with a social login): set one with "Forgot password".',
};

/** Why a command was refused, as the page says it. */
function commandMessage(error: DomainError): string {
  if (error.code === 'INTEGRATION_DISABLED')
    return 'Cloud integration is off for this lock, or it is not paired with an access point. Turn integration on below.';
  if (error.code === 'LOW_BATTERY') return 'The battery is too low to lock or unlock. Replace the batteries.';
  const wait = error.details.retryAfterSeconds;
  return wait === undefined
    ? 'The mobile app holds the lock’s only connection. Close the app and try again.'
    : `The lock is busy with another command. Try again in ${wait} s.`;
}

export function refusalOf(error: DomainError): Refusal {
  const field = error.details.field;
  switch (error.code) {
    case 'INVALID_INPUT':
    case 'CONFLICT':
    case 'ACCOUNT_NOT_FOUND':
    case 'NOT_CONFIGURED':
    case 'INVALID_COMMAND':
      return {
        status: 400,
        error: 'BAD_PARAMS',
        message: capitalize(error.message),
        ...(field ? { field } : {}),
      };
    case 'MISSING_FIELD':
    case 'INVALID_EMAIL':
    case 'WRONG_CREDENTIALS':
    case 'EMAIL_NOT_VERIFIED':
    case 'ACCOUNT_LOCKED':
      return {
        status: error.code === 'EMAIL_NOT_VERIFIED' || error.code === 'ACCOUNT_LOCKED' ? 403 : 400,
        error: 'BAD_PARAMS',
        message: LOGIN_MESSAGES[error.code] ?? error.message,
      };
    case 'INTEGRATION_DISABLED':
      return { status: 400, error: 'CLOUD_INTEGRATION_NOT_ENABLED', message: commandMessage(error) };
    case 'LOW_BATTERY':
      return { status: 400, error: 'LOW_BATTERY', message: commandMessage(error) };
    case 'BUSY':
      return { status: 400, error: 'DEVICE_IS_BUSY', message: commandMessage(error) };
    case 'THROTTLED': {
      const wait = error.details.retryAfterSeconds ?? 60;
      return {
        status: 429,
        error: 'THROTTLED',
        message: `Too many attempts. Try again in ${wait} s.`,
        retryAfterSeconds: wait,
      };
    }
    case 'NOT_OWNER':
      return { status: 403, error: 'FORBIDDEN', message: capitalize(error.message) };
    case 'LOCK_NOT_FOUND':
    case 'TASK_NOT_FOUND':
      return { status: 404, error: 'NOT_FOUND', message: 'No such lock or task in this account.' };
    default:
      return { status: 401, error: 'UNAUTHORIZED', message: 'Log in again.' };
  }
}

const TASK_FAILURES: Record<TaskFailure, string> = {
  TIMEOUT: 'The lock did not confirm in time.',
  DEVICE_UNREACHABLE: 'The lock or its access point is offline.',
  DEVICE_IS_BUSY: 'The lock was busy.',
  JAMMED: 'The lock is jammed.',
  LOW_BATTERY: 'The lock refused: its battery is too low.',
  INTERNAL_ERROR: 'Something went wrong on our side.',
};

export function taskFailureMessage(failure: TaskFailure): string {
  return TASK_FAILURES[failure];
}

function capitalize(text: string): string {
  const t = text.charAt(0).toUpperCase() + text.slice(1);
  return /[.!?:]$/.test(t) ? t : `${t}.`;
}
