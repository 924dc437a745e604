/**
 * Requests to /v1 that never reach a route (docs/decisions.md, "Everywhere"): they still get the v1 body
 * and an X-Request-Id, never a 500 or the framework's own body.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { httpMessage, rawRequest } from '../../support/raw-http.ts';
import { LOCK_A, OWNER, startServer, type TestServer } from '../../support/server.ts';
import { expectAnswer, FLAGS, JSON_UTF8, login, V1, v1 } from './helpers.ts';

describe('/v1 at the edge', () => {
  let t: TestServer;
  let owner: string;
  before(async () => {
    t = await startServer({ flags: FLAGS });
    owner = await login(t, OWNER);
  });
  after(() => t.close());

  it('answers 400 10000 for a path that cannot be percent-decoded', async () => {
    await expectAnswer(await v1(t, '/locks/%E0%A4%A', { token: owner }), V1.REQUIRED);
    await expectAnswer(
      await v1(t, '/locks/%zz/control', { token: owner, json: { type: 'unlock' } }),
      V1.REQUIRED,
    );
  });

  it('answers 431 10000 for a request line over 16 KiB, and 400 10000 for bytes that are not HTTP', async () => {
    const long = await rawRequest(t.url, httpMessage(`GET /v1/locks/${'a'.repeat(17 * 1024)} HTTP/1.1`));
    assert.deepEqual(
      { status: long.status, body: JSON.parse(long.text) },
      { status: 431, body: V1.REQUIRED.body },
    );
    assert.equal(long.headers['content-type'], JSON_UTF8);
    assert.ok(long.headers['x-request-id']);
    const garbage = await rawRequest(t.url, 'GET /v1/locks HTTP/1.1\r\nbad header line\r\n\r\n');
    assert.deepEqual(
      { status: garbage.status, body: JSON.parse(garbage.text) },
      { status: 400, body: V1.REQUIRED.body },
    );
  });

  it('echoes a sane X-Request-Id on success and on error', async () => {
    for (const [path, token] of [
      ['/locks', owner],
      ['/locks', 'nope'],
      [`/locks/${LOCK_A}`, undefined],
      ['/nothing', owner],
    ] as const) {
      const res = await v1(t, path, { token, headers: { 'x-request-id': 'client-id-123' } });
      assert.equal(res.headers.get('x-request-id'), 'client-id-123', path);
      await res.arrayBuffer();
    }
  });
});
