import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MemoryRateLimitStore } from '../../../src/adapters/rate-limit/memory.ts';

const policy = { burst: 2, intervalMs: 1_000 };

describe('MemoryRateLimitStore', () => {
  it('keeps a bucket per key', async () => {
    const store = new MemoryRateLimitStore();
    assert.equal((await store.consume('a', policy, 0)).allowed, true);
    assert.equal((await store.consume('a', policy, 0)).allowed, true);
    assert.equal((await store.consume('a', policy, 0)).allowed, false);
    assert.equal((await store.consume('b', policy, 0)).allowed, true);
  });

  it('forgets keys whose bucket has refilled, so unbounded keys do not grow memory without bound', async () => {
    const store = new MemoryRateLimitStore();
    // 50,000 distinct keys, each used once, spread over time: only the recent ones may be held.
    for (let i = 0; i < 50_000; i++) await store.consume(`ip-${i}`, policy, i * 10);
    assert.ok(store.size <= 10_000, `held ${store.size} keys`);
    store.sweep(50_000 * 10 + policy.intervalMs);
    assert.equal(store.size, 0);
  });

  it('clear() forgets everything', async () => {
    const store = new MemoryRateLimitStore();
    await store.consume('a', policy, 0);
    await store.consume('a', policy, 0);
    await store.clear();
    assert.equal(store.size, 0);
    assert.equal((await store.consume('a', policy, 0)).allowed, true);
  });
});
