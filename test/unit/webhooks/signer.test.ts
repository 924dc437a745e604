/** Standard Webhooks signatures, checked against HMACs computed here with node:crypto. */
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { describe, it } from 'node:test';
import { standardWebhooksSigner } from '../../../src/adapters/webhooks/signer.ts';

/** The signature as the Standard Webhooks specification defines it, computed independently. */
function expected(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

describe('standardWebhooksSigner', () => {
  it("matches the Standard Webhooks specification's published example", () => {
    const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    const signature = standardWebhooksSigner.sign(
      [secret],
      'msg_p5jXN8AQM9LWM0D4loKWxJek',
      1614265330,
      '{"test": 2432232314}',
    );
    assert.equal(signature, 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
    assert.equal(
      signature,
      expected(secret, 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, '{"test": 2432232314}'),
    );
  });

  it('signs id.timestamp.body with the base64 key of the secret', () => {
    const secret = `whsec_${Buffer.from('a known key of thirty-two bytes!').toString('base64')}`;
    const body = '{"device_id":"00000000-0000-4000-8000-00000000000a","locked":true,"state":"locked"}';
    const signature = standardWebhooksSigner.sign([secret], 'msg_1', 1700000000, body);
    assert.equal(signature, expected(secret, 'msg_1', 1700000000, body));
    // Each part is signed: another id, timestamp or body gives another signature.
    assert.notEqual(standardWebhooksSigner.sign([secret], 'msg_2', 1700000000, body), signature);
    assert.notEqual(standardWebhooksSigner.sign([secret], 'msg_1', 1700000001, body), signature);
    assert.notEqual(standardWebhooksSigner.sign([secret], 'msg_1', 1700000000, `${body} `), signature);
  });

  it('signs the empty body of a GET delivery', () => {
    const secret = standardWebhooksSigner.newSecret();
    assert.equal(standardWebhooksSigner.sign([secret], 'msg_get', 1, ''), expected(secret, 'msg_get', 1, ''));
  });

  it('gives two space-separated signatures for two secrets (the current one first)', () => {
    const current = standardWebhooksSigner.newSecret();
    const previous = standardWebhooksSigner.newSecret();
    const signature = standardWebhooksSigner.sign([current, previous], 'msg_x', 1700000000, '{}');
    const parts = signature.split(' ');
    assert.equal(parts.length, 2);
    assert.deepEqual(parts, [
      expected(current, 'msg_x', 1700000000, '{}'),
      expected(previous, 'msg_x', 1700000000, '{}'),
    ]);
    for (const part of parts) assert.match(part, /^v1,[A-Za-z0-9+/]{43}=$/);
  });

  it('makes fresh whsec_ secrets of 24 random bytes', () => {
    const a = standardWebhooksSigner.newSecret();
    const b = standardWebhooksSigner.newSecret();
    assert.match(a, /^whsec_[A-Za-z0-9+/]{32}$/);
    assert.equal(Buffer.from(a.slice('whsec_'.length), 'base64').length, 24);
    assert.notEqual(a, b);
  });
});
