/**
 * Requests that do not reach a route, or never become one: unknown routes and wrong methods (404
 * whatever the credentials and the body), paths and queries too long, paths that cannot be decoded,
 * bytes that are not HTTP. Each answer is its surface's documented body, with an X-Request-Id.
 */
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { httpMessage, type RawResponse, rawRequest } from '../support/raw-http.ts';
import { LOCK_A, OWNER, OWNER_KEY, startServer, type TestServer } from '../support/server.ts';
import { expectSimError, expectV3Error, FLAGS, JSON_UTF8, paddedBody, postRaw } from './bad-input-helpers.ts';

const CREDENTIALS: ReadonlyArray<readonly [string, Record<string, string>]> = [
  ['no key', {}],
  ['a valid key', { authorization: OWNER_KEY }],
  ['a Bearer key', { authorization: `Bearer ${OWNER_KEY}` }],
  ['a wrong key', { authorization: 'not-a-key' }],
];

/** Bodies a missing route must not read: it answers 404 before any of them could be refused. */
const BODIES: ReadonlyArray<readonly [string, string | undefined, Record<string, string>]> = [
  ['no body', undefined, {}],
  ['malformed JSON', '{bad', { 'content-type': 'application/json' }],
  ['an array', '[]', { 'content-type': 'application/json' }],
  ['text/plain', 'x', { 'content-type': 'text/plain' }],
  ['form', 'a=1', { 'content-type': 'application/x-www-form-urlencoded' }],
  ['over 16 KiB', paddedBody(20_000), { 'content-type': 'application/json' }],
];

const V3_MISSING: ReadonlyArray<readonly [string, string]> = [
  ['GET', '/public/nope'],
  ['GET', '/public'],
  ['GET', '/public/'],
  ['GET', '/public/lock'],
  ['GET', `/public/lock/${LOCK_A}/extra`],
  ['GET', '/public/locks/'],
  ['GET', '/public/LOCKS'],
  ['GET', '/public/v3/locks'],
  ['GET', '/v2/locks'],
  // GET / is a route: it sends people to the dashboard.
  ['POST', '/'],
  ['GET', '/nope'],
  ['GET', `/public/${'a'.repeat(10_000)}`],
  ['DELETE', '/public/locks'],
  ['POST', '/public/locks'],
  ['PUT', `/public/lock/${LOCK_A}`],
  ['PATCH', `/public/lock/${LOCK_A}`],
  ['DELETE', `/public/lock/${LOCK_A}`],
  ['POST', '/public/action-result'],
  ['DELETE', '/public/action-result'],
  ['GET', '/public/partners/automation'],
  ['PUT', '/public/partners/automation'],
  ['OPTIONS', '/public/locks'],
];

const SIM_MISSING: ReadonlyArray<readonly [string, string]> = [
  ['GET', '/_sim/nope'],
  ['GET', '/_sim'],
  ['GET', `/_sim/locks/${LOCK_A}`],
  ['DELETE', `/_sim/locks/${LOCK_A}`],
  ['PUT', '/_sim/clock'],
  ['DELETE', '/_sim/clock'],
  ['GET', '/_sim/reset'],
  ['GET', `/_sim/accounts/${OWNER}`],
  ['POST', '/_sim/mailbox'],
];

async function sendEach(
  t: TestServer,
  routes: ReadonlyArray<readonly [string, string]>,
  check: (res: Response, what: string) => Promise<void>,
): Promise<void> {
  for (const [method, path] of routes) {
    for (const [who, auth] of CREDENTIALS) {
      for (const [what, body, headers] of BODIES) {
        // fetch sends no body with GET: those go without one.
        const sendBody = method === 'GET' ? undefined : body;
        const res = await t.request(path, { method, headers: { ...auth, ...headers }, body: sendBody });
        await check(res, `${method} ${path.slice(0, 60)} with ${who} and ${what}`);
      }
    }
  }
}

function rawJson(res: RawResponse): { status: number; body: unknown } {
  return { status: res.status, body: JSON.parse(res.text) };
}

describe('the root', () => {
  let t: TestServer;
  before(async () => {
    t = await startServer({ flags: FLAGS });
  });
  after(() => t.close());

  it('GET / sends people to the dashboard', async () => {
    const res = await t.request('/', { redirect: 'manual' });
    assert.equal(res.status, 302);
    assert.equal(res.headers.get('location'), '/dashboard');
  });
});

