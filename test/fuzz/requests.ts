/**
 * fast-check arbitraries for whole HTTP requests: a real endpoint from the route table, mutated
 * (method, path parameters, path, query, headers, body), or a path made up from nothing. Credentials
 * and ids the server hands out are placeholders (`{{V1_TOKEN}}`, `{{TASK}}`...) filled in when the
 * request is sent, so the same generated request stays valid across sandbox resets.
 */
import fc from 'fast-check';
import { OTHER, OTHER_KEY, OWNER, OWNER_KEY } from '../support/server.ts';
import { bodyOf, KNOWN_LOCKS, latin1, METHODS, text, weighted } from './bodies.ts';
import type { Endpoint } from './routes.ts';

export interface FuzzRequest {
  /** The endpoint it was made from (`random` for a made-up path): what the report counts by. */
  readonly endpoint: string;
  /** node:http, or bytes written to a socket as they are (what node:http refuses to send). */
  readonly via: 'http' | 'raw';
  readonly method: string;
  readonly target: string;
  readonly headers: ReadonlyArray<readonly [string, string]>;
  readonly body: Buffer | undefined;
  /** raw only: a Content-Length shorter than the body, or the body sent chunked. */
  readonly framing: 'length' | 'short' | 'chunked';
  /** The client address (any 127.x works on Linux loopback); 127.0.0.1 takes the heaviest traffic. */
  readonly from: string;
}

/** A path segment of the wrong shape: traversal, bad or odd percent-encoding, unicode, very long. */
const weirdSegment: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '..',
    '.',
    '%2e%2e',
    '%2F',
    '%',
    '%zz',
    '%00',
    '%C0%AF',
    '%FF',
    '%E2%82',
    ';x=1',
    'null',
    '__proto__',
    'constructor',
    '-1',
    '%20',
    '*',
    '',
  ),
  text(20).map(encodeURIComponent),
  fc.integer({ min: 200, max: 17_000 }).map((n) => 'a'.repeat(n)),
  fc.uuid().map((u) => u.toUpperCase()),
  fc.uuid(),
);

function paramValue(endpoint: Endpoint, name: string): fc.Arbitrary<string> {
  let valid: fc.Arbitrary<string> = fc.constantFrom(...KNOWN_LOCKS);
  if (name === 'email')
    valid = fc.constantFrom(OWNER, OTHER, encodeURIComponent(OWNER), 'nobody@example.com');
  else if (name === 'id' && endpoint.path.startsWith('/ext/webhook-endpoints/'))
    valid = fc.constant('{{ENDPOINT}}');
  else if (name === 'delivery_id') valid = fc.constant('{{DELIVERY}}');
  // A key id of the right shape that names no key: deleting the fuzzer's own keys would end the run.
  else if (name === 'id' && endpoint.path.startsWith('/ext/keys/')) valid = fc.uuid();
  else if (name === 'grant_id') valid = fc.constant('{{GRANT}}');
  else if (name === 'id' && endpoint.surface === 'ext') valid = fc.constant('{{DELIVERY}}');
  else if (name === 'id' && endpoint.path.includes('/tasks/')) valid = fc.constant('{{TASK}}');
  // A one-time handle's shape (22 base64url characters) that no browser was given.
  else if (name === 'handle') valid = fc.stringMatching(/^[A-Za-z0-9_-]{22}$/);
  else if (name === '*')
    valid = fc.array(text(10).map(encodeURIComponent), { maxLength: 3 }).map((s) => s.join('/'));
  return weighted([3, valid], [2, weirdSegment]);
}

