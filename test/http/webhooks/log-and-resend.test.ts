/**
 * The delivery log (GET /ext/webhook/deliveries), what a failed delivery leaves in it (one attempt,
 * no retry by default), resending a logged message, and the test event.
 */
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import {
  advanceClock,
  answer,
  LOCK_A,
  LOCK_B,
  OWNER_KEY,
  simLockOk,
  startServer,
  type TestServer,
} from '../../support/server.ts';
import { type Receiver, startReceiver } from '../../support/webhook-receiver.ts';
import { deliveries, extPost, FLAGS, putWebhook } from '../../support/webhooks.ts';
import { header, serverNow, settle } from './helpers.ts';

describe('delivery log, failures, resend, test event', () => {
  let receiver: Receiver;
  let t: TestServer | undefined;
  before(async () => {
    receiver = await startReceiver();
  });
  after(async () => {
    await receiver.close();
  });
  afterEach(async () => {
    receiver.respond({});
    await t?.close();
    t = undefined;
  });

  it('an entry shows time, URL, method, status, latency and the webhook-id the receiver saw', async () => {
    t = await startServer({ flags: FLAGS });
    await putWebhook(t, { url: `${receiver.url}/log/{device_id}?state={state}`, method: 'POST' });
    const start = receiver.requests.length;
    const before = await serverNow(t);
    await simLockOk(t, LOCK_A, { locked: false });
    const [entry] = await settle(t, 1);
    const after = await serverNow(t);
    const [got] = (await receiver.waitFor(start + 1)).slice(start);
    assert.ok(entry && got);
    assert.equal(entry.id, header(got.headers, 'webhook-id'));
    assert.deepEqual(
      {
        event: entry.event,
        device_id: entry.device_id,
        url: entry.url,
        method: entry.method,
        status: entry.status,
        attempts: entry.attempts,
        response_status: entry.response_status,
        error: entry.error,
        next_attempt_at: entry.next_attempt_at,
      },
      {
        event: 'lock.state_changed',
        device_id: LOCK_A,
        url: `${receiver.url}/log/${LOCK_A}?state=unlocked`,
        method: 'POST',
        status: 'delivered',
        attempts: 1,
        response_status: 200,
        error: null,
        next_attempt_at: null,
      },
    );
    assert.ok(Number.isInteger(entry.latency_ms) && (entry.latency_ms ?? -1) >= 0, `${entry.latency_ms}`);
    for (const time of [entry.created_at, entry.last_attempt_at ?? '']) {
      assert.match(time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      const ms = Date.parse(time);
      assert.ok(ms >= before - 1 && ms <= after + 1, `${time} outside the change`);
    }
    assert.ok(Date.parse(entry.last_attempt_at ?? '') >= Date.parse(entry.created_at));
    // The log honours ?limit= and lists newest first.
    await simLockOk(t, LOCK_A, { locked: true });
    await settle(t, 2);
    const res = await t.request('/ext/webhook/deliveries?limit=1', { key: OWNER_KEY });
    const newest = (await res.json()) as { url: string }[];
    assert.deepEqual(
      newest.map((e) => e.url),
      [`${receiver.url}/log/${LOCK_A}?state=locked`],
    );
  });

  it('a 500 is logged failed with response_status 500 and is not retried; resend sends it again as a new message', async () => {
    t = await startServer({ flags: FLAGS });
    await putWebhook(t, { url: `${receiver.url}/fail/{device_id}/{state}` });
    const start = receiver.requests.length;
    receiver.respond({ status: 500 });
    await simLockOk(t, LOCK_A, { locked: false });
    const [failed] = await settle(t, 1);
    assert.ok(failed);
    assert.deepEqual(
      [failed.status, failed.attempts, failed.response_status, failed.error, failed.next_attempt_at],
      ['failed', 1, 500, 'HTTP 500', null],
    );
    assert.ok(Number.isInteger(failed.latency_ms));

    // Not retried: long past every retry delay, a new change of the same lock goes out, and nothing
    // of the failed message went before it (a waiting message of the lock would have).
    receiver.respond({});
    await advanceClock(t, 2 * 60 * 60);
    await simLockOk(t, LOCK_A, { locked: true });
    const afterSentinel = await settle(t, 2);
    const got = (await receiver.waitFor(start + 2)).slice(start);
    assert.deepEqual(
      got.map((r) => r.url),
      [`/fail/${LOCK_A}/unlocked`, `/fail/${LOCK_A}/locked`],
    );
    assert.deepEqual(
      afterSentinel.map((e) => [e.status, e.attempts]),
      [
        ['failed', 1],
        ['delivered', 1],
      ],
    );

    // Resend: a new message (new id) with the same content, to the receiver that now answers 200.
    const { delivery_id: resentId } = await extPost(t, `/webhook/deliveries/${failed.id}/resend`);
    assert.equal(typeof resentId, 'string');
    assert.notEqual(resentId, failed.id);
    const log = await settle(t, 3);
    const [resent] = (await receiver.waitFor(start + 3)).slice(start + 2);
    assert.ok(resent);
    assert.equal(header(resent.headers, 'webhook-id'), resentId);
    assert.equal(resent.url, `/fail/${LOCK_A}/unlocked`);
    assert.equal(resent.body, got[0]?.body);
    assert.deepEqual(JSON.parse(resent.body), { device_id: LOCK_A, locked: false, state: 'unlocked' });
    assert.deepEqual(
      log.map((e) => [e.id, e.status, e.response_status]),
      [
        [failed.id, 'failed', 500],
        [afterSentinel[1]?.id, 'delivered', 200],
        [resentId, 'delivered', 200],
      ],
    );
  });

  it('resend of a GET message keeps its state, also when the webhook is now a POST with {state}', async () => {
    t = await startServer({ flags: FLAGS });
    // A GET webhook whose URL does not carry the state.
    await putWebhook(t, { url: `${receiver.url}/locked/{device_id}`, method: 'GET' });
    const start = receiver.requests.length;
    receiver.respond({ status: 503 });
    await simLockOk(t, LOCK_B, { locked: true }); // LOCK_B starts unlocked
    const [failedLocked] = await settle(t, 1);
    await simLockOk(t, LOCK_B, { locked: false });
    const [, failedUnlocked] = await settle(t, 2);
    assert.ok(failedLocked && failedUnlocked);
    assert.equal(failedLocked.status, 'failed');
    receiver.respond({});

    // The same GET webhook: each resend goes to the same URL.
    await extPost(t, `/webhook/deliveries/${failedLocked.id}/resend`);
    await settle(t, 3);
    const [again] = (await receiver.waitFor(start + 3)).slice(start + 2);
    assert.deepEqual([again?.method, again?.url, again?.body], ['GET', `/locked/${LOCK_B}`, '']);

    // Now a POST webhook with {state}: the resent messages carry the state of the change they were.
    await putWebhook(t, { url: `${receiver.url}/now/{device_id}/{state}`, method: 'POST' });
    await extPost(t, `/webhook/deliveries/${failedLocked.id}/resend`);
    await settle(t, 4);
    await extPost(t, `/webhook/deliveries/${failedUnlocked.id}/resend`);
    await settle(t, 5);
    const resent = (await receiver.waitFor(start + 5)).slice(start + 3);
    assert.deepEqual(
      resent.map((r) => [r.method, r.url, JSON.parse(r.body)]),
      [
        ['POST', `/now/${LOCK_B}/locked`, { device_id: LOCK_B, locked: true, state: 'locked' }],
        ['POST', `/now/${LOCK_B}/unlocked`, { device_id: LOCK_B, locked: false, state: 'unlocked' }],
      ],
    );
  });

  it('POST /ext/webhook/test sends a test event: header lockcloud-event: test, logged as a test', async () => {
    t = await startServer({ flags: FLAGS });
    await putWebhook(t, { url: `${receiver.url}/test/{device_id}/{state}` });
    const start = receiver.requests.length;
    const { status, body } = await answer(
      await t.request('/ext/webhook/test', { method: 'POST', key: OWNER_KEY }),
    );
    assert.equal(status, 202);
    const deliveryId = (body as { delivery_id: string }).delivery_id;
    const [entry] = await settle(t, 1);
    const [got] = (await receiver.waitFor(start + 1)).slice(start);
    assert.ok(entry && got);
    assert.equal(header(got.headers, 'lockcloud-event'), 'test');
    assert.equal(header(got.headers, 'webhook-id'), deliveryId);
    // As for a real change of the account's first lock, in its current state (LOCK_A, locked).
    assert.equal(got.url, `/test/${LOCK_A}/locked`);
    assert.deepEqual(JSON.parse(got.body), { device_id: LOCK_A, locked: true, state: 'locked' });
    assert.deepEqual([entry.id, entry.event, entry.status], [deliveryId, 'test', 'delivered']);
    // A real change is marked as one.
    await simLockOk(t, LOCK_A, { locked: false });
    await settle(t, 2);
    const [real] = (await receiver.waitFor(start + 2)).slice(start + 1);
    assert.equal(header(real?.headers ?? {}, 'lockcloud-event'), 'lock.state_changed');
    assert.equal((await deliveries(t)).length, 2);
  });
});
