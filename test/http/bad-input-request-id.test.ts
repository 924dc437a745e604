/**
 * X-Request-Id (docs/decisions.md, "Everywhere"): on every response, success or error of any kind; the
 * caller's own id is echoed when it is sane, and replaced by a fresh one when it is not.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { httpMessage, rawRequest } from '../support/raw-http.ts';
import { LOCK_A, OWNER_KEY, startServer, type TestServer } from '../support/server.ts';
import { FLAGS, paddedBody, postRaw, UUID_V4 } from './bad-input-helpers.ts';

const SANE = [
  'abc-123',
  'A',
  'req.2024-01-01T10:00:00Z',
  'user@host/trace+span=1_x',
  'z'.repeat(128),
  '7f1c0a52-55a1-4f3a-9a0e-0b8b6b6f0a11',
];

describe('X-Request-Id', () => {
  let t: TestServer;
  before(async () => {
    t = await startServer({ flags: FLAGS });
  });
  after(() => t.close());

  /** One request of each kind of answer; `headers` go with each. */
  function everyKindOfAnswer(
    headers: Record<string, string>,
  ): Array<readonly [string, number, () => Promise<Response>]> {
    const json = { ...headers, 'content-type': 'application/json' };
    return [
      ['200 list', 200, () => t.request('/public/locks', { key: OWNER_KEY, headers })],
      ['200 lock', 200, () => t.request(`/public/lock/${LOCK_A}`, { key: OWNER_KEY, headers })],
      ['200 clock', 200, () => t.request('/_sim/clock', { headers })],
      ['204 reset', 204, () => postRaw(t, '/_sim/reset', undefined, headers)],
      [
        '400 v3',
        400,
        () => postRaw(t, `/public/lock/${LOCK_A}`, '{bad', { ...json, authorization: OWNER_KEY }),
      ],
      ['400 sandbox', 400, () => postRaw(t, '/_sim/clock', '[]', json)],
      ['400 bad url', 400, () => t.request('/public/lock/%E0%A4%A', { key: OWNER_KEY, headers })],
      ['401', 401, () => t.request('/public/locks', { headers })],
      ['404 v3', 404, () => t.request('/public/nope', { headers })],
      ['404 sandbox', 404, () => t.request('/_sim/nope', { headers })],
      ['404 root', 404, () => t.request('/nope', { method: 'DELETE', headers })],
      ['413', 413, () => postRaw(t, '/public/partners/automation', paddedBody(20_000), json)],
      ['openapi', 200, () => t.request('/openapi.json', { headers })],
      ['docs', 200, () => t.request('/docs/', { headers })],
    ];
  }

  it('is on every response, a fresh UUID when the caller sent none, a new one each time', async () => {
    const seen = new Set<string>();
    for (const [what, status, send] of everyKindOfAnswer({})) {
      const res = await send();
      assert.equal(res.status, status, what);
      await res.arrayBuffer();
      const id = res.headers.get('x-request-id');
      assert.match(id ?? '', UUID_V4, what);
      assert.ok(!seen.has(id ?? ''), `${what}: the id is new`);
      seen.add(id ?? '');
    }
  });

  it('echoes a sane id the caller sent, on every kind of answer', async () => {
    for (const id of SANE) {
      for (const [what, status, send] of everyKindOfAnswer({ 'x-request-id': id })) {
        const res = await send();
        assert.equal(res.status, status, what);
        await res.arrayBuffer();
        assert.equal(res.headers.get('x-request-id'), id, `${what} with ${id.slice(0, 20)}`);
      }
    }
  });

  it('replaces an insane id (too long, spaces, quotes, markup) by a fresh one', async () => {
    for (const id of [
      'z'.repeat(129),
      'a'.repeat(5000),
      'a b',
      'a\tb',
      '"quoted"',
      '<script>',
      'a;b',
      'a,b',
      'ü',
    ]) {
      for (const [what, , send] of everyKindOfAnswer({ 'x-request-id': id })) {
        const res = await send();
        await res.arrayBuffer();
        const got = res.headers.get('x-request-id') ?? '';
        assert.match(got, UUID_V4, `${what} with ${JSON.stringify(id.slice(0, 20))}`);
      }
    }
  });

  it('replaces an id with control characters, non-ASCII bytes, or sent twice (over a raw socket)', async () => {
    const ids = ['a\u0001b', 'a\u007fb', 'caf\u00e9', 'a\u0000b'];
    for (const id of ids) {
      const res = await rawRequest(
        t.url,
        Buffer.from(httpMessage('GET /public/locks HTTP/1.1', { 'x-request-id': id }), 'latin1'),
      );
      // Node refuses some of these bytes as invalid HTTP: that answer has a fresh id too.
      assert.ok(res.status === 401 || res.status === 400, `${JSON.stringify(id)}: ${res.status}`);
      assert.match(res.headers['x-request-id'] ?? '', UUID_V4, JSON.stringify(id));
    }
    const twice = await rawRequest(
      t.url,
      'GET /public/locks HTTP/1.1\r\nHost: x\r\nConnection: close\r\nX-Request-Id: one\r\nX-Request-Id: two\r\n\r\n',
    );
    assert.equal(twice.status, 401);
    assert.match(twice.headers['x-request-id'] ?? '', UUID_V4, 'two ids');
  });

  it('is on the answers to requests that never reach a route, echoing a sane id when it can be read', async () => {
    const long = `/public/lock/${'a'.repeat(20_000)}`;
    const overflow = await rawRequest(
      t.url,
      httpMessage(`GET ${long} HTTP/1.1`, { 'x-request-id': 'caller-id-1' }),
    );
    assert.equal(overflow.status, 431);
    assert.equal(overflow.headers['x-request-id'], 'caller-id-1');
    const fresh = await rawRequest(
      t.url,
      httpMessage(`GET ${long} HTTP/1.1`, { 'x-request-id': 'not sane' }),
    );
    assert.match(fresh.headers['x-request-id'] ?? '', UUID_V4);
    // Found by the fuzzer (test/fuzz): sent twice, the first was echoed here, unlike on a routed request.
    const twice = await rawRequest(
      t.url,
      `GET ${long} HTTP/1.1\r\nHost: x\r\nConnection: close\r\nX-Request-Id: one\r\nX-Request-Id: two\r\n\r\n`,
    );
    assert.equal(twice.status, 431);
    assert.match(twice.headers['x-request-id'] ?? '', UUID_V4, 'two ids');
    const garbage = await rawRequest(t.url, 'GARBAGE\r\n\r\n');
    assert.equal(garbage.status, 400);
    assert.match(garbage.headers['x-request-id'] ?? '', UUID_V4);
  });
});
