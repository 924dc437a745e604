/**
 * What every answer must look like, whatever was asked (docs/errors.md): never a 5xx (v1's documented
 * lock outcomes aside), always an X-Request-Id, and an error body that is a row of its surface's table
 * with exactly its fields; a JSON success is what the OpenAPI document says for that status.
 */
import { DASHBOARD_ERRORS } from '../../src/http/dashboard/errors.ts';
import { EXT_ERRORS } from '../../src/http/ext/errors.ts';
import { SANDBOX_ERRORS } from '../../src/http/sandbox/errors.ts';
import { V1_ERRORS } from '../../src/http/v1/errors.ts';
import { V3_ERRORS } from '../../src/http/v3/errors.ts';
import type { Schema } from '../http/openapi-helpers.ts';
import { answerSchemaOf, type Endpoint, type Surface, surfaceOf } from './routes.ts';

export interface Answer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | undefined>>;
  readonly body: Buffer;
}

export interface Asked {
  readonly method: string;
  /** The request target as sent (path and query). */
  readonly target: string;
  /** The X-Request-Id values the request carried. */
  readonly requestIds: readonly string[];
  /** Sent as bytes on a socket (maybe not valid HTTP) rather than through node:http. */
  readonly raw: boolean;
  /** The size of the request line and headers. */
  readonly headBytes: number;
}

function decodes(path: string): boolean {
  try {
    decodeURIComponent(path);
    return true;
  } catch {
    return false;
  }
}

const JSON_UTF8 = 'application/json; charset=utf-8';
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const SANE_ID = /^[A-Za-z0-9._:@/+=-]{1,128}$/;
/** Answers the server gives before routing (Node's parser, the router): the v3 shape outside the prefixes. */
const EDGE_STATUSES = new Set([400, 408, 431]);
/** v1's documented answers for a command that ran and failed, or met a busy lock: 500 by the v1 spec. */
const V1_LOCK_OUTCOMES = new Set([50001, 50002, 50003, 50004, 50005]);

/** Where a request target lands: the first endpoint whose pattern and method match. */
export function matchEndpoint(endpoints: readonly Endpoint[], method: string, target: string) {
  const path = target.split('?')[0] ?? '';
  const m = method === 'HEAD' ? 'GET' : method;
  return endpoints.find((e) => {
    if (e.method !== m) return false;
    const source = e.path
      .split('/')
      .map((s) => (s.startsWith(':') ? '[^/]+' : s === '*' ? '.*' : s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
      .join('/');
    return new RegExp(`^${source}$`).test(path);
  });
}

function parseJson(body: Buffer): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(body.toString('utf8')) };
  } catch {
    return { ok: false };
  }
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const keysAre = (v: Record<string, unknown>, keys: readonly string[]) =>
  Object.keys(v).sort().join(',') === [...keys].sort().join(',');
const hasMessage = (v: Record<string, unknown>) => typeof v.message === 'string' && v.message.length > 0;

/** A small JSON Schema check for the subset the document uses; returns the first problem found. */
export function schemaProblem(schema: Schema, value: unknown, at = '$'): string | undefined {
  const union = schema.anyOf ?? schema.oneOf;
  if (union) {
    return union.some((s) => schemaProblem(s, value, at) === undefined)
      ? undefined
      : `${at}: matches no alternative`;
  }
  if (schema.enum && !schema.enum.some((e) => e === value)) return `${at}: not one of the enum`;
  if ('const' in schema && schema.const !== value) return `${at}: not the constant`;
  const types = Array.isArray(schema.type) ? (schema.type as string[]) : schema.type ? [schema.type] : [];
  if (types.length > 0 && !types.some((t) => typeIs(t, value)))
    return `${at}: not of type ${types.join('|')}`;
  if (typeof value === 'string') {
    if (schema.pattern && !new RegExp(schema.pattern).test(value)) return `${at}: does not match the pattern`;
    if (schema.minLength !== undefined && value.length < schema.minLength) return `${at}: too short`;
    if (schema.maxLength !== undefined && value.length > schema.maxLength) return `${at}: too long`;
  }
  if (typeof value === 'number') {
    if (schema.minimum !== undefined && value < schema.minimum) return `${at}: under the minimum`;
    if (schema.maximum !== undefined && value > schema.maximum) return `${at}: over the maximum`;
  }
  if (Array.isArray(value) && schema.items) {
    for (const [i, item] of value.entries()) {
      const problem = schemaProblem(schema.items, item, `${at}[${i}]`);
      if (problem) return problem;
    }
  }
  if (isRecord(value)) {
    for (const name of schema.required ?? []) if (!(name in value)) return `${at}.${name}: missing`;
    for (const [name, v] of Object.entries(value)) {
      const property = schema.properties?.[name];
      if (property) {
        const problem = schemaProblem(property, v, `${at}.${name}`);
        if (problem) return problem;
      } else if (schema.additionalProperties === false) return `${at}.${name}: not in the schema`;
    }
  }
  return undefined;
}

