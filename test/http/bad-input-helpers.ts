/**
 * Shared by the bad-input test files: every error answer is checked whole (status, exact body, JSON
 * content type, an X-Request-Id), so that no test can pass on a 500 or on a body with extra fields.
 */
import assert from 'node:assert/strict';
import type { TestServer } from '../support/server.ts';

export const JSON_UTF8 = 'application/json; charset=utf-8';
export const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** Rate limiting is not under test here: these files send many requests a second from one address. */
export const FLAGS = ['--no-rate-limit'] as const;

/** A JSON value of `size` bytes exactly: an object with a command and a padding field. */
export function paddedBody(size: number, fields: Record<string, unknown> = {}): string {
  const empty = JSON.stringify({ ...fields, pad: '' });
  const body = JSON.stringify({ ...fields, pad: 'x'.repeat(size - empty.length) });
  assert.equal(Buffer.byteLength(body), size);
  return body;
}

async function readJson(res: Response, what: string): Promise<unknown> {
  const text = await res.text();
  try {
    return JSON.parse(text);
  } catch {
    assert.fail(`${what}: the body is not JSON: ${JSON.stringify(text.slice(0, 300))}`);
  }
}

function checkHeaders(res: Response, what: string): void {
  assert.equal(res.headers.get('content-type'), JSON_UTF8, `${what}: content type`);
  assert.ok(res.headers.get('x-request-id'), `${what}: X-Request-Id`);
}

/** A v3 error: exactly `{"error": error}`. */
export async function expectV3Error(
  res: Response,
  status: number,
  error: string,
  what: string,
): Promise<void> {
  const body = await readJson(res, what);
  assert.deepEqual({ status: res.status, body }, { status, body: { error } }, what);
  checkHeaders(res, what);
}

/** A sandbox error: exactly `{"error": error, "message": <non-empty text>}`. */
export async function expectSimError(
  res: Response,
  status: number,
  error: string,
  what: string,
): Promise<void> {
  const body = (await readJson(res, what)) as Record<string, unknown>;
  const message = body?.message;
  assert.deepEqual({ status: res.status, body }, { status, body: { error, message } }, what);
  assert.equal(typeof message, 'string', `${what}: message`);
  assert.ok((message as string).length > 0, `${what}: message is not empty`);
  checkHeaders(res, what);
}

/** A POST with `body` sent as is (no JSON encoding) and the given headers. */
export function postRaw(
  t: TestServer,
  path: string,
  body: string | undefined,
  headers: Record<string, string> = { 'content-type': 'application/json' },
): Promise<Response> {
  return t.request(path, { method: 'POST', headers, ...(body === undefined ? {} : { body }) });
}

/** Bodies that are not a JSON object, or not JSON: each must be refused wherever an object is expected. */
export const NOT_AN_OBJECT: ReadonlyArray<readonly [string, string]> = [
  ['malformed JSON', '{bad'],
  ['truncated JSON', '{"command":"lock"'],
  ['single-quoted JSON', "{'command':'lock'}"],
  ['JSON with a trailing comma', '{"command":"lock",}'],
  ['two JSON values', '{"command":"lock"}{"command":"lock"}'],
  ['only whitespace', '   '],
  ['an array', '[]'],
  ['an array of an object', '[{"command":"lock"}]'],
  ['a string', '"lock"'],
  ['a number', '1'],
  ['true', 'true'],
  ['null', 'null'],
  ['__proto__ poisoning', '{"__proto__":{"polluted":true}}'],
  ['constructor.prototype poisoning', '{"constructor":{"prototype":{"polluted":true}}}'],
];

/** Content types that are not JSON, each with a body that would be valid if it were read as JSON. */
export const NOT_JSON_TYPES = [
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/xml',
  'application/octet-stream',
  'application/jsonx',
] as const;
