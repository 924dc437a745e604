import type { FastifyReply, FastifyRequest } from 'fastify';
import { type DomainError, type DomainErrorCode, isDomainError } from '../../domain/errors.ts';
import type { TaskFailure } from '../../domain/task.ts';
import type { ErrorRenderer } from '../error-pipeline.ts';
import { UNAVAILABLE_MESSAGE } from '../unavailable.ts';
import type { Refused } from './flash.ts';
import { isApi, sendPage } from './reply.ts';
import { problemPage } from './views/auth-pages.ts';

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
    cause:
      "the CSRF token is missing or wrong, the Origin is another site, or API Settings are not unlocked; on the login form, an e-mail not verified yet (once the password matched); a guest's command its grant does not allow now (view only, outside its window or schedule, used up: the message says which)",
  },
  {
    status: 404,
    error: 'NOT_FOUND',
    cause:
      "no such route, or a lock or task the account does not own (or use through an accepted grant); a grant or invitation that is not the account's or no longer answerable",
  },
  { status: 413, error: 'BAD_PARAMS', cause: 'the request body is over 16 KiB' },
  {
    status: 429,
    error: 'THROTTLED',
    cause:
      'too many attempts: logins, sign-ups, resends, password-reset requests and lock invitations from the address; failed logins on the e-mail; code checks from the address, or for one e-mail address and purpose (10, then one every 48 hours, whatever the address holds); or too many commands to one lock; the message and `Retry-After` say when to try again',
  },
  { status: 500, error: 'INTERNAL_ERROR', cause: 'an unexpected server failure; logged with the request id' },
  {
    status: 503,
    error: 'SERVICE_UNAVAILABLE',
    cause:
      'the database cannot be reached (it restarts, fails over or is down): a temporary condition, and the request may not have been carried out; Retry-After says when to try again',
  },
] as const;

type DashboardError = (typeof DASHBOARD_ERRORS)[number]['error'];

export interface Refusal {
  readonly status: number;
  readonly error: DashboardError;
  readonly message: string;
  readonly field?: string;
  /** Every field the form got wrong, each with its message (the first is `field` and `message`). */
  readonly fields?: Readonly<Record<string, string>>;
  readonly retryAfterSeconds?: number;
}

/** The refusal's messages by field, when it names any: all of them, for a form to show at once. */
export function fieldErrors(r: Refusal): Record<string, string> {
  if (r.fields !== undefined) return { ...r.fields };
  return r.field === undefined ? {} : { [r.field]: r.message };
}

/**
 * A form's refusal as its page shows it: every error of the form's own `fields` next to its field
 * (renamed where the page names the field apart) under "Check the form.", else the message on top;
 * with the status and wait. Errors that are not the domain's are thrown on to the error pipeline.
 */
export function refusedForm(
  error: unknown,
  fields: readonly string[],
  rename: Readonly<Record<string, string>> = {},
): Refused {
  if (!isDomainError(error)) throw error;
  const r = refusalOf(error);
  const errors = Object.fromEntries(
    Object.entries(fieldErrors(r))
      .filter(([name]) => fields.includes(name))
      .map(([name, text]) => [rename[name] ?? name, text]),
  );
  const wait = r.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: r.retryAfterSeconds };
  return Object.keys(errors).length > 0
    ? { status: r.status, ...wait, errors, notice: { kind: 'error', text: 'Check the form.' } }
    : { status: r.status, ...wait, notice: { kind: 'error', text: r.message } };
}

type Refuse = (error: DomainError) => Refusal;

/** The use case's own sentence, next to its field when it names one. */
const badParams: Refuse = (error) => {
  const { field, fields } = error.details;
  const each =
    fields === undefined
      ? undefined
      : Object.fromEntries(Object.entries(fields).map(([name, text]) => [name, capitalize(text)]));
  return {
    status: 400,
    error: 'BAD_PARAMS',
    message: capitalize(error.message),
    ...(field ? { field } : {}),
    ...(each ? { fields: each } : {}),
  };
};
const forbidden: Refuse = (error) => ({
  status: 403,
  error: 'FORBIDDEN',
  message: capitalize(error.message),
});
const saying =
  (status: number, error: DashboardError, message: string): Refuse =>
  () => ({ status, error, message });
/** A wait the page names, also in Retry-After; a minute when the limit did not say. */
const tooMany =
  (what: string): Refuse =>
  (error) => {
    const wait = error.details.retryAfterSeconds ?? 60;
    return {
      status: 429,
      error: 'THROTTLED',
      message: `${what} Try again in ${inWords(wait)}.`,
      retryAfterSeconds: wait,
    };
  };

/** A wait as a person reads it: seconds up to two minutes, then minutes, then hours (code attempts wait days). */
function inWords(seconds: number): string {
  if (seconds < 120) return `${seconds} s`;
  if (seconds < 2 * 3600) return `${Math.ceil(seconds / 60)} min`;
  return `${Math.ceil(seconds / 3600)} h`;
}
const busy: Refuse = (error) => {
  const wait = error.details.retryAfterSeconds;
  const message =
    wait === undefined
      ? 'The mobile app holds the lock’s only connection. Close the app and try again.'
      : `The lock is busy with another command. Try again in ${wait} s.`;
  return { status: 400, error: 'DEVICE_IS_BUSY', message };
};
const logInAgain = saying(401, 'UNAUTHORIZED', 'Log in again.');

