import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MemoryRateLimitStore } from '../../src/adapters/rate-limit/memory.ts';
import type { RateLimitStore } from '../../src/app/ports.ts';
import { DEFAULT_RATE_LIMITS, excessPolicy } from '../../src/domain/rate-limit.ts';
import { rateLimitStoreContract } from './store-contract.ts';

rateLimitStoreContract('memory', {
  open: async () => new MemoryRateLimitStore(),
  async cleanup(store: RateLimitStore) {
    await store.clear();
    await store.close();
  },
});

describe('MemoryRateLimitStore: memory stays bounded', () => {
  const T0 = 1_732_190_000_000;
  const endpoint = 'GET /public/lock/{device_id}';
  const limits = DEFAULT_RATE_LIMITS.endpoints[endpoint];

  it('100,000 distinct client addresses, one request each, do not grow the store without bound', async () => {
    const store = new MemoryRateLimitStore();
    // As the v3 limits spend them: the address's bucket and its excess bucket, a new address every
    // millisecond (1,000 new addresses a second, for 100 s).
    let most = 0;
    for (let i = 0; i < 100_000; i++) {
      const ip = `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
      const now = T0 + i;
      await store.consume(`ip:${endpoint}:${ip}`, limits.ip, now);
      if (i % 7 === 0) await store.consume(`excess:${ip}`, excessPolicy(DEFAULT_RATE_LIMITS.block), now);
      most = Math.max(most, store.size);
    }
    // Only recently active keys are held: nowhere near the 100,000 + 14,286 keys seen.
    assert.ok(most <= 25_000, `the store held up to ${most} keys`);

    // Once every bucket has refilled, ordinary traffic on one key lets the idle ones go.
    const later = T0 + 100_000 + DEFAULT_RATE_LIMITS.block.windowMs;
    for (let i = 0; i < 20_000; i++)
      await store.consume('ip:GET /public/locks:127.0.0.1', limits.ip, later + i);
    assert.ok(store.size <= 10, `still ${store.size} keys held after the flood ended`);
    await store.close();
  });

  it('a key whose bucket has refilled holds nothing: forgetting it changes no answer', async () => {
    const store = new MemoryRateLimitStore();
    const policy = { burst: 3, intervalMs: 1_000 };
    await store.consume('a', policy, T0);
    await store.consume('a', policy, T0);
    store.sweep(T0 + 2_000);
    assert.equal(store.size, 0);
    const d = await store.consume('a', policy, T0 + 2_000);
    assert.deepEqual([d.allowed, d.remaining], [true, 2]);
    // A bucket still refilling is kept.
    store.sweep(T0 + 2_500);
    assert.equal(store.size, 1);
    await store.close();
  });
});
