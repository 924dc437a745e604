/**
 * Shared by the v1 black-box tests: log in, call v1 with a token, and the exact answers of the v1
 * error table (status + `{"code","message"}`), so each test compares one whole answer.
 */
import assert from 'node:assert/strict';
import { advanceClock, answer, OTHER, OWNER, type TestServer } from '../../support/server.ts';

export const JSON_UTF8 = 'application/json; charset=utf-8';
/** Most v1 tests log in and poll far more than a client would: no rate limit, unless under test. */
export const FLAGS = ['--no-rate-limit'] as const;
export const PASSWORDS: Readonly<Record<string, string>> = {
  [OWNER]: 'owner-password',
  [OTHER]: 'other-password',
};
export const UNKNOWN_LOCK = '00000000-0000-4000-8000-0000000000ff';
export const DAY_SECONDS = 24 * 60 * 60;
/** The command timeout the server runs with by default (15 s). */
export const COMMAND_TIMEOUT_SECONDS = 15;

const e = (status: number, code: number, message: string) => ({ status, body: { code, message } });

/** Every v1 error answer, as status + exact body. */
export const V1 = {
  REQUIRED: e(400, 10000, 'RequiredFieldEmpty'),
  INVALID_EMAIL: e(400, 10001, 'InvalidEmail'),
  WRONG_CREDENTIALS: e(400, 10002, 'WrongEmailOrPassword'),
  WRONG_TYPE: e(400, 10005, 'WrongControlType'),
  LOCK_NOT_FOUND: e(400, 11002, 'LockNotFound'),
  MISSING_TOKEN: e(401, 20000, 'MissingAuthToken'),
  WRONG_TOKEN: e(401, 20001, 'WrongAuthToken'),
  TOKEN_EXPIRED: e(401, 20002, 'AuthTokenExpired'),
  PASSWORD_CHANGED: e(401, 20003, 'AuthTokenExpiredByPasswordChange'),
  ACCOUNT_DELETED: e(401, 20004, 'AccountDeleted'),
  NOT_OWNER: e(403, 30000, 'OwnerPermissionRequired'),
  NOT_VERIFIED: e(403, 31000, 'EmailNotVerified'),
  ACCOUNT_LOCKED: e(403, 31001, 'AccountLocked'),
  API_NOT_ENABLED: e(403, 32000, 'CloudApiNotEnabled'),
  NOT_FOUND: e(404, 40400, 'NotFound'),
  TOO_MANY: e(429, 42900, 'TooManyRequests'),
  BUSY: e(500, 50001, 'LockBusy'),
  UNREACHABLE: e(500, 50002, 'LockUnreachable'),
  TIMEOUT: e(500, 50003, 'LockCommandTimeout'),
  LOW_BATTERY: e(500, 50004, 'LockLowBattery'),
  JAMMED: e(500, 50005, 'LockJammed'),
} as const;

export const NO_CONTENT = { status: 204, body: '' };

export interface V1Init {
  readonly method?: string;
  /** X-Authorization; omitted when undefined. */
  readonly token?: string;
  /** JSON-encoded body (with a JSON content type). */
  readonly json?: unknown;
  /** A raw body, sent as is with a JSON content type unless headers say otherwise. */
  readonly raw?: string;
  readonly headers?: Record<string, string>;
}

/** A request under /v1. */
export function v1(t: TestServer, path: string, init: V1Init = {}): Promise<Response> {
  const headers: Record<string, string> = {};
  if (init.token !== undefined) headers['x-authorization'] = init.token;
  if (init.json !== undefined || init.raw !== undefined) headers['content-type'] = 'application/json';
  Object.assign(headers, init.headers);
  const body = init.json !== undefined ? JSON.stringify(init.json) : init.raw;
  return t.request(`/v1${path}`, {
    method: init.method ?? (body === undefined ? 'GET' : 'POST'),
    headers,
    ...(body === undefined ? {} : { body }),
  });
}

export function postLogin(t: TestServer, body: unknown): Promise<Response> {
  return v1(t, '/accounts/login', { method: 'POST', json: body });
}

/** Logs in and answers the token; anything but 200 {"authorization"} fails the test. */
export async function login(t: TestServer, email: string, password = PASSWORDS[email]): Promise<string> {
  const { status, body } = await answer(await postLogin(t, { email, password }));
  const token = (body as { authorization?: unknown } | null)?.authorization;
  if (status !== 200 || typeof token !== 'string')
    throw new Error(`login of ${email} refused: ${status} ${JSON.stringify(body)}`);
  return token;
}

export function listLocks(t: TestServer, token: string): Promise<Response> {
  return v1(t, '/locks', { token });
}

export function readLock(t: TestServer, token: string, lockId: string): Promise<Response> {
  return v1(t, `/locks/${lockId}`, { token });
}

export function control(t: TestServer, token: string, lockId: string, type: unknown): Promise<Response> {
  return v1(t, `/locks/${lockId}/control`, { method: 'POST', token, json: { type } });
}

/** The v1 status of a lock (nickname, is_unlocked, api_enabled, battery), which must be readable. */
export async function v1Status(t: TestServer, token: string, lockId: string): Promise<unknown> {
  const { status, body } = await answer(await readLock(t, token, lockId));
  assert.equal(status, 200, `GET /v1/locks/${lockId}: ${JSON.stringify(body)}`);
  return body;
}

/** An answer checked whole: status and exact body, and for a JSON body the JSON content type. */
export async function expectAnswer(
  res: Response,
  expected: { status: number; body: unknown },
  what?: string,
): Promise<void> {
  const got = await answer(res);
  assert.deepEqual(got, expected, what);
  if (expected.status !== 204)
    assert.equal(res.headers.get('content-type'), JSON_UTF8, `${what ?? ''} content type`);
  assert.ok(res.headers.get('x-request-id'), `${what ?? ''} X-Request-Id`);
}

/** The Retry-After of an answer as whole seconds (at least 1); fails when it is absent or not a number. */
export function retryAfter(res: Response): number {
  const value = res.headers.get('retry-after');
  assert.ok(value !== null, 'a Retry-After header');
  assert.match(value, /^[1-9][0-9]*$/, `Retry-After "${value}" is whole seconds >= 1`);
  return Number(value);
}

/** Resolves to what `pending` resolves to, or to `undefined` if it has not settled within `ms`. */
export async function within<T>(pending: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  try {
    return await Promise.race([pending, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Moves the sandbox clock `seconds` at a time until `pending` (a request in flight) answers. The
 * request may not have reached the server when the first move is made; a later move catches it.
 */
export async function advanceUntilAnswered(
  t: TestServer,
  pending: Promise<Response>,
  seconds: number,
): Promise<Response> {
  for (let i = 0; i < 50; i++) {
    await advanceClock(t, seconds);
    const res = await within(pending, 50);
    if (res !== undefined) return res;
  }
  throw new Error('the request did not answer after 50 clock moves');
}
