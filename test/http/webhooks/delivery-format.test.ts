/**
 * What a delivery looks like on the wire (docs/decisions.md "Webhook"): {device_id} and {state} filled in
 * wherever they stand in the URL; a POST carries exactly {"device_id","locked","state"} as
 * application/json; a GET carries no body.
 */
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import {
  LOCK_A,
  LOCK_B,
  sendCommand,
  simLockOk,
  startServer,
  type TestServer,
  waitForTask,
} from '../../support/server.ts';
import { type Receiver, startReceiver } from '../../support/webhook-receiver.ts';
import { FLAGS, putWebhook } from '../../support/webhooks.ts';
import { header, settle } from './helpers.ts';

describe('webhook delivery format', () => {
  let receiver: Receiver;
  let t: TestServer | undefined;
  before(async () => {
    receiver = await startReceiver();
  });
  after(async () => {
    await receiver.close();
  });
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  it('POST: placeholders substituted everywhere, JSON body with exactly device_id, locked, state', async () => {
    t = await startServer({ flags: FLAGS });
    await putWebhook(t, {
      url: `${receiver.url}/post/{device_id}/{state}?device={device_id}&state={state}`,
      method: 'POST',
    });
    const before = receiver.requests.length;
    const res = await sendCommand(t, LOCK_A, 'unlock'); // LOCK_A starts locked
    const { task_id } = (await res.json()) as { task_id: string };
    assert.deepEqual(await waitForTask(t, task_id), { status: 'terminated', successful: true });
    await settle(t, 1);

    const [delivery] = (await receiver.waitFor(before + 1)).slice(before);
    assert.ok(delivery);
    assert.equal(delivery.method, 'POST');
    assert.equal(delivery.url, `/post/${LOCK_A}/unlocked?device=${LOCK_A}&state=unlocked`);
    assert.equal(header(delivery.headers, 'content-type'), 'application/json');
    const body = JSON.parse(delivery.body) as Record<string, unknown>;
    assert.deepEqual(Object.keys(body), ['device_id', 'locked', 'state']);
    assert.deepEqual(body, { device_id: LOCK_A, locked: false, state: 'unlocked' });
    assert.equal(header(delivery.headers, 'content-length'), String(Buffer.byteLength(delivery.body)));

    // And back: the other state, the same shape.
    await simLockOk(t, LOCK_A, { locked: true });
    await settle(t, 2);
    const [second] = (await receiver.waitFor(before + 2)).slice(before + 1);
    assert.ok(second);
    assert.equal(second.url, `/post/${LOCK_A}/locked?device=${LOCK_A}&state=locked`);
    assert.deepEqual(JSON.parse(second.body), { device_id: LOCK_A, locked: true, state: 'locked' });
  });

  it('GET: placeholders substituted, no body, no content type', async () => {
    t = await startServer({ flags: FLAGS });
    await putWebhook(t, { url: `${receiver.url}/get?id={device_id}&s={state}`, method: 'GET' });
    const before = receiver.requests.length;
    await simLockOk(t, LOCK_B, { locked: true }); // LOCK_B starts unlocked
    await settle(t, 1);

    const [delivery] = (await receiver.waitFor(before + 1)).slice(before);
    assert.ok(delivery);
    assert.equal(delivery.method, 'GET');
    assert.equal(delivery.url, `/get?id=${LOCK_B}&s=locked`);
    assert.equal(delivery.body, '');
    assert.equal(header(delivery.headers, 'content-type'), undefined);
    assert.equal(header(delivery.headers, 'transfer-encoding'), undefined);
    assert.ok(['0', undefined].includes(header(delivery.headers, 'content-length')));
    // Signed like any delivery (over an empty body).
    assert.match(header(delivery.headers, 'webhook-id') ?? '', /^msg_/);
    assert.match(header(delivery.headers, 'webhook-signature') ?? '', /^v1,/);
  });
});
