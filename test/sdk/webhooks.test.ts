/**
 * verifyWebhook against real deliveries: a receiver on 127.0.0.1, the webhook set through
 * PUT /ext/webhook with the owner's key, a lock unlocked through the SDK.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  type LockcloudClient,
  verifyWebhook,
  verifyWebhookSignature,
  WebhookVerificationError,
} from '../../sdk/src/index.ts';
import { LOCK_A, OWNER_KEY, startServer, type TestServer } from '../support/server.ts';
import { client, type Receiver, startReceiver } from './helpers.ts';

async function setWebhook(t: TestServer, url: string, method: 'GET' | 'POST'): Promise<string | undefined> {
  const res = await t.request('/ext/webhook', { method: 'PUT', key: OWNER_KEY, json: { url, method } });
  assert.equal(res.status, 200);
  return ((await res.json()) as { secret?: string }).secret;
}

describe('sdk: verifyWebhook over real deliveries', () => {
  let t: TestServer;
  let receiver: Receiver;
  let c: LockcloudClient;
  let secret: string;
  before(async () => {
    t = await startServer({ flags: ['--no-rate-limit'] });
    receiver = await startReceiver();
    c = client(t);
    const made = await setWebhook(t, `${receiver.url}/hook/{device_id}/{state}`, 'POST');
    assert.match(made ?? '', /^whsec_/);
    secret = made ?? '';
  });
  after(async () => {
    await t.close();
    await receiver.close();
  });

  it('a POST delivery verifies and parses to {device_id, locked, state}; the raw bytes or the text alike', async () => {
    await c.run(LOCK_A, 'unlock');
    const [delivery] = await receiver.waitFor(1);
    assert.ok(delivery);
    assert.equal(delivery.url, `/hook/${LOCK_A}/unlocked`);
    const expected = { device_id: LOCK_A, locked: false, state: 'unlocked' };
    assert.deepEqual(await verifyWebhook(delivery.body, delivery.headers, secret), expected);
    assert.deepEqual(await verifyWebhook(delivery.body.toString('utf8'), delivery.headers, secret), expected);
    const fetchHeaders = new Headers(Object.entries(delivery.headers).map(([k, v]) => [k, String(v)]));
    assert.deepEqual(await verifyWebhook(delivery.body, fetchHeaders, [secret]), expected);
  });

  it('a tampered body, a wrong secret, a missing header or an old timestamp fail', async () => {
    const [delivery] = await receiver.waitFor(1);
    assert.ok(delivery);
    const tampered = delivery.body.toString('utf8').replace('"locked":false', '"locked":true');
    await assert.rejects(verifyWebhook(tampered, delivery.headers, secret), WebhookVerificationError);
    await assert.rejects(
      verifyWebhook(delivery.body, delivery.headers, 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'),
      WebhookVerificationError,
    );
    const { 'webhook-signature': _dropped, ...unsigned } = delivery.headers;
    await assert.rejects(verifyWebhook(delivery.body, unsigned, secret), /missing/);
    const sent = Number(delivery.headers['webhook-timestamp']) * 1000;
    await assert.rejects(
      verifyWebhook(delivery.body, delivery.headers, secret, { now: sent + 301_000 }),
      /tolerance/,
    );
    await verifyWebhook(delivery.body, delivery.headers, secret, { now: new Date(sent + 299_000) });
    await assert.rejects(
      verifyWebhook(delivery.body, delivery.headers, secret, { now: sent + 61_000, toleranceSeconds: 60 }),
      WebhookVerificationError,
    );
    const otherId = { ...delivery.headers, 'webhook-id': 'msg_00000000000000000000000000000000' };
    await assert.rejects(verifyWebhook(delivery.body, otherId, secret), /no signature matches/);
  });

  it('during a rotation the message verifies with the new secret and with the old one', async () => {
    const res = await t.request('/ext/webhook/rotate-secret', { method: 'POST', key: OWNER_KEY });
    const { secret: rotated } = (await res.json()) as { secret: string };
    await c.run(LOCK_A, 'lock');
    const delivery = (await receiver.waitFor(2))[1];
    assert.ok(delivery);
    assert.equal(String(delivery.headers['webhook-signature']).split(' ').length, 2);
    const expected = { device_id: LOCK_A, locked: true, state: 'locked' };
    assert.deepEqual(await verifyWebhook(delivery.body, delivery.headers, rotated), expected);
    assert.deepEqual(await verifyWebhook(delivery.body, delivery.headers, secret), expected);
    assert.deepEqual(await verifyWebhook(delivery.body, delivery.headers, ['whsec_AAAA', rotated]), expected);
    secret = rotated;
  });

  it('a GET delivery (no body) verifies with verifyWebhookSignature; verifyWebhook refuses it as no payload', async () => {
    await setWebhook(t, `${receiver.url}/get/{device_id}/{state}`, 'GET');
    await c.run(LOCK_A, 'unlock');
    const delivery = (await receiver.waitFor(3))[2];
    assert.ok(delivery);
    assert.equal(delivery.method, 'GET');
    assert.equal(delivery.body.length, 0);
    await verifyWebhookSignature('', delivery.headers, secret);
    await assert.rejects(verifyWebhook('', delivery.headers, secret), /not JSON/);
    await assert.rejects(verifyWebhookSignature('x', delivery.headers, secret), WebhookVerificationError);
  });
});