describe('requests that reach no route', () => {
  let t: TestServer;
  before(async () => {
    t = await startServer({ flags: FLAGS });
  });
  after(() => t.close());

  it('v3: an unknown route or a wrong method answers 404 NOT_FOUND whatever the credentials and body', async () => {
    await sendEach(t, V3_MISSING, (res, what) => expectV3Error(res, 404, 'NOT_FOUND', what));
  });

  it('sandbox: an unknown route or a wrong method answers 404 NOT_FOUND with a message', async () => {
    await sendEach(t, SIM_MISSING, (res, what) => expectSimError(res, 404, 'NOT_FOUND', what));
  });

  it('HEAD of a GET route answers like the GET, without a body', async () => {
    const res = await t.request('/public/locks', { method: 'HEAD', key: OWNER_KEY });
    assert.equal(res.status, 200);
    assert.equal(await res.text(), '');
    assert.ok(res.headers.get('x-request-id'));
  });

  it("a path that cannot be decoded answers 400 in its surface's shape", async () => {
    for (const path of ['/public/lock/%E0%A4%A', '/public/lock/%zz', '/nope/%E0%A4%A']) {
      await expectV3Error(await t.request(path, { key: OWNER_KEY }), 400, 'BAD_PARAMS', path);
    }
    await expectSimError(await postRaw(t, '/_sim/locks/%E0%A4%A', '{}'), 400, 'BAD_PARAMS', 'sandbox lock');
    await expectSimError(
      await postRaw(t, '/_sim/accounts/%FF', '{"deleted":true}'),
      400,
      'BAD_PARAMS',
      'sandbox account',
    );
  });

  it('a query that cannot be decoded is taken as it is, never a 500', async () => {
    // No task has such an id: the usual 400; no mail went to such an address: an empty list.
    const task = await t.request('/public/action-result?task_id=%E0%A4%A', { key: OWNER_KEY });
    await expectV3Error(task, 400, 'BAD_PARAMS', 'v3');
    const mails = await t.request('/_sim/mailbox?to=%E0%A4%A%ZZ');
    assert.deepEqual({ status: mails.status, body: await mails.json() }, { status: 200, body: [] });
  });

  it("a request line over 16 KiB answers 431 in its surface's shape, with an X-Request-Id", async () => {
    const long = 'a'.repeat(20_000);
    for (const [what, message, body] of [
      [
        'v3 path',
        httpMessage(`GET /public/lock/${long} HTTP/1.1`, { authorization: OWNER_KEY }),
        { error: 'BAD_PARAMS' },
      ],
      [
        'v3 query',
        httpMessage(`GET /public/action-result?task_id=${long} HTTP/1.1`),
        { error: 'BAD_PARAMS' },
      ],
      ['unknown route', httpMessage(`GET /${long} HTTP/1.1`), { error: 'BAD_PARAMS' }],
    ] as const) {
      const res = await rawRequest(t.url, message);
      assert.deepEqual(rawJson(res), { status: 431, body }, what);
      assert.equal(res.headers['content-type'], JSON_UTF8, what);
      assert.ok(res.headers['x-request-id'], what);
    }
    const sim = await rawRequest(t.url, httpMessage(`POST /_sim/locks/${long} HTTP/1.1`, {}, '{}'));
    const simBody = JSON.parse(sim.text) as Record<string, unknown>;
    assert.equal(sim.status, 431);
    assert.deepEqual(Object.keys(simBody).sort(), ['error', 'message']);
    assert.equal(simBody.error, 'BAD_PARAMS');
  });

  it('headers over 16 KiB answer 431 too, also through fetch', async () => {
    const raw = await rawRequest(
      t.url,
      httpMessage('GET /public/locks HTTP/1.1', { authorization: 'k'.repeat(20_000) }),
    );
    assert.deepEqual(rawJson(raw), { status: 431, body: { error: 'BAD_PARAMS' } });
    const res = await t.request(`/public/lock/${'a'.repeat(20_000)}`, { key: OWNER_KEY });
    await expectV3Error(res, 431, 'BAD_PARAMS', 'fetch');
  });

  it('a HEAD refused before routing gets the status and headers, no body (found by the fuzzer)', async () => {
    const raw = await rawRequest(
      t.url,
      httpMessage('HEAD /public/locks HTTP/1.1', { authorization: 'k'.repeat(20_000) }),
    );
    assert.equal(raw.status, 431);
    assert.ok(raw.headers['x-request-id'], 'X-Request-Id');
    // rawRequest reads to the end of the connection: whatever came after the head was sent.
    assert.equal(raw.text, '');
  });

  it('bytes that are not HTTP answer 400 BAD_PARAMS, with an X-Request-Id', async () => {
    for (const message of [
      'GARBAGE\r\n\r\n',
      'GET /public/locks HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n',
      'GET /public/locks HTTP/9.9\r\nHost: x\r\n\r\n',
      'POST /public/partners/automation HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n{}',
    ]) {
      const res = await rawRequest(t.url, message);
      assert.deepEqual(rawJson(res), { status: 400, body: { error: 'BAD_PARAMS' } }, JSON.stringify(message));
      assert.ok(res.headers['x-request-id'], JSON.stringify(message));
    }
  });

  it('bytes that are not HTTP behind a request on the same connection answer in their own surface, with their own id (found by the fuzzer)', async () => {
    const { port, hostname } = new URL(t.url);
    const first =
      'POST /healthz HTTP/1.1\r\nHost: x\r\nX-Request-Id: first\r\nContent-Length: 5\r\n\r\nhello';
    const second = 'FOO /v1/locks HTTP/1.1\r\nHost: x\r\nX-Request-Id: second\r\n\r\n';
    const text = await new Promise<string>((resolve) => {
      const chunks: Buffer[] = [];
      const socket = connect(Number(port), hostname, () => socket.write(first + second));
      socket.on('data', (chunk: Buffer) => chunks.push(chunk));
      socket.on('error', () => {});
      socket.on('close', () => resolve(Buffer.concat(chunks).toString('latin1')));
    });
    const answers = text.split(/(?=HTTP\/1\.1 )/);
    assert.equal(answers.length, 2, text);
    assert.match(answers[1] ?? '', /^HTTP\/1\.1 400 /);
    assert.match(answers[1] ?? '', /\r\nX-Request-Id: second\r\n/i);
    assert.ok(answers[1]?.endsWith('\r\n\r\n{"code":10000,"message":"RequiredFieldEmpty"}'), answers[1]);
  });

  it('the server still answers after all of the above', async () => {
    assert.equal((await t.request('/public/locks', { key: OWNER_KEY })).status, 200);
  });
});

