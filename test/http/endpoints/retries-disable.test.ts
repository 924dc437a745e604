/**
 * Webhook endpoints over time (the sandbox clock, never sleeps): retries on by default on the
 * webhook's schedule with the same webhook-id, one lock's messages in the log's order behind a
 * retry, resend from the delivery log, and an endpoint failing for 3 days disabled, its owner mailed
 * once, and enabled again by PATCH.
 */
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import {
  advanceClock,
  LOCK_A,
  LOCK_B,
  OWNER,
  OWNER_KEY,
  simLockOk,
  startServer,
  type TestServer,
} from '../../support/server.ts';
import { type Receiver, startReceiver } from '../../support/webhook-receiver.ts';
import { FLAGS } from '../../support/webhooks.ts';
import { header } from '../webhooks/helpers.ts';
import { createEndpoint, type EndpointAnswer, waitForEndpointLog } from './helpers.ts';

describe('webhook endpoints: retries, order, resend, disabling', () => {
  let receiver: Receiver;
  let t: TestServer | undefined;
  let failing = new Set<string>();
  before(async () => {
    receiver = await startReceiver((r) => ({ status: failing.has(r.url) ? 500 : 200 }));
  });
  after(() => receiver.close());
  afterEach(async () => {
    await t?.close();
    t = undefined;
    failing = new Set();
  });
  const to = (path: string) => receiver.requests.filter((r) => r.url === path);

  it('retries on the schedule, keeps one lock in order behind a retry, and resends', async () => {
    t = await startServer({ flags: FLAGS });
    failing = new Set(['/ord']);
    const ord = await createEndpoint(t, {
      url: `${receiver.url}/ord`,
      types: ['lock.locked', 'lock.unlocked'],
      device_ids: [LOCK_B],
    });
    const side = await createEndpoint(t, { url: `${receiver.url}/side`, device_ids: [LOCK_A] });
    await simLockOk(t, LOCK_B, { locked: true });
    let log = await waitForEndpointLog(t, ord.id, 'a first failed attempt', (l) => l[0]?.attempts === 1);
    const first = log[0];
    assert.ok(first);
    assert.equal(first.status, 'pending');
    assert.equal(first.response_status, 500);
    assert.equal(
      Date.parse(first.next_attempt_at ?? '') -
        Date.parse((first as { last_attempt_at?: string }).last_attempt_at ?? ''),
      5_000,
    );
    // A later change of the same lock waits behind the retry; another lock's goes at once, in a
    // pass that would have sent the waiting one too.
    await simLockOk(t, LOCK_B, { locked: false });
    await waitForEndpointLog(t, ord.id, 'the second message logged', (l) => l.length === 2);
    await simLockOk(t, LOCK_A, { locked: false });
    await waitForEndpointLog(t, side.id, 'the other lock delivered', (l) =>
      l.some((e) => e.event === 'lock.unlocked' && e.status === 'delivered'),
    );
    assert.equal(to('/ord').length, 1, 'nothing overtook the retry');
    await advanceClock(t, 5);
    await waitForEndpointLog(t, ord.id, 'the second attempt', (l) => l.some((e) => e.attempts === 2));
    failing = new Set();
    await advanceClock(t, 30);
    log = await waitForEndpointLog(
      t,
      ord.id,
      'both delivered',
      (l) => l.length === 2 && l.every((e) => e.status === 'delivered'),
    );
    const sent = to('/ord').map((r) => [JSON.parse(r.body).type, header(r.headers, 'webhook-id')]);
    assert.deepEqual(sent, [
      ['lock.locked', first.event_id],
      ['lock.locked', first.event_id],
      ['lock.locked', first.event_id],
      ['lock.unlocked', log[0]?.event_id],
    ]);
    // Resend: a new log entry, the same event and webhook-id.
    const res = await t.request(`/ext/webhook-endpoints/${ord.id}/deliveries/${first.id}/resend`, {
      method: 'POST',
      key: OWNER_KEY,
    });
    assert.equal(res.status, 202);
    const { delivery_id } = (await res.json()) as { delivery_id: string };
    assert.notEqual(delivery_id, first.id);
    log = await waitForEndpointLog(t, ord.id, 'the resend delivered', (l) =>
      l.some((e) => e.id === delivery_id && e.status === 'delivered'),
    );
    assert.equal(log[0]?.id, delivery_id);
    assert.equal(log[0]?.event_id, first.event_id);
    assert.equal(header(to('/ord').at(-1)?.headers ?? {}, 'webhook-id'), first.event_id);
    // Pages of the log, newest first.
    const page = await t.request(`/ext/webhook-endpoints/${ord.id}/deliveries?limit=2`, { key: OWNER_KEY });
    const { deliveries, next_cursor } = (await page.json()) as {
      deliveries: { id: string }[];
      next_cursor: string;
    };
    assert.equal(deliveries.length, 2);
    const rest = await t.request(
      `/ext/webhook-endpoints/${ord.id}/deliveries?limit=2&cursor=${next_cursor}`,
      { key: OWNER_KEY },
    );
    const second = (await rest.json()) as { deliveries: { id: string }[]; next_cursor: string | null };
    assert.deepEqual(
      [...deliveries, ...second.deliveries].map((d) => d.id),
      log.map((e) => e.id),
    );
    assert.equal(second.next_cursor, null);
  });

  it('disables an endpoint failing for 3 days, mails its owner once, and PATCH enabled:true enables it again', async () => {
    t = await startServer({ flags: FLAGS });
    failing = new Set(['/dead']);
    const dead = await createEndpoint(t, {
      url: `${receiver.url}/dead`,
      types: ['lock.locked', 'lock.unlocked'],
      retries: false,
    });
    const alive = await createEndpoint(t, {
      url: `${receiver.url}/alive`,
      types: ['lock.locked', 'lock.unlocked'],
    });
    const get = async (): Promise<EndpointAnswer> =>
      (await (
        await t?.request(`/ext/webhook-endpoints/${dead.id}`, { key: OWNER_KEY })
      )?.json()) as EndpointAnswer;
    const mails = async (): Promise<{ subject: string; text: string }[]> =>
      (await (await t?.request(`/_sim/mailbox?to=${encodeURIComponent(OWNER)}`))?.json()) as {
        subject: string;
        text: string;
      }[];
    await simLockOk(t, LOCK_B, { locked: true });
    await waitForEndpointLog(t, dead.id, 'a failure', (l) => l[0]?.status === 'failed');
    assert.notEqual((await get()).failing_since, null);
    await advanceClock(t, 3 * 24 * 3600 - 60);
    await simLockOk(t, LOCK_B, { locked: false });
    await waitForEndpointLog(
      t,
      dead.id,
      'a second failure',
      (l) => l.length === 2 && l.every((e) => e.status === 'failed'),
    );
    assert.equal((await get()).enabled, true, 'not yet 3 days');
    await advanceClock(t, 120);
    await simLockOk(t, LOCK_B, { locked: true });
    await waitForEndpointLog(
      t,
      dead.id,
      'a third failure',
      (l) => l.length === 3 && l.every((e) => e.status === 'failed'),
    );
    const disabled = await get();
    assert.equal(disabled.enabled, false);
    assert.equal(disabled.disabled_reason, 'every delivery failed for 3 days');
    // Further events go to the live endpoint only.
    await simLockOk(t, LOCK_B, { locked: false });
    await waitForEndpointLog(
      t,
      alive.id,
      'the live endpoint delivered 4',
      (l) => l.length === 4 && l.every((e) => e.status === 'delivered'),
    );
    await waitForEndpointLog(t, dead.id, 'nothing new for the disabled one', (l) => l.length === 3);
    const mailed = await mails();
    assert.equal(mailed.length, 1);
    assert.match(mailed[0]?.subject ?? '', /webhook endpoint was disabled/);
    assert.ok(mailed[0]?.text.includes(dead.id));
    const res = await t.request(`/ext/webhook-endpoints/${dead.id}`, {
      method: 'PATCH',
      key: OWNER_KEY,
      json: { enabled: true },
    });
    const enabled = (await res.json()) as EndpointAnswer;
    assert.deepEqual([enabled.enabled, enabled.disabled_at, enabled.failing_since], [true, null, null]);
    failing = new Set();
    await simLockOk(t, LOCK_B, { locked: true });
    await waitForEndpointLog(t, dead.id, 'delivered again', (l) => l[0]?.status === 'delivered');
    assert.equal((await mails()).length, 1, 'mailed once');
  });
});
