/**
 * Webhook endpoints, black-box: an endpoint receives the events it asked for (type prefix, lock
 * filter), only its own account's, each as GET /ext/events lists it, signed with its own secret
 * (both secrets during a rotation), with the event id as webhook-id; the API Settings webhook is
 * untouched by them.
 */
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import {
  LOCK_A,
  LOCK_B,
  OTHER_KEY,
  OTHER_LOCK,
  simLockOk,
  startServer,
  type TestServer,
} from '../../support/server.ts';
import { type Receiver, startReceiver } from '../../support/webhook-receiver.ts';
import { FLAGS, putWebhook } from '../../support/webhooks.ts';
import { header, settle, signatureEntries, verifyStandardWebhook } from '../webhooks/helpers.ts';
import { createEndpoint, listedEvents, waitForEndpointLog } from './helpers.ts';

describe('webhook endpoints: what is delivered', () => {
  let receiver: Receiver;
  let t: TestServer | undefined;
  before(async () => {
    receiver = await startReceiver();
  });
  after(() => receiver.close());
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  const to = (path: string) => receiver.requests.filter((r) => r.url === path);

  it('delivers matching events only, each as /ext/events lists it, signed, webhook-id the event id', async () => {
    t = await startServer({ flags: FLAGS });
    const all = await createEndpoint(t, { url: `${receiver.url}/all` });
    const lockA = await createEndpoint(t, {
      url: `${receiver.url}/a`,
      types: ['lock.'],
      device_ids: [LOCK_A],
    });
    const unlocked = await createEndpoint(t, { url: `${receiver.url}/unlocked`, types: ['lock.unlocked'] });
    assert.match(all.secret, /^whsec_/);
    assert.equal(all.retries, true);
    // The other account's lock and an owner's lock move.
    await simLockOk(t, OTHER_LOCK, { locked: false });
    await simLockOk(t, LOCK_B, { locked: true });
    await simLockOk(t, LOCK_A, { locked: false });
    await waitForEndpointLog(t, lockA.id, 'lock A delivered', (log) =>
      log.some((e) => e.status === 'delivered'),
    );
    await waitForEndpointLog(
      t,
      all.id,
      'all delivered',
      (log) => log.length >= 2 && log.every((e) => e.status === 'delivered'),
    );
    await waitForEndpointLog(
      t,
      unlocked.id,
      'unlocked delivered',
      (log) => log.length >= 1 && log.every((e) => e.status === 'delivered'),
    );

    const events = (await listedEvents(t)).filter(
      (e) => e.type === 'lock.locked' || e.type === 'lock.unlocked',
    );
    assert.deepEqual(
      events.map((e) => [e.type, e.device_id]),
      [
        ['lock.locked', LOCK_B],
        ['lock.unlocked', LOCK_A],
      ],
    );
    const [lockedB, unlockedA] = events;
    // `all` got both lock events (and the endpoints' own creation came before it existed, or not at all).
    const toAll = to('/all').filter((r) => JSON.parse(r.body).type.startsWith('lock.'));
    assert.deepEqual(
      toAll.map((r) => JSON.parse(r.body)),
      [lockedB, unlockedA],
    );
    for (const r of toAll) {
      assert.equal(r.method, 'POST');
      assert.equal(header(r.headers, 'content-type'), 'application/json');
      assert.equal(header(r.headers, 'webhook-id'), JSON.parse(r.body).id);
      assert.equal(header(r.headers, 'lockcloud-event'), JSON.parse(r.body).type);
      assert.ok(verifyStandardWebhook(all.secret, r.headers, r.body), 'signed with the endpoint secret');
      assert.ok(!verifyStandardWebhook(lockA.secret, r.headers, r.body), "not with another endpoint's");
    }
    assert.deepEqual(
      to('/a').map((r) => JSON.parse(r.body)),
      [unlockedA],
    );
    assert.deepEqual(
      to('/unlocked').map((r) => JSON.parse(r.body)),
      [unlockedA],
    );
    // No endpoint of the owner ever saw the other account's lock.
    assert.ok(!receiver.requests.some((r) => r.body.includes(OTHER_LOCK)));
  });

  it('signs with both secrets after a rotation, new first', async () => {
    t = await startServer({ flags: FLAGS });
    const made = await createEndpoint(t, { url: `${receiver.url}/rot`, types: ['lock.locked'] });
    const res = await t.request(`/ext/webhook-endpoints/${made.id}/rotate-secret`, {
      method: 'POST',
      key: 'owner-api-key-0001',
    });
    assert.equal(res.status, 200);
    const { secret } = (await res.json()) as { secret: string };
    assert.match(secret, /^whsec_/);
    assert.notEqual(secret, made.secret);
    await simLockOk(t, LOCK_B, { locked: true });
    await waitForEndpointLog(t, made.id, 'delivered', (log) => log.some((e) => e.status === 'delivered'));
    const [r] = to('/rot');
    assert.ok(r);
    assert.equal(signatureEntries(r.headers).length, 2);
    assert.ok(verifyStandardWebhook(secret, r.headers, r.body));
    assert.ok(verifyStandardWebhook(made.secret, r.headers, r.body));
    const [first] = signatureEntries(r.headers);
    const only = { ...r.headers, 'webhook-signature': first };
    assert.ok(verifyStandardWebhook(secret, only, r.body), 'the new secret signs first');
  });

  it('leaves the API Settings webhook as it was: its messages and log only its own', async () => {
    t = await startServer({ flags: FLAGS });
    await putWebhook(t, { url: `${receiver.url}/hook/{device_id}/{state}` });
    const ep = await createEndpoint(t, { url: `${receiver.url}/ep` });
    await simLockOk(t, LOCK_B, { locked: true });
    const log = await settle(t, 1);
    assert.deepEqual(
      log.map((e) => [e.event, e.device_id, e.url, e.status]),
      [['lock.state_changed', LOCK_B, `${receiver.url}/hook/${LOCK_B}/locked`, 'delivered']],
    );
    const hook = to(`/hook/${LOCK_B}/locked`);
    assert.equal(hook.length, 1);
    assert.equal(hook[0]?.body, `{"device_id":"${LOCK_B}","locked":true,"state":"locked"}`);
    assert.match(header(hook[0]?.headers ?? {}, 'webhook-id') ?? '', /^msg_[0-9a-f]{32}$/);
    await waitForEndpointLog(t, ep.id, 'endpoint delivered', (l) =>
      l.some((e) => e.event === 'lock.locked' && e.status === 'delivered'),
    );
    // The other account sees nothing of the owner's endpoints.
    const other = await t.request(`/ext/webhook-endpoints/${ep.id}`, { key: OTHER_KEY });
    assert.equal(other.status, 404);
  });
});
