/**
 * The extension API's webhook routes, black-box: every route's happy path and every error it can
 * answer, each checked whole (status, exact body, JSON content type, X-Request-Id). The signing
 * secret is answered once (and by rotate), never by GET, and never stored in clear.
 */
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { SQLITE_FILE_NAME } from '../../../src/adapters/stores/sqlite/open.ts';
import type { Seed } from '../../../src/app/seed/schema.ts';
import {
  answer,
  LOCK_A,
  OTHER,
  OTHER_KEY,
  OWNER_KEY,
  standardSeed,
  startServer,
  type TestServer,
} from '../../support/server.ts';
import { JSON_UTF8, paddedBody } from '../bad-input-helpers.ts';
import {
  deliveryLog,
  eventually,
  FLAGS,
  type LogEntry,
  putWebhook,
  type Receiver,
  sendTestEvent,
  startReceiver,
  waitForOutcome,
} from './helpers.ts';

/** The answer whole: status, body, and the headers every answer carries. */
async function expectAnswer(res: Response, status: number, body: unknown, what: string): Promise<void> {
  const got = await answer(res);
  assert.deepEqual(got, { status, body }, what);
  assert.equal(res.headers.get('content-type'), JSON_UTF8, `${what}: content type`);
  assert.ok(res.headers.get('x-request-id'), `${what}: X-Request-Id`);
}

/** An extension error: exactly {"error","message"} with a message matching `message`. */
async function expectExtError(
  res: Response,
  status: number,
  error: string,
  message: RegExp,
  what: string,
): Promise<void> {
  const got = await answer(res);
  const body = got.body as Record<string, unknown>;
  assert.deepEqual(
    { status: got.status, keys: Object.keys(body ?? {}), error: body?.error },
    { status, keys: ['error', 'message'], error },
    `${what}: ${JSON.stringify(got)}`,
  );
  assert.match(String(body.message), message, what);
  assert.equal(res.headers.get('content-type'), JSON_UTF8, `${what}: content type`);
  assert.ok(res.headers.get('x-request-id'), `${what}: X-Request-Id`);
}

const ROUTES: readonly (readonly [string, string])[] = [
  ['GET', '/ext/webhook'],
  ['PUT', '/ext/webhook'],
  ['DELETE', '/ext/webhook'],
  ['POST', '/ext/webhook/rotate-secret'],
  ['POST', '/ext/webhook/test'],
  ['GET', '/ext/webhook/deliveries'],
  ['POST', '/ext/webhook/deliveries/msg_0/resend'],
];

/** A third account, deleted by the authentication test. */
const GONE = 'gone@example.com';
const GONE_KEY = 'gone-api-key-0003';
const seed: Seed = (() => {
  const s = standardSeed();
  return {
    ...s,
    accounts: [...(s.accounts ?? []), { email: GONE, password: 'gone-password', verified: true }],
    api_keys: [...(s.api_keys ?? []), { account: GONE, key: GONE_KEY }],
  };
})();

const VALID = { url: 'http://127.0.0.1:9/hook/{device_id}/{state}' };

/** The webhook-signature header verified by hand: one v1 signature per secret, in this order. */
function signaturesMatch(
  headers: Record<string, string | string[] | undefined>,
  body: string,
  secrets: string[],
) {
  const id = String(headers['webhook-id']);
  const timestamp = String(headers['webhook-timestamp']);
  const expected = secrets.map(
    (s) =>
      `v1,${createHmac('sha256', Buffer.from(s.slice('whsec_'.length), 'base64'))
        .update(`${id}.${timestamp}.${body}`)
        .digest('base64')}`,
  );
  return String(headers['webhook-signature']) === expected.join(' ');
}