describe('with --production', () => {
  let t: TestServer;
  before(async () => {
    t = await startServer({ flags: [...FLAGS, '--production'] });
  });
  after(() => t.close());

  it('every /_sim route answers the plain 404 NOT_FOUND and does nothing', async () => {
    const routes: ReadonlyArray<readonly [string, string, string | undefined]> = [
      ['POST', `/_sim/locks/${LOCK_A}`, '{"battery":1}'],
      ['GET', '/_sim/clock', undefined],
      ['POST', '/_sim/clock', '{"advance_seconds":1}'],
      ['POST', `/_sim/accounts/${OWNER}`, '{"deleted":true}'],
      ['POST', '/_sim/reset', undefined],
      ['GET', `/_sim/mailbox?to=${OWNER}`, undefined],
    ];
    for (const [method, path, body] of routes) {
      const res = await t.request(path, { method, body, headers: { 'content-type': 'application/json' } });
      await expectV3Error(res, 404, 'NOT_FOUND', `${method} ${path}`);
    }
    assert.equal(
      (await t.request('/public/locks', { key: OWNER_KEY })).status,
      200,
      'the account was not deleted',
    );
    const lock = await t.request(`/public/lock/${LOCK_A}`, { key: OWNER_KEY });
    assert.equal(((await lock.json()) as { battery: number }).battery, 100, 'the lock was not changed');
  });

  it('requests refused before routing answer the v3 shape under /_sim: there is no sandbox', async () => {
    const res = await rawRequest(t.url, httpMessage(`GET /_sim/${'a'.repeat(20_000)} HTTP/1.1`));
    assert.deepEqual(rawJson(res), { status: 431, body: { error: 'BAD_PARAMS' } });
    await expectV3Error(
      await postRaw(t, '/_sim/locks/%E0%A4%A', '{}'),
      400,
      'BAD_PARAMS',
      'undecodable path',
    );
  });
});