/** The endpoint's pattern with each parameter filled in, then perhaps bent out of shape. */
function pathOf(endpoint: Endpoint): fc.Arbitrary<string> {
  const parts = endpoint.path
    .split('/')
    .map((s) =>
      s.startsWith(':')
        ? paramValue(endpoint, s.slice(1))
        : s === '*'
          ? paramValue(endpoint, '*')
          : fc.constant(s),
    );
  const filled = fc.tuple(...parts).map((p) => p.join('/'));
  const bend = fc.constantFrom(
    (p: string) => `${p}/`,
    (p: string) => `/${p}`,
    (p: string) => p.replace(/\/([^/]*)$/, '//$1'),
    (p: string) => p.toUpperCase(),
    (p: string) => `${p}/extra`,
    (p: string) => `${p}/..`,
    (p: string) => p.replace(/^\/[^/]+/, (m) => `${m}/..${m}`),
    (p: string) => `${p};x=1`,
    (p: string) => `${p}%2F`,
    (p: string) => `${p}#frag`,
  );
  return weighted([9, filled], [1, fc.tuple(filled, bend).map(([p, f]) => f(p))]);
}

function queryValue(name: string): fc.Arbitrary<string> {
  const valid: Record<string, fc.Arbitrary<string>> = {
    task_id: fc.constant('{{TASK}}'),
    limit: fc.constantFrom('1', '50', '500', '0', '501', '-1', '1e2', '0x10', '007', ''),
    to: fc.constantFrom(OWNER, OTHER),
    next: fc.constantFrom('/dashboard/locks', '//evil.example', 'https://evil.example/', '/dashboard/../x'),
    ok: fc.constantFrom('verified', 'deleted', 'resent', 'nope'),
    note: fc.oneof(fc.stringMatching(/^[A-Za-z0-9_-]{22}$/), fc.constantFrom('', 'x', '../x')),
    email: fc.constantFrom(OWNER, ''),
    // The activity pages' (and /ext/events'): an event id, a type's start, or near misses.
    cursor: fc.constantFrom('evt_0000000000000000000000000000', 'evt_', 'evt_zz', ''),
    type: fc.constantFrom('lock.', 'command.failed', 'LOCK', '', 'a'.repeat(65)),
  };
  return weighted([3, valid[name] ?? text()], [1, text(30)], [1, weirdSegment]);
}

/** A value sent as it is when a request line can carry it (placeholders, broken escapes), else encoded. */
const asIs = (v: string): string =>
  (/^[\x21-\x7e]*$/.test(v) && v.includes('%')) || v.startsWith('{{') ? v : encodeURIComponent(v);

/** Documented query parameters (and the dashboard's), extra ones, repeated ones, broken ones. */
function queryOf(endpoint: Endpoint): fc.Arbitrary<string> {
  const documented = (endpoint.operation?.parameters ?? [])
    .filter((p) => p.in === 'query')
    .map((p) => p.name);
  const names =
    endpoint.surface === 'dashboard'
      ? ['next', 'ok', 'email', 'note', 'cursor', 'type', ...documented]
      : documented;
  const pair = (name: fc.Arbitrary<string>) =>
    fc.tuple(name, queryValue('')).map(([n, v]) => `${n}=${asIs(v)}`);
  const known = names.map((n) => queryValue(n).map((v) => `${n}=${asIs(v)}`));
  const piece = weighted(
    ...known.map((k) => [4, k] as const),
    [1, pair(fc.constantFrom('__proto__[x]', 'constructor', 'a[b]', 'x', '', ...names))],
    [1, fc.constantFrom('%zz=1', '&&', '=', 'a', '%00=%00')],
  );
  const long = fc.integer({ min: 1000, max: 17_000 }).map((n) => `?q=${'b'.repeat(n)}`);
  return weighted(
    [2, fc.constant('')],
    [5, fc.array(piece, { minLength: 1, maxLength: 4 }).map((p) => `?${p.join('&')}`)],
    [1, long],
  );
}