function typeIs(type: string, value: unknown): boolean {
  if (type === 'null') return value === null;
  if (type === 'array') return Array.isArray(value);
  if (type === 'object') return isRecord(value);
  if (type === 'integer') return Number.isInteger(value);
  return typeof value === type;
}

/** Is `body` an error answer of `surface` with this status, in exactly its documented shape? */
function errorProblem(surface: Surface, status: number, body: unknown): string | undefined {
  if (!isRecord(body)) return 'the error body is not a JSON object';
  const error = body.error;
  const v3Row = V3_ERRORS.some(
    (r) =>
      r.status === status &&
      (r.error === error ||
        (r.error === 'DEVICE_IS_BUSY <n>' && /^DEVICE_IS_BUSY [1-9]\d*$/.test(`${error}`))),
  );
  const v3Shaped = keysAre(body, ['error']) && v3Row;
  switch (surface) {
    case 'v1':
      return keysAre(body, ['code', 'message']) &&
        V1_ERRORS.some((r) => r.status === status && r.code === body.code && r.message === body.message)
        ? undefined
        : 'not a row of the v1 error table';
    case 'v3':
    case 'root':
      return v3Shaped ? undefined : 'not a row of the v3 error table';
    case 'ext': {
      if (!EXT_ERRORS.some((r) => r.status === status && r.error === error)) return 'not a row of EXT_ERRORS';
      const bare = status === 401 || status === 500;
      return (bare ? keysAre(body, ['error']) : keysAre(body, ['error', 'message']) && hasMessage(body))
        ? undefined
        : 'not the ext shape (error, and a message but on 401 and 500)';
    }
    case 'sandbox':
      return SANDBOX_ERRORS.some((r) => r.status === status && r.error === error) &&
        keysAre(body, ['error', 'message']) &&
        hasMessage(body)
        ? undefined
        : 'not a row of SANDBOX_ERRORS with a message';
    case 'oauth':
      // oidc-provider's answers (RFC 6749 section 5.2, RFC 7009): an error code and maybe its
      // description; or, refused before reaching it (a method it does not take), the v3 shape.
      if (v3Shaped) return undefined;
      return typeof error === 'string' &&
        /^[a-z_]+$/.test(error) &&
        Object.keys(body).every((k) => k === 'error' || k === 'error_description') &&
        (body.error_description === undefined || typeof body.error_description === 'string')
        ? undefined
        : 'not an OAuth error (error, and maybe error_description)';
    case 'dashboard-api':
    case 'dashboard': {
      // Refused before routing (Node's parser, an undecodable path): the v3 shape outside the API prefixes.
      if (EDGE_STATUSES.has(status) && v3Shaped) return undefined;
      return DASHBOARD_ERRORS.some((r) => r.status === status && r.error === error) &&
        keysAre(body, ['error', 'message']) &&
        hasMessage(body)
        ? undefined
        : 'not a row of DASHBOARD_ERRORS with a message';
    }
  }
}

