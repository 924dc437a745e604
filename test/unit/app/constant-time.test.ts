import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { sameBytes, sameSecret } from '../../../src/app/constant-time.ts';

describe('sameSecret', () => {
  it('answers exactly what === answers, for any two strings', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), fc.string({ unit: 'grapheme' }), (a, b) => {
        assert.equal(sameSecret(a, b), a === b);
        assert.equal(sameSecret(a, a), true);
      }),
      { numRuns: 500 },
    );
  });

  it('refuses a prefix, an extension, a change in the last character and a change of case', () => {
    const secret = 'lck_4v3ryR4nd0mK3yW1thL0t5OfB1t5';
    assert.equal(sameSecret(secret, secret), true);
    for (const wrong of [
      secret.slice(0, -1),
      `${secret}x`,
      `${secret.slice(0, -1)}6`,
      secret.toUpperCase(),
      '',
      ` ${secret}`,
    ]) {
      assert.equal(sameSecret(wrong, secret), false, JSON.stringify(wrong));
      assert.equal(sameSecret(secret, wrong), false, JSON.stringify(wrong));
    }
  });

  it('compares text, not its normalisation: a composed and a decomposed é differ', () => {
    assert.equal(sameSecret('caf\u00e9', 'cafe\u0301'), false);
    assert.equal(sameSecret('', ''), true);
  });
});

describe('sameBytes', () => {
  it('answers whether two byte strings are equal, for any bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), fc.uint8Array({ maxLength: 64 }), (a, b) => {
        assert.equal(sameBytes(a, b), Buffer.from(a).equals(Buffer.from(b)));
        assert.equal(sameBytes(a, Uint8Array.from(a)), true);
      }),
      { numRuns: 500 },
    );
  });

  it('answers false for different lengths instead of throwing as timingSafeEqual does', () => {
    assert.equal(sameBytes(Buffer.from('abc'), Buffer.from('abcd')), false);
    assert.equal(sameBytes(Buffer.alloc(0), Buffer.alloc(1)), false);
    assert.equal(sameBytes(Buffer.alloc(32, 7), Buffer.alloc(32, 7)), true);
  });
});
