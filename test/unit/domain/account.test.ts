import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isEmail, normalizeEmail } from '../../../src/domain/account.ts';

describe('normalizeEmail', () => {
  it('lower-cases and trims, so case never makes two accounts', () => {
    assert.equal(normalizeEmail('  Owner@Example.COM '), 'owner@example.com');
    assert.equal(normalizeEmail('owner@example.com'), 'owner@example.com');
  });

  it('is idempotent', () => {
    for (const email of ['A@B.CO', ' x@y.z ', 'mixed.Case+Tag@Example.org']) {
      assert.equal(normalizeEmail(normalizeEmail(email)), normalizeEmail(email));
    }
  });
});

describe('isEmail', () => {
  it('accepts ordinary and unusual but real addresses', () => {
    for (const email of [
      'a@b.co',
      'first.last+tag@sub.example.com',
      "o'brien@example.ie",
      'x@example.museum',
    ]) {
      assert.equal(isEmail(email), true, email);
    }
  });

  it('refuses strings that are not of e-mail form', () => {
    for (const bad of [
      '',
      'plain',
      'a@b',
      '@b.co',
      'a@',
      'a@@b.co',
      'a b@c.de',
      'a@b .co',
      'a@b.co ',
      ' a@b.co',
      'a@b.',
    ]) {
      assert.equal(isEmail(bad), false, JSON.stringify(bad));
    }
  });

  it('accepts up to 254 characters and no more', () => {
    const local = 'a'.repeat(64);
    const domainOf = (length: number): string => `${'d'.repeat(length - 4)}.com`;
    const at254 = `${local}@${domainOf(254 - 65)}`;
    assert.equal(at254.length, 254);
    assert.equal(isEmail(at254), true);
    assert.equal(isEmail(`${local}@${domainOf(255 - 65)}`), false);
  });
});
