/**
 * Standard Webhooks signatures, checked by a verifier written from the specification in
 * helpers.ts (verifyStandardWebhook), with the secret PUT /ext/webhook answered, with a secret given
 * in the seed, and across a rotation (both secrets sign for 24 h, then only the new one).
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, afterEach, before, describe, it } from 'node:test';
import {
  advanceClock,
  LOCK_A,
  OTHER,
  OTHER_KEY,
  OTHER_LOCK,
  simLockOk,
  startServer,
  type TestServer,
} from '../../support/server.ts';
import { type Received, type Receiver, startReceiver } from '../../support/webhook-receiver.ts';
import { extPost, FLAGS, putWebhook } from '../../support/webhooks.ts';
import {
  header,
  seedWithWebhooks,
  serverNow,
  settle,
  signatureEntries,
  verifyStandardWebhook,
} from './helpers.ts';

const SEED_SECRET = `whsec_${Buffer.from('a known secret for the seed, 32 b').toString('base64')}`;
const otherSecret = () => `whsec_${randomBytes(24).toString('base64')}`;

describe('webhook signatures (Standard Webhooks)', () => {
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

  /** Turns the lock by hand and answers the delivery the receiver got for it. */
  async function turn(
    server: TestServer,
    deviceId: string,
    locked: boolean,
    key?: string,
  ): Promise<Received> {
    const before = receiver.requests.length;
    const logged = (await settle(server, 0, key)).length;
    await simLockOk(server, deviceId, { locked });
    await settle(server, logged + 1, key);
    const got = await receiver.waitFor(before + 1);
    const delivery = got[before];
    assert.ok(delivery);
    return delivery;
  }

  it('a delivery verifies with the secret PUT answered; a wrong secret, body, id or timestamp does not', async () => {
    t = await startServer({ flags: FLAGS });
    const first = await putWebhook(t, { url: `${receiver.url}/sig/{state}` });
    assert.match(first.secret ?? '', /^whsec_[A-Za-z0-9+/]+={0,2}$/);
    const secret = first.secret ?? '';
    // Shown once: a later PUT keeps the secret and does not answer it.
    const again = await putWebhook(t, { url: `${receiver.url}/sig/{state}`, method: 'POST' });
    assert.equal(again.secret, undefined);

    const delivery = await turn(t, LOCK_A, false);
    const { headers, body } = delivery;
    assert.match(header(headers, 'webhook-id') ?? '', /^msg_[A-Za-z0-9]+$/);
    assert.match(header(headers, 'webhook-timestamp') ?? '', /^\d+$/);
    assert.equal(signatureEntries(headers).length, 1);
    assert.match(signatureEntries(headers)[0] ?? '', /^v1,[A-Za-z0-9+/]+={0,2}$/);
    // The timestamp is the server's time of the attempt, in seconds.
    const skew = Math.abs(Number(header(headers, 'webhook-timestamp')) - (await serverNow(t)) / 1000);
    assert.ok(skew < 300, `timestamp ${skew} s off the server clock`);

    assert.equal(verifyStandardWebhook(secret, headers, body), true);
    assert.equal(verifyStandardWebhook(otherSecret(), headers, body), false);
    assert.equal(verifyStandardWebhook(`${secret.slice(0, -4)}AAA=`, headers, body), false);
    assert.equal(verifyStandardWebhook(secret, headers, body.replace('unlocked', 'locked')), false);
    assert.equal(verifyStandardWebhook(secret, { ...headers, 'webhook-id': 'msg_other' }, body), false);
    const ts = Number(header(headers, 'webhook-timestamp'));
    assert.equal(
      verifyStandardWebhook(secret, { ...headers, 'webhook-timestamp': String(ts + 1) }, body),
      false,
    );
  });

  it('a GET delivery is signed over an empty body', async () => {
    t = await startServer({ flags: FLAGS });
    const { secret = '' } = await putWebhook(t, { url: `${receiver.url}/sig-get/{state}`, method: 'GET' });
    const delivery = await turn(t, LOCK_A, false);
    assert.equal(delivery.body, '');
    assert.equal(verifyStandardWebhook(secret, delivery.headers, ''), true);
    assert.equal(verifyStandardWebhook(otherSecret(), delivery.headers, ''), false);
  });

  it('a delivery verifies with the secret the seed gave', async () => {
    t = await startServer({
      flags: FLAGS,
      seed: seedWithWebhooks([
        { account: OTHER, url: `${receiver.url}/seeded/{state}`, secret: SEED_SECRET },
      ]),
    });
    const delivery = await turn(t, OTHER_LOCK, false, OTHER_KEY);
    assert.equal(delivery.url, '/seeded/unlocked');
    assert.equal(verifyStandardWebhook(SEED_SECRET, delivery.headers, delivery.body), true);
    assert.equal(verifyStandardWebhook(otherSecret(), delivery.headers, delivery.body), false);
  });

  it('after a rotation both secrets verify for 24 h; 25 h later only the new one does', async () => {
    t = await startServer({ flags: FLAGS });
    const { secret: old = '' } = await putWebhook(t, { url: `${receiver.url}/rot/{state}` });
    const before = await turn(t, LOCK_A, false);
    assert.equal(verifyStandardWebhook(old, before.headers, before.body), true);

    const rotated = await extPost(t, '/webhook/rotate-secret');
    const fresh = String(rotated.secret);
    assert.match(fresh, /^whsec_/);
    assert.notEqual(fresh, old);

    const during = await turn(t, LOCK_A, true);
    const entries = signatureEntries(during.headers);
    assert.equal(entries.length, 2);
    assert.equal(verifyStandardWebhook(fresh, during.headers, during.body), true);
    assert.equal(verifyStandardWebhook(old, during.headers, during.body), true);
    // Each secret matches its own entry: the two are different signatures, not one repeated.
    const only = (entry: string) => ({ ...during.headers, 'webhook-signature': entry });
    assert.deepEqual(
      entries.map((e) => [
        verifyStandardWebhook(fresh, only(e), during.body),
        verifyStandardWebhook(old, only(e), during.body),
      ]),
      [
        [true, false],
        [false, true],
      ],
    );
    assert.equal(verifyStandardWebhook(otherSecret(), during.headers, during.body), false);

    await advanceClock(t, 25 * 60 * 60);
    const later = await turn(t, LOCK_A, false);
    assert.equal(signatureEntries(later.headers).length, 1);
    assert.equal(verifyStandardWebhook(fresh, later.headers, later.body), true);
    assert.equal(verifyStandardWebhook(old, later.headers, later.body), false);
    // The timestamp follows the (moved) sandbox clock.
    const skew = Math.abs(Number(header(later.headers, 'webhook-timestamp')) - (await serverNow(t)) / 1000);
    assert.ok(skew < 300, `timestamp ${skew} s off the server clock`);
  });
});