const huge = fc.integer({ min: 2000, max: 20_000 }).map((n) => 'k'.repeat(n));
const authorization = weighted(
  // An OAuth access token works wherever a key does (issue 24), bare or as a Bearer token.
  [
    20,
    fc.constantFrom(
      OWNER_KEY,
      `Bearer ${OWNER_KEY}`,
      OTHER_KEY,
      '{{ACCESS_TOKEN}}',
      'Bearer {{ACCESS_TOKEN}}',
    ),
  ],
  [8, fc.constant(undefined)],
  [
    2,
    fc.oneof(
      fc.constantFrom(
        '',
        'Bearer',
        'Bearer ',
        `bearer ${OWNER_KEY}`,
        `Basic ${OWNER_KEY}`,
        ` ${OWNER_KEY} `,
        'not-a-key',
      ),
      latin1(),
    ),
  ],
  [1, huge],
);
const v1Token = weighted(
  [20, fc.constantFrom('{{V1_TOKEN}}', '{{OTHER_V1_TOKEN}}')],
  [8, fc.constant(undefined)],
  [2, fc.oneof(fc.constantFrom('', 'null', 'Bearer {{V1_TOKEN}}'), latin1())],
  [1, huge],
);
const cookie = weighted(
  [4, fc.constant('lc_session={{SESSION}}')],
  [3, fc.constant(undefined)],
  [
    2,
    fc.oneof(
      fc.constantFrom(
        'lc_session=',
        'lc_session=x; lc_anon=y',
        'lc_session={{SESSION}}; lc_session=x',
        '=;;=',
        'lc_anon=%zz',
      ),
      latin1(),
    ),
  ],
);
const csrf = weighted([4, fc.constant('{{CSRF}}')], [3, fc.constant(undefined)], [1, latin1()]);
const requestId = weighted(
  [4, fc.constant<string[]>([])],
  [2, fc.stringMatching(/^[A-Za-z0-9._:@/+=-]{1,128}$/).map((id) => [id])],
  [1, fc.oneof(latin1(60), fc.constant('x'.repeat(129))).map((id) => [id])],
  [1, fc.constant(['a', 'b'])],
);
/**
 * Idempotency-Key (issue 21): keys from a small pool, so one key meets several bodies and locks
 * (repeats and reuses), well-formed ones of every length and form, and malformed ones of every kind
 * (empty, over 255, spaces, control and non-ASCII bytes, broken quoting, the header twice).
 */
const idempotencyKey = weighted(
  [4, fc.constant<string[]>([])],
  [4, fc.constantFrom('fuzz-key-1', 'fuzz-key-2', '"fuzz-key-1"', 'fuzz-key-3').map((k) => [k])],
  [2, fc.oneof(fc.uuid(), fc.stringMatching(/^[!-~]{1,255}$/)).map((k) => [k])],
  [
    2,
    fc
      .oneof(
        fc.constantFrom('', ' ', '""', '"', '"a"b"', '"\\x"', 'a b', 'k'.repeat(256), '\t'),
        latin1(40),
        fc.integer({ min: 256, max: 9_000 }).map((n) => 'k'.repeat(n)),
      )
      .map((k) => [k]),
  ],
  [1, fc.constant(['fuzz-key-1', 'fuzz-key-2'])],
);

/** The endpoint documents the header (its OpenAPI parameters): the fuzzer learns it from there. */
export const takesIdempotencyKey = (endpoint: Endpoint): boolean =>
  endpoint.operation?.parameters?.some((p) => p.in === 'header' && p.name === 'idempotency-key') ?? false;

const otherHeaders = fc.array(
  fc.oneof(
    fc.tuple(
      fc.constantFrom('origin'),
      fc.constantFrom('http://evil.example', 'null', 'garbage', 'http://127.0.0.1'),
    ),
    fc.tuple(
      fc.constantFrom('x-forwarded-for', 'accept', 'accept-encoding', 'range', 'if-none-match', 'user-agent'),
      latin1(60),
    ),
    fc.tuple(fc.stringMatching(/^[a-z][a-z0-9-]{0,20}$/), latin1(60)),
    fc.tuple(fc.constant('expect'), fc.constant('100-continue')),
  ),
  { maxLength: 3 },
);

