/**
 * The extension API's webhook secret, black-box: PUT answers it the first time only, GET never;
 * deliveries are signed with it; rotate-secret answers a new one and deliveries are then signed with
 * both; and it is never stored in clear.
 */
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { SQLITE_FILE_NAME } from '../../../src/adapters/stores/sqlite/open.ts';
import { eventually } from '../../support/eventually.ts';
import { answer, LOCK_A, OTHER_KEY, OWNER_KEY, startServer, type TestServer } from '../../support/server.ts';
import { type Receiver, startReceiver } from '../../support/webhook-receiver.ts';
import { FLAGS, putWebhook, sendTestEvent, waitForOutcome } from '../../support/webhooks.ts';
import { expectAnswer, expectExtError } from './helpers.ts';

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
    t = await startServer({ flags: FLAGS });
  });
  after(async () => {
    await t.close();
    await receiver.close();
  });

  describe('the secret: shown once, rotated, never stored, in order', () => {
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
  });
});