/**
 * Every domain code, as the dashboard says it: the JSON endpoints send `error` and `message`, the
 * forms show the message (next to its field) with the status. Only a missing or ended session asks
 * to log in again; the codes the dashboard's use cases never raise get the nearest row
 * (docs/errors.md, "Domain error codes").
 */
const BY_CODE: Record<DomainErrorCode, Refuse> = {
  INVALID_INPUT: badParams,
  CONFLICT: badParams,
  IDEMPOTENCY_KEY_REUSED: badParams,
  ACCOUNT_NOT_FOUND: badParams,
  NOT_CONFIGURED: badParams,
  INVALID_COMMAND: badParams,
  MISSING_FIELD: saying(400, 'BAD_PARAMS', 'Enter your e-mail address and password.'),
  INVALID_EMAIL: saying(400, 'BAD_PARAMS', 'That is not an e-mail address.'),
  // Also the answer for an account without a password: the login form does not tell it apart
  // (app/accounts/sessions.ts), so it says what such an account needs.
  WRONG_CREDENTIALS: saying(
    400,
    'BAD_PARAMS',
    'Wrong e-mail or password. An account made with a social login has no password yet: set one with "Forgot password".',
  ),
  EMAIL_NOT_VERIFIED: saying(
    403,
    'FORBIDDEN',
    'Verify your e-mail address first: enter the code we mailed you.',
  ),
  ACCOUNT_LOCKED: saying(
    403,
    'FORBIDDEN',
    'This account has no password yet (it was made with a social login): set one with "Forgot password".',
  ),
  INTEGRATION_DISABLED: saying(
    400,
    'CLOUD_INTEGRATION_NOT_ENABLED',
    'Cloud integration is off for this lock, or it is not paired with an access point. Turn integration on below.',
  ),
  LOW_BATTERY: saying(400, 'LOW_BATTERY', 'The battery is too low to lock or unlock. Replace the batteries.'),
  BUSY: busy,
  THROTTLED: tooMany('Too many attempts.'),
  BLOCKED: tooMany('Too many requests from this address.'),
  // The lock's command budget, which every surface spends: a person is told which budget it is.
  TOO_MANY_COMMANDS: tooMany('Too many commands to this lock.'),
  CONFIRMATION_REQUIRED: forbidden,
  SCOPE_MISSING: forbidden,
  NOT_OWNER: saying(403, 'FORBIDDEN', 'Only the owner of this lock can do that.'),
  LOCK_NOT_FOUND: saying(404, 'NOT_FOUND', 'No such lock or task in this account.'),
  TASK_NOT_FOUND: saying(404, 'NOT_FOUND', 'No such lock or task in this account.'),
  DELIVERY_NOT_FOUND: saying(404, 'NOT_FOUND', 'No such webhook delivery in this account.'),
  // "No such grant." for the owner's forms, "No such invitation." for the guest's answers.
  GRANT_NOT_FOUND: (error) => ({ status: 404, error: 'NOT_FOUND', message: capitalize(error.message) }),
  APP_NOT_FOUND: (error) => ({ status: 404, error: 'NOT_FOUND', message: capitalize(error.message) }),
  // Why, in the use case's words: outside the window or the schedule, view only, used up.
  GRANT_DENIED: forbidden,
  UNAUTHENTICATED: logInAgain,
  TOKEN_MISSING: logInAgain,
  TOKEN_UNKNOWN: logInAgain,
  TOKEN_EXPIRED: logInAgain,
  TOKEN_PASSWORD_CHANGED: logInAgain,
  ACCOUNT_DELETED: saying(401, 'UNAUTHORIZED', 'This account has been deleted.'),
};

export function refusalOf(error: DomainError): Refusal {
  return BY_CODE[error.code](error);
}

export interface DashboardErrorBody {
  readonly error: DashboardError;
  readonly message: string;
}

/** A refusal as JSON for the page's script (/dashboard/api), as the problem page for a browser. */
export function sendRefusal(
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
  body: DashboardErrorBody,
): FastifyReply {
  if (isApi(request)) return reply.code(status).send(body);
  return sendPage(reply, problemPage('That did not work', body.message, '/dashboard'), status);
}

/** The dashboard's words for every step of the error pipeline. */
export const dashboardErrors: ErrorRenderer<DashboardErrorBody> = {
  surface: 'dashboard',
  notFound: () => ({ error: 'NOT_FOUND', message: 'There is no such page.' }),
  domain: (error) => {
    const { status, error: name, message, retryAfterSeconds } = refusalOf(error);
    const body = { error: name, message };
    return retryAfterSeconds === undefined ? { status, body } : { status, body, retryAfterSeconds };
  },
  badRequest: () => ({ error: 'BAD_PARAMS', message: 'The request could not be read.' }),
  unavailable: { error: 'SERVICE_UNAVAILABLE', message: UNAVAILABLE_MESSAGE },
  internal: { error: 'INTERNAL_ERROR', message: 'Something went wrong on our side. Try again.' },
  send: sendRefusal,
};

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