describe('/ext/webhook', () => {
  let t: TestServer;
  let receiver: Receiver;
  before(async () => {
    receiver = await startReceiver();
    t = await startServer({ flags: FLAGS, seed });
  });
  after(async () => {
    await t.close();
    await receiver.close();
  });

  describe('authentication', () => {
    it('answers 401 {"error":"UNAUTHORIZED"} on every route without a key, with a bad key, or with a deleted account', async () => {
      for (const [method, path] of ROUTES) {
        const json = method === 'PUT' ? VALID : undefined;
        await expectAnswer(
          await t.request(path, { method, json }),
          401,
          { error: 'UNAUTHORIZED' },
          `${method} ${path} without a key`,
        );
        await expectAnswer(
          await t.request(path, { method, json, key: 'not-a-real-key-000' }),
          401,
          { error: 'UNAUTHORIZED' },
          `${method} ${path} with a bad key`,
        );
      }
      const deleted = await t.request(`/_sim/accounts/${GONE}`, { method: 'POST', json: { deleted: true } });
      assert.equal(deleted.status, 200);
      for (const [method, path] of ROUTES) {
        await expectAnswer(
          await t.request(path, { method, json: method === 'PUT' ? VALID : undefined, key: GONE_KEY }),
          401,
          { error: 'UNAUTHORIZED' },
          `${method} ${path} with the key of a deleted account`,
        );
      }
    });

    it('checks the key before the body: a bad body without a key is 401', async () => {
      await expectAnswer(
        await t.request('/ext/webhook', {
          method: 'PUT',
          body: '{"url":',
          headers: { 'content-type': 'application/json' },
        }),
        401,
        { error: 'UNAUTHORIZED' },
        'invalid JSON without a key',
      );
      await expectAnswer(
        await t.request('/ext/webhook/deliveries?limit=abc'),
        401,
        { error: 'UNAUTHORIZED' },
        'a bad limit without a key',
      );
    });
  });

  describe('before any webhook is set', () => {
    it('GET and DELETE answer 404 NOT_FOUND', async () => {
      await expectExtError(
        await t.request('/ext/webhook', { key: OWNER_KEY }),
        404,
        'NOT_FOUND',
        /no webhook/,
        'GET',
      );
      await expectExtError(
        await t.request('/ext/webhook', { method: 'DELETE', key: OWNER_KEY }),
        404,
        'NOT_FOUND',
        /no webhook/,
        'DELETE',
      );
    });

    it('test, rotate-secret and resend answer 400 BAD_PARAMS', async () => {
      for (const path of [
        '/ext/webhook/test',
        '/ext/webhook/rotate-secret',
        '/ext/webhook/deliveries/msg_0/resend',
      ]) {
        await expectExtError(
          await t.request(path, { method: 'POST', key: OWNER_KEY }),
          400,
          'BAD_PARAMS',
          /no webhook/,
          path,
        );
      }
    });

    it('the delivery log is empty', async () => {
      await expectAnswer(await t.request('/ext/webhook/deliveries', { key: OWNER_KEY }), 200, [], 'log');
    });
  });

  describe('PUT /ext/webhook refusals', () => {
    const put = (json: unknown) => t.request('/ext/webhook', { method: 'PUT', key: OWNER_KEY, json });
    const base = 'https://hooks.example.com/';

    it('a url over 256 characters (the happy paths show 256 taken)', async () => {
      const url257 = base + 'a'.repeat(257 - base.length);
      assert.equal(url257.length, 257);
      await expectExtError(
        await put({ url: url257 }),
        400,
        'BAD_PARAMS',
        /^url: must be at most 256 characters$/,
        '257',
      );
    });

    it('a url that is not http(s), not a URL, empty, or not a string', async () => {
      for (const url of ['ftp://hooks.example.com/', 'file:///etc/passwd', 'javascript:alert(1)']) {
        await expectExtError(await put({ url }), 400, 'BAD_PARAMS', /^url: must be http or https$/, url);
      }
      await expectExtError(
        await put({ url: 'hooks.example.com' }),
        400,
        'BAD_PARAMS',
        /^url: is not a URL$/,
        'bare',
      );
      await expectExtError(await put({ url: '' }), 400, 'BAD_PARAMS', /^url: must not be empty$/, 'empty');
      for (const url of [5, null, true, ['https://x.example/'], { href: base }]) {
        await expectExtError(await put({ url }), 400, 'BAD_PARAMS', /url/, JSON.stringify(url));
      }
      await expectExtError(await put({}), 400, 'BAD_PARAMS', /url/, 'missing url');
    });

    it('a url with credentials', async () => {
      for (const url of ['https://user:pass@hooks.example.com/', 'https://user@hooks.example.com/']) {
        await expectExtError(await put({ url }), 400, 'BAD_PARAMS', /^url: must not carry credentials$/, url);
      }
    });

    it('a method other than GET or POST', async () => {
      for (const method of ['PUT', 'DELETE', 'get', 'post', '', null, 1]) {
        await expectExtError(
          await put({ url: base, method }),
          400,
          'BAD_PARAMS',
          /method/,
          JSON.stringify(method),
        );
      }
    });

    it('retries that is not a boolean', async () => {
      for (const retries of ['true', 'yes', 1, 0, null, {}]) {
        await expectExtError(
          await put({ url: base, retries }),
          400,
          'BAD_PARAMS',
          /retries/,
          JSON.stringify(retries),
        );
      }
    });

    it('an unknown field, named', async () => {
      for (const extra of [{ secret: 'whsec_AAAAAAAAAAAAAAAAAAAAAAAA' }, { headers: {} }, { URL: base }]) {
        await expectExtError(
          await put({ url: base, ...extra }),
          400,
          'BAD_PARAMS',
          new RegExp(`additional properties|${Object.keys(extra)[0]}`),
          JSON.stringify(extra),
        );
      }
    });

    it('a body that is not an object, not JSON, or of another content type', async () => {
      for (const body of [[], 'str', 1, null, true]) {
        await expectExtError(await put(body), 400, 'BAD_PARAMS', /body/, JSON.stringify(body));
      }
      for (const raw of ['{"url":', '{bad', "{'url':'x'}", '{"url":"x",}']) {
        await expectExtError(
          await t.request('/ext/webhook', {
            method: 'PUT',
            key: OWNER_KEY,
            body: raw,
            headers: { 'content-type': 'application/json' },
          }),
          400,
          'BAD_PARAMS',
          /JSON/,
          raw,
        );
      }
      await expectExtError(
        await t.request('/ext/webhook', {
          method: 'PUT',
          key: OWNER_KEY,
          body: JSON.stringify(VALID),
          headers: { 'content-type': 'text/plain' },
        }),
        400,
        'BAD_PARAMS',
        /body/,
        'text/plain',
      );
      await expectExtError(
        await t.request('/ext/webhook', { method: 'PUT', key: OWNER_KEY }),
        400,
        'BAD_PARAMS',
        /body/,
        'no body',
      );
    });

    it('a body over 16 KiB: 413', async () => {
      await expectExtError(
        await t.request('/ext/webhook', {
          method: 'PUT',
          key: OWNER_KEY,
          body: paddedBody(16 * 1024 + 1, { url: base }),
          headers: { 'content-type': 'application/json' },
        }),
        413,
        'BAD_PARAMS',
        /too large/i,
        '16 KiB + 1',
      );
    });
  });

  describe('GET /ext/webhook/deliveries refusals', () => {
    it('a limit of 0, 501, or not a number', async () => {
      for (const limit of ['0', '501', 'abc', '-1', '1.5', '', '1000', '1e2']) {
        await expectExtError(
          await t.request(`/ext/webhook/deliveries?limit=${limit}`, { key: OWNER_KEY }),
          400,
          'BAD_PARAMS',
          /limit/,
          `limit=${limit}`,
        );
      }
      for (const limit of ['1', '500', '050']) {
        const res = await t.request(`/ext/webhook/deliveries?limit=${limit}`, { key: OWNER_KEY });
        assert.equal(res.status, 200, `limit=${limit}`);
      }
    });
  });

  describe('unknown /ext routes', () => {
    it('answer 404 NOT_FOUND before any key check', async () => {
      for (const [method, path] of [
        ['GET', '/ext'],
        ['GET', '/ext/'],
        ['GET', '/ext/nope'],
        ['GET', '/ext/webhooks'],
        ['PATCH', '/ext/webhook'],
        ['POST', '/ext/webhook'],
        ['GET', '/ext/webhook/test'],
        ['GET', '/ext/webhook/rotate-secret'],
        ['GET', '/ext/webhook/deliveries/msg_0/resend'],
        ['POST', '/ext/webhook/deliveries'],
      ] as const) {
        for (const key of [undefined, OWNER_KEY]) {
          await expectExtError(
            await t.request(path, { method, ...(key === undefined ? {} : { key }) }),
            404,
            'NOT_FOUND',
            /no such route/,
            `${method} ${path} ${key === undefined ? 'without' : 'with'} a key`,
          );
        }
      }
    });
  });

  describe('requests refused before routing', () => {
    it("answer in the extension API's shape, with a message", async () => {
      for (const path of ['/ext/webhook/deliveries/%zz/resend', '/ext/%E0%A4%A']) {
        await expectExtError(
          await t.request(path, { method: 'POST', key: OWNER_KEY }),
          400,
          'BAD_PARAMS',
          /the path cannot be decoded/,
          path,
        );
      }
      await expectExtError(
        await t.request(`/ext/webhook/deliveries?limit=1&pad=${'x'.repeat(17 * 1024)}`, { key: OWNER_KEY }),
        431,
        'BAD_PARAMS',
        /over 16 KiB/,
        'a request line over 16 KiB',
      );
    });
  });

  describe('the happy paths, in order', () => {
    let firstSecret: string;
    let rotated: string;
    let testDelivery: string;

    it('PUT sets the webhook and answers the secret the first time only', async () => {
      const first = await answer(
        await t.request('/ext/webhook', {
          method: 'PUT',
          key: OWNER_KEY,
          json: { url: `${receiver.url}/a` },
        }),
      );
      assert.equal(first.status, 200);
      const body = first.body as Record<string, unknown>;
      assert.deepEqual(Object.keys(body), ['url', 'method', 'retries', 'secret']);
      assert.deepEqual(
        { ...body, secret: undefined },
        { url: `${receiver.url}/a`, method: 'POST', retries: false, secret: undefined },
      );
      assert.match(String(body.secret), /^whsec_[A-Za-z0-9+/]{32}$/);
      firstSecret = String(body.secret);

      // A second PUT changes the settings and keeps the secret, without showing it.
      await expectAnswer(
        await t.request('/ext/webhook', {
          method: 'PUT',
          key: OWNER_KEY,
          json: { url: `${receiver.url}/b/{device_id}/{state}`, method: 'POST', retries: false },
        }),
        200,
        { url: `${receiver.url}/b/{device_id}/{state}`, method: 'POST', retries: false },
        'second PUT',
      );
      const url256 = `${receiver.url}/g/`.padEnd(256, 'g');
      assert.equal(url256.length, 256);
      await expectAnswer(
        await t.request('/ext/webhook', {
          method: 'PUT',
          key: OWNER_KEY,
          json: { url: url256, method: 'GET', retries: true },
        }),
        200,
        { url: url256, method: 'GET', retries: true },
        'a PUT of 256 characters',
      );
    });

    it('GET answers the settings, never the secret', async () => {
      await expectAnswer(
        await t.request('/ext/webhook', { key: OWNER_KEY }),
        200,
        { url: `${receiver.url}/g/`.padEnd(256, 'g'), method: 'GET', retries: true },
        'GET',
      );
      await putWebhook(t, { url: `${receiver.url}/b/{device_id}/{state}`, method: 'POST', retries: false });
      await expectAnswer(
        await t.request('/ext/webhook', { key: OWNER_KEY }),
        200,
        { url: `${receiver.url}/b/{device_id}/{state}`, method: 'POST', retries: false },
        'GET',
      );
    });

    it('each account has its own webhook', async () => {
      await expectExtError(
        await t.request('/ext/webhook', { key: OTHER_KEY }),
        404,
        'NOT_FOUND',
        /no webhook/,
        'the other account has none',
      );
    });

    it('test sends a signed test event about the first lock, logged with its outcome', async () => {
      const res = await t.request('/ext/webhook/test', { method: 'POST', key: OWNER_KEY });
      const got = await answer(res);
      assert.equal(got.status, 202, JSON.stringify(got.body));
      assert.deepEqual(Object.keys(got.body as object), ['delivery_id']);
      testDelivery = (got.body as { delivery_id: string }).delivery_id;
      assert.match(testDelivery, /^msg_[0-9a-f]{32}$/);
      const entry = await waitForOutcome(t, testDelivery);
      assert.equal(entry.status, 'delivered', JSON.stringify(entry));
      assert.equal(entry.event, 'test');
      assert.equal(entry.device_id, LOCK_A);
      assert.equal(entry.url, `${receiver.url}/b/${LOCK_A}/locked`);
      await eventually('the test event to arrive', () => receiver.requests.length === 1);
      const [request] = receiver.requests;
      assert.ok(request);
      assert.equal(request.headers['webhook-id'], testDelivery);
      assert.equal(request.headers['lockcloud-event'], 'test');
      assert.equal(request.body, `{"device_id":"${LOCK_A}","locked":true,"state":"locked"}`);
      assert.ok(
        signaturesMatch(request.headers, request.body, [firstSecret]),
        'signed with the first secret',
      );
    });

    it('rotate-secret answers a new secret; deliveries are then signed with the new and the old one', async () => {
      const res = await t.request('/ext/webhook/rotate-secret', { method: 'POST', key: OWNER_KEY });
      const got = await answer(res);
      assert.equal(got.status, 200);
      assert.deepEqual(Object.keys(got.body as object), ['secret']);
      rotated = (got.body as { secret: string }).secret;
      assert.match(rotated, /^whsec_[A-Za-z0-9+/]{32}$/);
      assert.notEqual(rotated, firstSecret);
      // Still not shown by GET or a later PUT.
      const view = await answer(await t.request('/ext/webhook', { key: OWNER_KEY }));
      assert.equal(JSON.stringify(view.body).includes('whsec_'), false);
      const again = await putWebhook(t, { url: `${receiver.url}/b/{device_id}/{state}` });
      assert.equal('secret' in again, false);

      const id = await sendTestEvent(t);
      assert.equal((await waitForOutcome(t, id)).status, 'delivered');
      await eventually('the second test event to arrive', () => receiver.requests.length === 2);
      const request = receiver.requests[1];
      assert.ok(request);
      assert.ok(
        signaturesMatch(request.headers, request.body, [rotated, firstSecret]),
        `signed with the new secret then the old: ${request.headers['webhook-signature']}`,
      );
    });

    it('deliveries lists the log newest first, as many as the limit', async () => {
      const all = await deliveryLog(t);
      assert.equal(all.length, 2);
      assert.equal(all[1]?.id, testDelivery, 'the first test event is the older');
      const res = await t.request('/ext/webhook/deliveries?limit=1', { key: OWNER_KEY });
      assert.equal(res.status, 200);
      const [newest, ...rest] = (await res.json()) as LogEntry[];
      assert.deepEqual(rest, []);
      assert.equal(newest?.id, all[0]?.id);
      assert.deepEqual(Object.keys(newest ?? {}), [
        'id',
        'event',
        'device_id',
        'url',
        'method',
        'status',
        'attempts',
        'response_status',
        'error',
        'latency_ms',
        'created_at',
        'last_attempt_at',
        'next_attempt_at',
      ]);
      assert.deepEqual(
        { ...newest, latency_ms: 0, created_at: '', last_attempt_at: '' },
        {
          id: all[0]?.id,
          event: 'test',
          device_id: LOCK_A,
          url: `${receiver.url}/b/${LOCK_A}/locked`,
          method: 'POST',
          status: 'delivered',
          attempts: 1,
          response_status: 200,
          error: null,
          latency_ms: 0,
          created_at: '',
          last_attempt_at: '',
          next_attempt_at: null,
        },
      );
      // Another account sees none of them.
      await expectAnswer(await t.request('/ext/webhook/deliveries', { key: OTHER_KEY }), 200, [], 'other');
    });

    it('resend sends a logged message again as a new message', async () => {
      const res = await t.request(`/ext/webhook/deliveries/${testDelivery}/resend`, {
        method: 'POST',
        key: OWNER_KEY,
      });
      const got = await answer(res);
      assert.equal(got.status, 202, JSON.stringify(got.body));
      const id = (got.body as { delivery_id: string }).delivery_id;
      assert.notEqual(id, testDelivery);
      const entry = await waitForOutcome(t, id);
      assert.equal(entry.status, 'delivered');
      assert.equal(entry.event, 'test');
      await eventually('the resent message to arrive', () => receiver.requests.length === 3);
      assert.equal(receiver.requests[2]?.headers['webhook-id'], id);
      assert.equal(receiver.requests[2]?.body, receiver.requests[0]?.body);
    });

    it('resend keeps the state of the message it resends, for GET messages too, whatever the URL', async () => {
      // A GET message carries its state only in its URL, and only where the template put {state}.
      await putWebhook(t, { url: `${receiver.url}/s/{device_id}/{state}.json`, method: 'GET' });
      const original = await sendTestEvent(t); // LOCK_A is locked
      assert.equal((await waitForOutcome(t, original)).url, `${receiver.url}/s/${LOCK_A}/locked.json`);
      const again = await answer(
        await t.request(`/ext/webhook/deliveries/${original}/resend`, { method: 'POST', key: OWNER_KEY }),
      );
      assert.equal(again.status, 202);
      const resent = await waitForOutcome(t, (again.body as { delivery_id: string }).delivery_id);
      assert.equal(resent.url, `${receiver.url}/s/${LOCK_A}/locked.json`, 'the resent message says locked');

      // Sent again after the webhook moved to POST: the body tells the original state.
      await putWebhook(t, { url: `${receiver.url}/b/{device_id}/{state}`, method: 'POST' });
      const moved = await answer(
        await t.request(`/ext/webhook/deliveries/${original}/resend`, { method: 'POST', key: OWNER_KEY }),
      );
      assert.equal(moved.status, 202);
      const id = (moved.body as { delivery_id: string }).delivery_id;
      assert.equal((await waitForOutcome(t, id)).url, `${receiver.url}/b/${LOCK_A}/locked`);
      await eventually('the resent POST to arrive', () =>
        receiver.requests.some((r) => r.headers['webhook-id'] === id),
      );
      const post = receiver.requests.find((r) => r.headers['webhook-id'] === id);
      assert.equal(post?.body, `{"device_id":"${LOCK_A}","locked":true,"state":"locked"}`);
    });

    it("resend of an unknown delivery, or of another account's, answers 404", async () => {
      for (const id of ['msg_00000000000000000000000000000000', 'nope', 'x'.repeat(64)]) {
        await expectExtError(
          await t.request(`/ext/webhook/deliveries/${id}/resend`, { method: 'POST', key: OWNER_KEY }),
          404,
          'NOT_FOUND',
          /no such delivery/,
          id,
        );
      }
      // The other account, with a webhook of its own, cannot resend the owner's message.
      await putWebhook(t, { url: `${receiver.url}/other` }, OTHER_KEY);
      await expectExtError(
        await t.request(`/ext/webhook/deliveries/${testDelivery}/resend`, { method: 'POST', key: OTHER_KEY }),
        404,
        'NOT_FOUND',
        /no such delivery/,
        `${OTHER} resending the owner's delivery`,
      );
      const sent = receiver.requests.length;
      await new Promise((r) => setTimeout(r, 50));
      assert.equal(receiver.requests.length, sent, 'nothing was sent');
    });

    it('a delivery id over 64 characters is a bad parameter', async () => {
      await expectExtError(
        await t.request(`/ext/webhook/deliveries/${'x'.repeat(65)}/resend`, {
          method: 'POST',
          key: OWNER_KEY,
        }),
        400,
        'BAD_PARAMS',
        /id/,
        '65 characters',
      );
    });

    it('the secret is never stored in clear: not in the database file, nor its WAL', () => {
      const files = [SQLITE_FILE_NAME, `${SQLITE_FILE_NAME}-wal`].map((name) => {
        try {
          return readFileSync(join(t.dataDir, name));
        } catch {
          return Buffer.alloc(0);
        }
      });
      assert.ok(files.reduce((n, f) => n + f.length, 0) > 0, 'the database was read');
      for (const secret of [firstSecret, rotated]) {
        const base64 = secret.slice('whsec_'.length);
        const raw = Buffer.from(base64, 'base64');
        for (const [i, bytes] of files.entries()) {
          const name = i === 0 ? 'database' : 'WAL';
          assert.equal(bytes.indexOf(secret), -1, `${name} holds the secret`);
          assert.equal(bytes.indexOf(base64), -1, `${name} holds the secret's base64`);
          assert.equal(bytes.indexOf(raw), -1, `${name} holds the secret's bytes`);
        }
      }
    });

    it('DELETE removes the webhook: 204, then GET 404; a new PUT makes and shows a new secret', async () => {
      const res = await t.request('/ext/webhook', { method: 'DELETE', key: OWNER_KEY });
      assert.equal(res.status, 204);
      assert.equal(await res.text(), '');
      assert.ok(res.headers.get('x-request-id'));
      await expectExtError(
        await t.request('/ext/webhook', { key: OWNER_KEY }),
        404,
        'NOT_FOUND',
        /no webhook/,
        'GET',
      );
      await expectExtError(
        await t.request('/ext/webhook', { method: 'DELETE', key: OWNER_KEY }),
        404,
        'NOT_FOUND',
        /no webhook/,
        'DELETE again',
      );
      // The other account's webhook is untouched.
      assert.equal((await t.request('/ext/webhook', { key: OTHER_KEY })).status, 200);
      const fresh = await putWebhook(t, VALID);
      assert.match(String(fresh.secret), /^whsec_/);
      assert.notEqual(fresh.secret, firstSecret);
      assert.notEqual(fresh.secret, rotated);
    });
  });
});