/** Every way this answer breaks the contract; empty when it keeps it. */
export function answerProblems(endpoints: readonly Endpoint[], asked: Asked, answer: Answer): string[] {
  const problems: string[] = [];
  const { status, headers } = answer;
  const surface = surfaceOf(asked.target);
  const json = parseJson(answer.body);
  const v1Outcome =
    surface === 'v1' &&
    status === 500 &&
    json.ok &&
    isRecord(json.value) &&
    V1_LOCK_OUTCOMES.has(Number(json.value.code));
  if (status >= 500 && !v1Outcome) problems.push(`a ${status}`);
  if (status < 100 || status > 599) problems.push(`an impossible status ${status}`);

  const id = headers['x-request-id'];
  // HTTP trims spaces and tabs around a value, nothing else (JavaScript's trim() also takes U+00A0).
  const sent =
    asked.requestIds.length === 1 ? asked.requestIds[0]?.replace(/^[ \t]+|[ \t]+$/g, '') : undefined;
  if (id === undefined) problems.push('no X-Request-Id');
  // A request Node refuses unread is searched for an id in its first 32 KiB only: past 16 KiB of head
  // (where it may be refused), a fresh id is right too.
  else if (
    sent !== undefined && SANE_ID.test(sent)
      ? id !== sent && !(asked.headBytes > 16 * 1024 && UUID_V4.test(id))
      : !UUID_V4.test(id)
  )
    problems.push(
      `X-Request-Id ${JSON.stringify(id)} for a request that sent ${JSON.stringify(asked.requestIds)}`,
    );

  // docs/rate-limits.md: every answer of a limited v3 or /ext endpoint carries the two RateLimit
  // fields; a request refused before routing (an undecodable path, a head over 16 KiB, bytes that are
  // not HTTP) reached no endpoint.
  const limited =
    (surface === 'v3' || surface === 'ext') &&
    !asked.raw &&
    ![404, 408, 431].includes(status) &&
    decodes(asked.target.split('?')[0] ?? '') &&
    matchEndpoint(endpoints, asked.method, asked.target);
  if (limited && (headers.ratelimit === undefined || headers['ratelimit-policy'] === undefined))
    problems.push(`a ${status} of a limited ${surface} endpoint without RateLimit and RateLimit-Policy`);
  if (status >= 300 && status < 400 && status !== 304 && !headers.location)
    problems.push('a redirect without Location');
  if (asked.method === 'HEAD') return problems;

  const type = headers['content-type'];
  if (status >= 400) {
    // The dashboard's pages, and the authorization endpoint's: an error it cannot send to the app
    // (an unknown app, a redirect URI not registered) is a page for the person in the browser.
    const page =
      (surface === 'dashboard' || (surface === 'oauth' && asked.target.startsWith('/oauth/auth'))) &&
      type === 'text/html; charset=utf-8';
    if (page) return problems;
    if (type !== JSON_UTF8) problems.push(`an error answered as ${type ?? 'no content type'}`);
    if (!json.ok) problems.push('an error body that is not JSON');
    else {
      // A known limit (docs/fuzzing.md): a head Node refuses after more than one read of the socket
      // comes without its request line, so the surface is unknown and the answer takes the v3 shape.
      const split = EDGE_STATUSES.has(status) && asked.headBytes > 8 * 1024;
      const problem =
        errorProblem(split ? 'v3' : surface, status, json.value) && errorProblem(surface, status, json.value);
      if (problem) problems.push(problem);
    }
    // A 429 says when to come back, and so does the block (a 403 whose RateLimit fields say
    // "blocked"); a 403 for a key's or a token's limits does not, which tells it from the block
    // (docs/errors.md).
    const blocked = (headers['ratelimit-policy'] ?? '').startsWith('"blocked"');
    if ((status === 429 || blocked) && !/^\d+$/.test(headers['retry-after'] ?? ''))
      problems.push(`a ${status} without Retry-After`);
    return problems;
  }
  if (status === 204 && answer.body.length > 0) problems.push('a 204 with a body');
  const endpoint = matchEndpoint(endpoints, asked.method, asked.target);
  const schema = endpoint && answerSchemaOf(endpoint, status);
  if (schema && status < 300) {
    if (type !== JSON_UTF8) problems.push(`a documented JSON answer sent as ${type}`);
    else if (!json.ok) problems.push('a documented JSON answer that is not JSON');
    else {
      const problem = schemaProblem(schema, json.value);
      if (problem) problems.push(`not the documented ${status} answer: ${problem}`);
    }
  }
  return problems;
}
