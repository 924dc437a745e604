/**
 * The Store contract for scoped, expiring API keys (issue 23): limits stored and read back wherever
 * a key is answered, null meaning no limit, and a use recorded with its client address. Each
 * backend's test file calls it beside storeContract().
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { NewApiKey, Store } from '../../src/app/ports.ts';
import type { ApiKey } from '../../src/domain/api-key.ts';
import { FULL_ACCESS, type KeyLimits } from '../../src/domain/scope.ts';
import { anAccount } from '../support/fixtures.ts';
import type { StoreFactory } from './store-contract.ts';

const LIMITED: KeyLimits = {
  scopes: ['locks:read', 'events:read'],
  lockIds: ['00000000-0000-4000-8000-0000000000b1', 'dev_2'],
  expiresAt: 1_767_225_600_123,
};

const newKey = (id: string, patch: Partial<NewApiKey> = {}): NewApiKey => ({
  id,
  accountId: 'acc-1',
  hash: `hash-${id}`,
  prefix: `lck_${id}`,
  createdAt: 10,
  ...patch,
});

const stored = (id: string, patch: Partial<ApiKey> = {}): ApiKey => ({
  id,
  accountId: 'acc-1',
  prefix: `lck_${id}`,
  createdAt: 10,
  lastUsedAt: null,
  limits: FULL_ACCESS,
  name: null,
  lastUsedIp: null,
  ...patch,
});

export function apiKeyStoreContract(backend: string, factory: StoreFactory): void {
  describe(`Store contract, API key limits: ${backend}`, () => {
    let store: Store;
    beforeEach(async () => {
      store = await factory.open();
      await store.accounts.insert(anAccount('acc-1'));
    });
    afterEach(() => factory.cleanup(store));

    it('stores scopes, locks, expiry and a name, and reads them back wherever a key is answered', async () => {
      await store.apiKeys.insert(newKey('full'));
      await store.apiKeys.insert(newKey('limited', { limits: LIMITED, name: 'Door panel', createdAt: 11 }));
      await store.apiKeys.insert(
        newKey('scoped', { limits: { ...FULL_ACCESS, scopes: ['keys:manage'] }, createdAt: 12 }),
      );
      const limited = stored('limited', { limits: LIMITED, name: 'Door panel', createdAt: 11 });
      const scoped = stored('scoped', { limits: { ...FULL_ACCESS, scopes: ['keys:manage'] }, createdAt: 12 });
      assert.deepEqual((await store.apiKeys.findByHash('hash-full'))?.key, stored('full'));
      assert.deepEqual((await store.apiKeys.findByHash('hash-limited'))?.key, limited);
      assert.deepEqual((await store.apiKeys.findByHash('hash-scoped'))?.key, scoped);
      assert.deepEqual(await store.apiKeys.listForAccount('acc-1'), [stored('full'), limited, scoped]);
      let removed: ApiKey | undefined;
      assert.equal(
        await store.apiKeys.remove('acc-1', 'limited', (key) => {
          removed = key;
          return [];
        }),
        true,
      );
      assert.deepEqual(removed, limited);
    });

    it('records a use with its client address; a use without one keeps the last address', async () => {
      await store.apiKeys.insert(newKey('k1', { limits: LIMITED }));
      assert.deepEqual((await store.apiKeys.findByHash('hash-k1'))?.key.lastUsedIp, null);
      await store.apiKeys.touch('k1', 99, '203.0.113.7');
      const used = (await store.apiKeys.findByHash('hash-k1'))?.key;
      assert.deepEqual([used?.lastUsedAt, used?.lastUsedIp], [99, '203.0.113.7']);
      await store.apiKeys.touch('k1', 120, '2001:db8::1');
      await store.apiKeys.touch('k1', 150);
      const again = (await store.apiKeys.findByHash('hash-k1'))?.key;
      assert.deepEqual([again?.lastUsedAt, again?.lastUsedIp], [150, '2001:db8::1']);
      assert.deepEqual((await store.apiKeys.listForAccount('acc-1'))[0]?.lastUsedIp, '2001:db8::1');
      assert.deepEqual(again?.limits, LIMITED, 'a use changes no limit');
    });
  });
}
