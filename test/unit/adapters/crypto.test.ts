import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  cryptoRandom,
  DEFAULT_SCRYPT_COST,
  scryptHasher,
  sha256Hasher,
} from '../../../src/adapters/system/crypto.ts';

// A low work factor: these tests are about the format and the checks, not the cost.
const hasher = scryptHasher({ N: 1024, r: 8, p: 1 });

describe('scryptHasher', () => {
  it('uses at least the OWASP minimum by default', () => {
    assert.ok(DEFAULT_SCRYPT_COST.N >= 2 ** 17);
    assert.ok(DEFAULT_SCRYPT_COST.r >= 8);
    assert.ok(DEFAULT_SCRYPT_COST.p >= 1);
  });

  it('hashes to scrypt$N$r$p$salt$hash, salted: the same password never gives the same hash', async () => {
    const a = await hasher.hash('correct horse battery staple');
    const b = await hasher.hash('correct horse battery staple');
    assert.match(a, /^scrypt\$1024\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    assert.notEqual(a, b);
    assert.ok(!a.includes('correct horse'));
  });

  it('verifies the right password and refuses a wrong one', async () => {
    const stored = await hasher.hash('correct horse battery staple');
    assert.equal(await hasher.verify('correct horse battery staple', stored), true);
    for (const wrong of [
      'Correct horse battery staple',
      'correct horse battery stapl',
      '',
      ' correct horse battery staple',
    ]) {
      assert.equal(await hasher.verify(wrong, stored), false, JSON.stringify(wrong));
    }
  });

  it('verifies a hash made at another cost, which the hash itself records', async () => {
    const stronger = scryptHasher({ N: 2048, r: 8, p: 2 });
    const stored = await stronger.hash('pw-123456');
    assert.equal(await hasher.verify('pw-123456', stored), true);
  });

  it('treats a password the same in composed and decomposed Unicode', async () => {
    const stored = await hasher.hash('caf\u00e9');
    assert.equal(await hasher.verify('cafe\u0301', stored), true);
  });

  it('answers false, without throwing, for a stored hash that is garbage', async () => {
    const good = await hasher.hash('pw');
    const [, , , , salt, key] = good.split('$');
    const garbage = [
      '',
      'not-a-hash',
      'scrypt',
      'scrypt$',
      'scrypt$1024$8$1$$',
      `bcrypt$1024$8$1$${salt}$${key}`,
      `scrypt$abc$8$1$${salt}$${key}`,
      `scrypt$1000$8$1$${salt}$${key}`,
      `scrypt$0$8$1$${salt}$${key}`,
      `scrypt$-1024$8$1$${salt}$${key}`,
      `scrypt$1024$x$1$${salt}$${key}`,
      `scrypt$1024$8$0$${salt}$${key}`,
      `scrypt$1024$8$1.5$${salt}$${key}`,
      `scrypt$${2 ** 40}$8$1$${salt}$${key}`,
      `scrypt$1024$${2 ** 30}$1$${salt}$${key}`,
      `scrypt$1024$8$1$${salt}$${key?.slice(0, 10)}`,
      `scrypt$1024$8$1$${salt}$${key}$extra`,
      `scrypt$1024$8$1$!!!$${key}`,
    ];
    for (const stored of garbage) {
      assert.equal(await hasher.verify('pw', stored), false, stored);
    }
  });
});

describe('sha256Hasher', () => {
  it('is deterministic and hex', () => {
    const a = sha256Hasher.hash('test-api-key');
    assert.equal(a, sha256Hasher.hash('test-api-key'));
    assert.match(a, /^[0-9a-f]{64}$/);
  });

  it('is SHA-256 over UTF-8', () => {
    assert.equal(
      sha256Hasher.hash('abc'),
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    );
    assert.equal(sha256Hasher.hash(''), 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    assert.equal(sha256Hasher.hash('\u00e9'), sha256Hasher.hash(Buffer.from([0xc3, 0xa9]).toString('utf8')));
  });

  it('gives different hashes for different secrets', () => {
    const hashes = new Set(
      ['a', 'b', 'test-api-key', 'test-api-key ', 'Test-api-key'].map((s) => sha256Hasher.hash(s)),
    );
    assert.equal(hashes.size, 5);
  });
});

describe('cryptoRandom', () => {
  it('gives v4 UUIDs and base64url secrets of the asked size, never the same twice', () => {
    assert.match(
      cryptoRandom.uuid(),
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
    const secret = cryptoRandom.secret(16);
    assert.match(secret, /^[A-Za-z0-9_-]{22}$/);
    assert.equal(Buffer.from(secret, 'base64url').length, 16);
    assert.notEqual(cryptoRandom.secret(16), secret);
    assert.notEqual(cryptoRandom.uuid(), cryptoRandom.uuid());
  });
});
