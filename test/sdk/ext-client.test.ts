/**
 * The extension API through the SDK (`client.webhook`), against a live server with its limits on: the
 * settings and their secret, test events and resends to a real receiver, the delivery log, and
 * every documented /ext error answer as its class with the server's message.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  BadParamsError,
  InternalError,
  type LockcloudClient,
  LockcloudSandboxClient,
  NotFoundError,
  ServiceUnavailableError,
  ThrottledError,
  UnauthorizedError,
  V3Error,
  verifyWebhook,
  type WebhookDelivery,
} from '../../sdk/src/index.ts';
import { eventually } from '../support/eventually.ts';
import { LOCK_A, OTHER_KEY, startServer, type TestServer } from '../support/server.ts';
import { cannedFetch, client, type Receiver, startReceiver } from './helpers.ts';

/** The log, read until `done` holds (deliveries leave in the background). */
async function logUntil(
  c: LockcloudClient,
  done: (log: WebhookDelivery[]) => boolean,
): Promise<WebhookDelivery[]> {
  return eventually('the delivery log to get there', async () => {
    const log = await c.webhook.deliveries();
    return done(log) && log;
  });
}

describe('sdk: client.webhook (/ext)', () => {
  let t: TestServer;
  let receiver: Receiver;
  let c: LockcloudClient;
  let sandbox: LockcloudSandboxClient;
  before(async () => {
    t = await startServer();
    receiver = await startReceiver();
    c = client(t);
    sandbox = new LockcloudSandboxClient({ baseUrl: t.url });
  });
  after(async () => {
    await t.close();
    await receiver.close();
  });

  it('without a webhook: get and delete are NotFoundError, test and rotateSecret BadParamsError, with the message', async () => {
    const missing = await c.webhook.get().catch((e: unknown) => e);
    assert.ok(missing instanceof NotFoundError && missing instanceof V3Error, String(missing));
    assert.equal(missing.status, 404);
    assert.equal(missing.code, 'NOT_FOUND');
    assert.equal(missing.message, 'lockcloud answered 404 NOT_FOUND: no webhook is set');
    assert.deepEqual(missing.body, { error: 'NOT_FOUND', message: 'no webhook is set' });
    await assert.rejects(c.webhook.delete(), NotFoundError);
    for (const call of [() => c.webhook.test(), () => c.webhook.rotateSecret()]) {
      const err = await call().catch((e: unknown) => e);
      assert.ok(err instanceof BadParamsError, String(err));
      assert.match(err.message, /^lockcloud answered 400 BAD_PARAMS: .*no webhook is set/);
    }
  });

  it('set answers the secret the first time only; get never shows it; a set replaces every setting', async () => {
    const first = await c.webhook.set({ url: `${receiver.url}/hook/{device_id}/{state}`, retries: true });
    assert.match(first.secret ?? '', /^whsec_/);
    assert.deepEqual(
      { ...first, secret: undefined },
      { url: `${receiver.url}/hook/{device_id}/{state}`, method: 'POST', retries: true, secret: undefined },
    );
    const again = await c.webhook.set({ url: `${receiver.url}/hook/{device_id}/{state}` });
    assert.deepEqual(again, {
      url: `${receiver.url}/hook/{device_id}/{state}`,
      method: 'POST',
      retries: false,
    });
    assert.deepEqual(await c.webhook.get(), again);
  });

  it('bad settings are BadParamsError naming the field', async () => {
    const err = await c.webhook.set({ url: 'ftp://example.com/hook' }).catch((e: unknown) => e);
    assert.ok(err instanceof BadParamsError, String(err));
    assert.match(err.message, /url/);
    await assert.rejects(c.webhook.set({ url: `${receiver.url}/x`, method: 'PUT' as never }), /method/);
    await assert.rejects(c.webhook.deliveries({ limit: 0 }), BadParamsError);
    await assert.rejects(c.webhook.deliveries({ limit: 501 }), /limit/);
  });

  it('test sends a signed test event; deliveries logs it; resend sends it again as a new message', async () => {
    const secret = (await c.webhook.rotateSecret()).secret;
    assert.match(secret, /^whsec_/);
    const { delivery_id } = await c.webhook.test();
    const [delivery] = await receiver.waitFor(1);
    assert.ok(delivery);
    assert.equal(delivery.headers['webhook-id'], delivery_id);
    assert.equal(delivery.headers['lockcloud-event'], 'test');
    assert.equal((await verifyWebhook(delivery.body, delivery.headers, secret)).device_id, LOCK_A);

    const log = await logUntil(c, (l) => l[0]?.id === delivery_id && l[0].status === 'delivered');
    const entry = log[0];
    assert.ok(entry);
    assert.equal(entry.event, 'test');
    assert.equal(entry.device_id, LOCK_A);
    assert.equal(entry.method, 'POST');
    assert.equal(entry.response_status, 204);
    assert.equal(entry.attempts, 1);
    assert.equal(entry.next_attempt_at, null);
    assert.ok(!Number.isNaN(Date.parse(entry.created_at)));

    const resent = await c.webhook.resend(delivery_id);
    assert.notEqual(resent.delivery_id, delivery_id);
    const second = (await receiver.waitFor(2))[1];
    assert.equal(second?.headers['webhook-id'], resent.delivery_id);
    assert.equal((await c.webhook.deliveries({ limit: 1 })).length, 1);
    await assert.rejects(c.webhook.resend('msg_unknown'), NotFoundError);
    assert.throws(() => c.webhook.resend(''), TypeError);
  });

  it('another key sees none of it; a wrong key is UnauthorizedError', async () => {
    await assert.rejects(client(t, { apiKey: OTHER_KEY }).webhook.get(), NotFoundError);
    assert.deepEqual(await client(t, { apiKey: OTHER_KEY }).webhook.deliveries(), []);
    const err = await client(t, { apiKey: 'wrong' })
      .webhook.deliveries()
      .catch((e: unknown) => e);
    assert.ok(err instanceof UnauthorizedError, String(err));
    assert.equal(err.message, 'lockcloud answered 401 UNAUTHORIZED');
  });

  it('past the budget of test events and resends: ThrottledError with Retry-After; after the wait, accepted', async () => {
    let refused: unknown;
    for (let i = 0; i < 40 && refused === undefined; i++)
      refused = await c.webhook.test().then(
        () => undefined,
        (e: unknown) => e,
      );
    assert.ok(refused instanceof ThrottledError, String(refused));
    assert.equal(refused.status, 429);
    assert.ok(refused.retryAfterSeconds !== undefined && refused.retryAfterSeconds >= 1);
    assert.match(refused.message, /too many test events and resends/);
    await sandbox.advanceClock(refused.retryAfterSeconds);
    assert.match((await c.webhook.test()).delivery_id, /^msg_/);
  });

  it('delete removes it; then get is NotFoundError again', async () => {
    await c.webhook.delete();
    await assert.rejects(c.webhook.get(), NotFoundError);
  });

  it('500 and 503, which this server gives only when broken, map to their classes (canned answers)', async () => {
    const make = (fetch: typeof globalThis.fetch) => client(t, { fetch }).webhook;
    const internal = await make(cannedFetch(500, { error: 'INTERNAL_ERROR' }))
      .get()
      .catch((e: unknown) => e);
    assert.ok(internal instanceof InternalError);
    assert.equal(internal.requestId, 'req-1');
    const away = await make(
      cannedFetch(
        503,
        { error: 'SERVICE_UNAVAILABLE', message: 'the database is away' },
        { 'retry-after': '2' },
      ),
    )
      .set({ url: 'http://127.0.0.1/x' })
      .catch((e: unknown) => e);
    assert.ok(away instanceof ServiceUnavailableError);
    assert.equal(away.retryAfterSeconds, 2);
    assert.match(away.message, /the database is away/);
  });
});
