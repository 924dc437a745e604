/**
 * The extension API's delivery log and resend, black-box: GET /ext/webhook/deliveries lists the log
 * newest first; resend sends a logged message again as a new one, and answers 404 for an unknown or
 * another account's delivery; DELETE removes the webhook, and ends a message waiting for a retry.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eventually } from '../../support/eventually.ts';
import {
  answer,
  LOCK_A,
  OTHER,
  OTHER_KEY,
  OWNER_KEY,
  startServer,
  type TestServer,
} from '../../support/server.ts';
import { type Receiver, startReceiver } from '../../support/webhook-receiver.ts';
import {
  deliveryLog,
  dispatcherIdle,
  extPost,
  FLAGS,
  type LogEntry,
  putWebhook,
  sendTestEvent,
  waitForOutcome,
} from '../../support/webhooks.ts';
import { expectAnswer, expectExtError } from './helpers.ts';

const VALID = { url: 'http://127.0.0.1:9/hook/{device_id}/{state}' };

describe('/ext/webhook', () => {
  let t: TestServer;
  let receiver: Receiver;
  let firstSecret: string;
  let rotated: string;
  let testDelivery: string;
  before(async () => {
    receiver = await startReceiver();
    t = await startServer({ flags: FLAGS });
    // Two test events delivered and logged, the secret rotated between them (as webhook-secret.test.ts does).
    firstSecret = String((await putWebhook(t, { url: `${receiver.url}/b/{device_id}/{state}` })).secret);
    testDelivery = await sendTestEvent(t);
    await waitForOutcome(t, testDelivery);
    await eventually('the test event to arrive', () => receiver.requests.length === 1);
    rotated = String((await extPost(t, '/webhook/rotate-secret')).secret);
    await waitForOutcome(t, await sendTestEvent(t));
    await eventually('the second test event to arrive', () => receiver.requests.length === 2);
  });
  after(async () => {
    await t.close();
    await receiver.close();
  });

  describe('the delivery log, resend and DELETE, in order', () => {
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
      await dispatcherIdle(t, [OWNER_KEY, OTHER_KEY]);
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
    const entry = await eventually('the first attempt logged', async () => {
      const [newest] = await deliveryLog(t);
      return newest?.attempts === 1 && newest;
    });
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
    // Past the retry's time: the dispatcher looks at once (the clock answers after it has) and finds
    // nothing to send.
    const clock = await t.request('/_sim/clock', { method: 'POST', json: { advance_seconds: 60 } });
    assert.equal(clock.status, 200);
    await dispatcherIdle(t);
    assert.equal(receiver.requests.length, 1);
    for (const request of receiver.requests)
      assert.match(String(request.headers['webhook-signature']), /^v1,/);
  });
});
