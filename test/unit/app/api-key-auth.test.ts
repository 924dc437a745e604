/**
 * ApiKeyAuth: the principal carries the key's limits, an expired key is refused as an unknown one,
 * and last use is written once a minute or at once from a new client address.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiKeyAuth } from '../../../src/app/auth.ts';
import type { ApiKeyStore, Clock } from '../../../src/app/ports.ts';
import type { Account } from '../../../src/domain/account.ts';
import type { ApiKey } from '../../../src/domain/api-key.ts';
import { isDomainError } from '../../../src/domain/errors.ts';
import { FULL_ACCESS, type KeyLimits } from '../../../src/domain/scope.ts';

const account = { id: 'acc-1', deletedAt: null } as unknown as Account;

function setup(limits: KeyLimits = FULL_ACCESS) {
  let now = 1_000_000;
  let key: ApiKey = {
    id: 'key-1',
    accountId: account.id,
    prefix: 'lck_abc',
    createdAt: 0,
    lastUsedAt: null,
    limits,
    name: null,
    lastUsedIp: null,
  };
  const touches: { at: number; ip: string | undefined }[] = [];
  const store = {
    findByHash: async (hash: string) => (hash === 'h:secret' ? { key, account } : undefined),
    touch: async (_id: string, at: number, ip?: string) => {
      touches.push({ at, ip });
      key = { ...key, lastUsedAt: at, ...(ip === undefined ? {} : { lastUsedIp: ip }) };
    },
  } as unknown as ApiKeyStore;
  const auth = new ApiKeyAuth(store, { hash: (s) => `h:${s}` }, { now: () => now } as unknown as Clock);
  return { auth, touches, advance: (ms: number) => (now += ms), now: () => now };
}

const refusedAsUnknown = (error: unknown) => isDomainError(error) && error.code === 'UNAUTHENTICATED';

describe('ApiKeyAuth', () => {
  it('answers the key limits with the principal', async () => {
    const limits: KeyLimits = { scopes: ['locks:read'], lockIds: ['d1'], expiresAt: null };
    const { auth } = setup(limits);
    const principal = await auth.fromHeader('Bearer secret', '192.0.2.1');
    assert.deepEqual(principal.limits, limits);
    assert.equal(principal.accountId, account.id);
  });

  it('refuses an expired key as an unknown one, from the expiry on', async () => {
    const { auth, advance, now, touches } = setup({
      scopes: null,
      lockIds: null,
      expiresAt: 1_000_000 + 5_000,
    });
    await auth.fromKey('secret');
    advance(4_999);
    await auth.fromKey('secret');
    advance(1);
    assert.ok(now() >= 1_005_000);
    const before = touches.length;
    await assert.rejects(auth.fromKey('secret'), refusedAsUnknown);
    assert.equal(touches.length, before, 'a refused key is not touched');
    await assert.rejects(auth.fromKey('other'), refusedAsUnknown);
  });

  it('records no use of a request its check refuses, thrown or answered false', async () => {
    const { auth, touches } = setup({ scopes: ['locks:read'], lockIds: null, expiresAt: null });
    const refuse = () => {
      throw new Error('refused');
    };
    await assert.rejects(auth.fromHeader('secret', '192.0.2.1', refuse), /refused/);
    const principal = await auth.fromHeader('secret', '192.0.2.1', () => false);
    assert.equal(principal.keyId, 'key-1');
    assert.deepEqual(touches, []);
    await auth.fromHeader('secret', '192.0.2.1', () => true);
    assert.equal(touches.length, 1);
  });

  it('touches once a minute, and at once when the address changes, at most once a second', async () => {
    const { auth, advance, touches } = setup();
    await auth.fromHeader('secret', '192.0.2.1');
    advance(1_000);
    await auth.fromHeader('secret', '192.0.2.1');
    assert.deepEqual(touches, [{ at: 1_000_000, ip: '192.0.2.1' }]);
    advance(1_000);
    await auth.fromHeader('secret', '2001:db8::1');
    assert.deepEqual(touches.at(-1), { at: 1_002_000, ip: '2001:db8::1' });
    // Two addresses in turn within a second: no write per request.
    advance(10);
    await auth.fromHeader('secret', '192.0.2.1');
    await auth.fromHeader('secret', '2001:db8::1');
    assert.equal(touches.length, 2);
    advance(1_000);
    await auth.fromHeader('secret', '192.0.2.1');
    assert.deepEqual(touches.at(-1), { at: 1_003_010, ip: '192.0.2.1' });
    advance(60_000);
    await auth.fromHeader('secret', '192.0.2.1');
    assert.equal(touches.length, 4);
  });
});