const optional = (name: string, value: string | undefined): Array<readonly [string, string]> =>
  value === undefined ? [] : [[name, value]];

/** A request from an endpoint of the route table, each part kept or mutated. */
function fromEndpoint(endpoint: Endpoint): fc.Arbitrary<FuzzRequest> {
  return fc
    .record({
      method: weighted([9, fc.constant(endpoint.method)], [1, fc.constantFrom(...METHODS)]),
      path: pathOf(endpoint),
      query: queryOf(endpoint),
      body: bodyOf(endpoint),
      authorization,
      v1Token,
      cookie,
      csrf,
      requestId,
      // Mostly where it is read; now and then elsewhere, where it must change nothing.
      idempotencyKey: takesIdempotencyKey(endpoint)
        ? idempotencyKey
        : weighted([12, fc.constant<string[]>([])], [1, idempotencyKey]),
      otherHeaders,
      via: weighted([12, fc.constant<'http' | 'raw'>('http')], [1, fc.constant<'http' | 'raw'>('raw')]),
      framing: weighted(
        [6, fc.constant<FuzzRequest['framing']>('length')],
        [1, fc.constantFrom<FuzzRequest['framing']>('short', 'chunked')],
      ),
      from: weighted(
        [3, fc.constant('127.0.0.1')],
        [7, fc.integer({ min: 1, max: 32 }).map((i) => `127.0.1.${i}`)],
      ),
    })
    .map((r): FuzzRequest => {
      const [contentType, body, encoding] = r.body;
      const headers: Array<readonly [string, string]> = [
        ...optional('authorization', r.authorization),
        ...optional('x-authorization', r.v1Token),
        ...optional('cookie', r.cookie),
        ...optional('x-csrf-token', r.csrf),
        ...optional('content-type', contentType),
        ...optional('content-encoding', encoding),
        ...r.requestId.map((id) => ['x-request-id', id] as const),
        ...r.idempotencyKey.map((key) => ['idempotency-key', key] as const),
        ...r.otherHeaders.filter(([name]) => r.via === 'http' || name !== 'expect'),
      ];
      return {
        endpoint: endpoint.name,
        via: r.via,
        method: r.method,
        target: r.path + r.query,
        headers,
        body,
        framing: r.via === 'raw' ? r.framing : 'length',
        from: r.via === 'raw' ? '127.0.0.1' : r.from,
      };
    });
}

/** A made-up path under one of the prefixes, or under none. */
const randomRequest: fc.Arbitrary<FuzzRequest> = fc
  .record({
    prefix: fc.constantFrom(
      '/v1',
      '/public',
      '/ext',
      '/_sim',
      '/dashboard',
      '/dashboard/api',
      '/docs',
      '',
      '//',
      '/V1',
      '/public/..',
    ),
    segments: fc.array(weighted([3, text(12).map(encodeURIComponent)], [1, weirdSegment]), { maxLength: 4 }),
    method: fc.constantFrom(...METHODS),
    body: bodyOf({ name: 'random', method: 'POST', path: '/', surface: 'root', operation: undefined }),
    authorization,
  })
  .map(({ prefix, segments, method, body: [contentType, body], authorization: auth }) => ({
    endpoint: 'random',
    via: 'http',
    method,
    target: `${prefix}/${segments.join('/')}`,
    headers: [...optional('authorization', auth), ...optional('content-type', contentType)],
    body,
    framing: 'length',
    from: '127.0.0.1',
  }));

/** What the fuzzer sends: mostly real endpoints, mutated; some made-up paths. */
export function requestArbitrary(
  endpoints: readonly Endpoint[],
  only?: { readonly from: string },
): fc.Arbitrary<FuzzRequest> {
  const real = fc.oneof(...endpoints.map(fromEndpoint));
  // `only`: these endpoints alone, all from one address (the rate-limit run).
  if (only) return real.map((r) => ({ ...r, via: 'http', framing: 'length', from: only.from }));
  return weighted([6, real], [1, randomRequest]);
}