describe('DELETE /ext/webhook with a message waiting for a retry', () => {
  let t: TestServer;
  let receiver: Receiver;
  before(async () => {
    receiver = await startReceiver(() => ({ status: 503 }));
    t = await startServer({ flags: FLAGS });
  });
  after(async () => {
    await t.close();
    await receiver.close();
  });

  it('ends it as failed: nothing more goes to the removed webhook, and nothing unsigned ever', async () => {
    await putWebhook(t, { url: `${receiver.url}/down`, retries: true });
    const id = await sendTestEvent(t);
    await eventually('the first attempt', () => receiver.requests.length === 1);
    let entry: LogEntry | undefined;
    for (let i = 0; i < 300 && entry?.attempts !== 1; i++) {
      [entry] = await deliveryLog(t);
      if (entry?.attempts !== 1) await new Promise((r) => setTimeout(r, 10));
    }
    assert.equal(entry?.status, 'pending', 'waiting for its retry');
    assert.ok(entry?.next_attempt_at);

    const removed = await t.request('/ext/webhook', { method: 'DELETE', key: OWNER_KEY });
    assert.equal(removed.status, 204);
    const [after] = await deliveryLog(t);
    assert.deepEqual(
      {
        id: after?.id,
        status: after?.status,
        attempts: after?.attempts,
        error: after?.error,
        next: after?.next_attempt_at,
      },
      { id, status: 'failed', attempts: 1, error: 'the webhook was removed; not sent', next: null },
    );
    // Past the retry's time: the dispatcher polls every second and finds nothing to send.
    const clock = await t.request('/_sim/clock', { method: 'POST', json: { advance_seconds: 60 } });
    assert.equal(clock.status, 200);
    await new Promise((r) => setTimeout(r, 1_500));
    assert.equal(receiver.requests.length, 1);
    for (const request of receiver.requests)
      assert.match(String(request.headers['webhook-signature']), /^v1,/);
  });
});
