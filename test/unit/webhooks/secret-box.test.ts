/** The server key and the AES-256-GCM box that keeps webhook secrets sealed at rest. */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { aesGcmBox, loadServerKey, SERVER_KEY_FILE } from '../../../src/adapters/webhooks/secret-box.ts';
import { ConfigError, loadConfig } from '../../../src/config/config.ts';

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

/** Flips one bit of one base64url part of a sealed value. */
function tamper(sealed: string, part: 1 | 2 | 3): string {
  const parts = sealed.split('.');
  const bytes = Buffer.from(parts[part] ?? '', 'base64url');
  bytes[0] = (bytes[0] ?? 0) ^ 1;
  parts[part] = bytes.toString('base64url');
  return parts.join('.');
}

describe('aesGcmBox', () => {
  const box = aesGcmBox(randomBytes(32));

  it('opens what it sealed', () => {
    for (const plain of [SECRET, '', 'ünïcödé ✓', 'x'.repeat(1000)]) {
      assert.equal(box.open(box.seal(plain)), plain);
    }
  });

  it('seals as v1.<iv>.<tag>.<data>, with a fresh IV each time, never showing the plain text', () => {
    const a = box.seal(SECRET);
    const b = box.seal(SECRET);
    assert.match(a, /^v1\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]+$/);
    assert.notEqual(a, b);
    assert.equal(a.includes(SECRET), false);
    assert.equal(a.includes(SECRET.slice('whsec_'.length)), false);
  });

  it('detects tampering with the IV, the tag or the data', () => {
    const sealed = box.seal(SECRET);
    for (const part of [1, 2, 3] as const) {
      assert.throws(() => box.open(tamper(sealed, part)), Error, `part ${part}`);
    }
    assert.throws(() => box.open(sealed.slice(0, -2)), Error, 'truncated');
  });

  it('refuses what is not a sealed value', () => {
    for (const bad of ['', SECRET, 'v2.a.b.c', 'v1.a.b', 'v1..b.c']) {
      assert.throws(() => box.open(bad), Error, bad);
    }
  });

  it('cannot open with another key', () => {
    const sealed = box.seal(SECRET);
    assert.throws(() => aesGcmBox(randomBytes(32)).open(sealed));
  });

  it('takes only a 32-byte key', () => {
    assert.throws(() => aesGcmBox(randomBytes(16)), /32 bytes/);
    assert.throws(() => aesGcmBox(Buffer.alloc(0)), /32 bytes/);
  });
});

describe('loadServerKey', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'lockcloud-server-key-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('uses LOCKCLOUD_SECRET_KEY when given, and writes no key file then', () => {
    const given = randomBytes(32);
    const fresh = mkdtempSync(join(dir, 'env-'));
    assert.deepEqual(loadServerKey(given.toString('base64'), fresh), given);
    assert.throws(() => statSync(join(fresh, SERVER_KEY_FILE)), /ENOENT/);
  });

  it('refuses a LOCKCLOUD_SECRET_KEY that is not 32 bytes of base64', () => {
    for (const bad of ['', 'short', randomBytes(16).toString('base64'), randomBytes(33).toString('base64')]) {
      assert.throws(
        () => loadServerKey(bad, dir),
        /LOCKCLOUD_SECRET_KEY must be 32 bytes/,
        JSON.stringify(bad),
      );
    }
  });

  it('the configuration refuses a bad LOCKCLOUD_SECRET_KEY at start, naming it', () => {
    assert.throws(
      () => loadConfig({ LOCKCLOUD_SECRET_KEY: 'not-a-key' }, []),
      (error: unknown) =>
        error instanceof ConfigError && error.problems.some((p) => p.includes('LOCKCLOUD_SECRET_KEY')),
    );
    const key = randomBytes(32).toString('base64');
    assert.equal(loadConfig({ LOCKCLOUD_SECRET_KEY: key }, []).secretKey, key);
    assert.equal(loadConfig({ LOCKCLOUD_SECRET_KEY: '' }, []).secretKey, undefined);
  });

  it('without it, makes a key file readable by its owner only, and reuses it', () => {
    const fresh = mkdtempSync(join(dir, 'file-'));
    const first = loadServerKey(undefined, fresh);
    assert.equal(first.length, 32);
    const path = join(fresh, SERVER_KEY_FILE);
    assert.equal(statSync(path).mode & 0o777, 0o600);
    assert.equal(readFileSync(path, 'utf8').trim(), first.toString('base64'));
    const again = loadServerKey(undefined, fresh);
    assert.deepEqual(again, first);
    // So what was sealed before a restart opens after it.
    const sealed = aesGcmBox(first).seal(SECRET);
    assert.equal(aesGcmBox(again).open(sealed), SECRET);
  });

  it('keeps an existing key file as it is', () => {
    const fresh = mkdtempSync(join(dir, 'existing-'));
    const key = randomBytes(32);
    writeFileSync(join(fresh, SERVER_KEY_FILE), `${key.toString('base64')}\n`, { mode: 0o600 });
    assert.deepEqual(loadServerKey(undefined, fresh), key);
    assert.equal(readFileSync(join(fresh, SERVER_KEY_FILE), 'utf8'), `${key.toString('base64')}\n`);
  });
});
