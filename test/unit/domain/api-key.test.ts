import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  API_KEY_PREFIX,
  displayPrefix,
  formatApiKey,
  keyFromAuthorizationHeader,
} from '../../../src/domain/api-key.ts';

describe('displayPrefix', () => {
  it('shows the first 10 characters of a generated key', () => {
    const key = formatApiKey('AbCdEfGhIjKlMnOpQrStUvWxYz012345');
    assert.equal(key.startsWith(API_KEY_PREFIX), true);
    assert.equal(displayPrefix(key), key.slice(0, 10));
  });

  it('never shows more than a third of a key, nor more than 10 characters, and always something', () => {
    for (let length = 1; length <= 80; length++) {
      const key = 'k'.repeat(length);
      const prefix = displayPrefix(key);
      assert.ok(prefix.length >= 1, `length ${length}`);
      assert.ok(prefix.length <= 10, `length ${length}`);
      assert.ok(prefix.length <= Math.max(1, Math.floor(length / 3)), `length ${length}: ${prefix.length}`);
    }
  });

  it('is the start of the key', () => {
    for (const key of ['test-api-key', 'owner-api-key-0001', 'lck_x', 'abcdefgh']) {
      assert.ok(key.startsWith(displayPrefix(key)), key);
    }
    assert.equal(displayPrefix('test-api-key'), 'test');
  });
});

describe('keyFromAuthorizationHeader', () => {
  it('takes a bare key as it is', () => {
    assert.equal(keyFromAuthorizationHeader('lck_abc123'), 'lck_abc123');
  });

  it('strips a Bearer prefix', () => {
    assert.equal(keyFromAuthorizationHeader('Bearer lck_abc123'), 'lck_abc123');
  });

  it('trims surrounding white space', () => {
    assert.equal(keyFromAuthorizationHeader('  lck_abc123 '), 'lck_abc123');
    assert.equal(keyFromAuthorizationHeader('Bearer  lck_abc123 '), 'lck_abc123');
  });

  it('answers undefined for a missing, empty or blank header, and a Bearer with nothing after it', () => {
    for (const header of [undefined, '', '   ', 'Bearer ', 'Bearer    ']) {
      assert.equal(keyFromAuthorizationHeader(header), undefined, JSON.stringify(header));
    }
  });

  it('strips only one prefix, and only "Bearer " with its space', () => {
    assert.equal(keyFromAuthorizationHeader('Bearer Bearer x'), 'Bearer x');
    assert.equal(keyFromAuthorizationHeader('Bearerx'), 'Bearerx');
  });
});
