/**
 * The contract every RateLimitStore backend must meet (src/app/ports.ts). Each backend's test file
 * calls rateLimitStoreContract() with a way to open a fresh, empty store; the same assertions then
 * run against memory and Redis. Time is always the `now` argument: nothing here sleeps.
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { RateLimitStore } from '../../src/app/ports.ts';
import type { RatePolicy } from '../../src/domain/rate-limit.ts';

export interface RateLimitStoreFactory {
  open(): Promise<RateLimitStore>;
  /** clear() + close(), and whatever else open() made. */
  cleanup(store: RateLimitStore): Promise<void>;
}

// A realistic epoch time: Redis keeps numbers as strings, and 13-digit times are where precision bites.
const T0 = 1_732_190_000_000;
const policy: RatePolicy = { burst: 3, intervalMs: 1_000 };

async function consumeMany(store: RateLimitStore, key: string, n: number, now: number, p = policy) {
  const decisions = [];
  for (let i = 0; i < n; i++) decisions.push(await store.consume(key, p, now));
  return decisions;
}

export function rateLimitStoreContract(name: string, factory: RateLimitStoreFactory): void {
  describe(`RateLimitStore contract: ${name}`, () => {
    let store: RateLimitStore;
    beforeEach(async () => {
      store = await factory.open();
    });
    afterEach(() => factory.cleanup(store));

    it('allows the burst at once, then refuses with the wait until one more is allowed', async () => {
      const decisions = await consumeMany(store, 'k', 4, T0);
      assert.deepEqual(
        decisions.map((d) => d.allowed),
        [true, true, true, false],
      );
      const refused = decisions[3];
      assert.equal(refused?.retryAfterMs, 1_000);
      assert.equal(refused?.remaining, 0);
      // Full again once the three intervals already spent have passed.
      assert.equal(refused?.resetMs, 3_000);
      for (const allowed of decisions.slice(0, 3)) assert.equal(allowed.retryAfterMs, 0);
      // Part of the wait later, the wait is shorter by as much.
      const later = await store.consume('k', policy, T0 + 400);
      assert.equal(later.allowed, false);
      assert.equal(later.retryAfterMs, 600);
    });

    it('counts down what remains of the burst, and how long until it is full', async () => {
      const decisions = await consumeMany(store, 'k', 3, T0);
      assert.deepEqual(
        decisions.map((d) => [d.remaining, d.resetMs]),
        [
          [2, 1_000],
          [1, 2_000],
          [0, 3_000],
        ],
      );
      // One interval later one request's worth is back: it is spent, nothing remains.
      const next = await store.consume('k', policy, T0 + 1_000);
      assert.deepEqual([next.allowed, next.remaining, next.resetMs], [true, 0, 3_000]);
    });

    it('keeps each key apart', async () => {
      await consumeMany(store, 'a', 3, T0);
      assert.equal((await store.consume('a', policy, T0)).allowed, false);
      const b = await store.consume('b', policy, T0);
      assert.deepEqual([b.allowed, b.remaining], [true, 2]);
    });

    it('refills over time: one request per interval, the whole burst after burst x interval', async () => {
      await consumeMany(store, 'k', 3, T0);
      assert.equal((await store.consume('k', policy, T0 + 999)).allowed, false);
      assert.equal((await store.consume('k', policy, T0 + 1_000)).allowed, true);
      assert.equal((await store.consume('k', policy, T0 + 1_000)).allowed, false);
      const afterQuiet = await consumeMany(store, 'k', 4, T0 + 1_000 + 3_000);
      assert.deepEqual(
        afterQuiet.map((d) => d.allowed),
        [true, true, true, false],
      );
      // A long silence does not bank more than the burst.
      const afterHour = await consumeMany(store, 'k', 4, T0 + 3_600_000);
      assert.deepEqual(
        afterHour.map((d) => d.allowed),
        [true, true, true, false],
      );
    });

    it('never refuses a steady one request per interval (an hour of 1/s)', async () => {
      const steady: RatePolicy = { burst: 1, intervalMs: 1_000 };
      for (let i = 0; i < 3_600; i++) {
        const d = await store.consume('steady', steady, T0 + i * 1_000);
        if (!d.allowed) assert.fail(`request ${i} at +${i} s was refused`);
      }
      // ... while a second request within the interval is refused: the limit is real.
      assert.equal((await store.consume('steady', steady, T0 + 3_599_500)).allowed, false);
    });

    it('never refuses a steady rate under a fractional interval (per_second 3)', async () => {
      const third: RatePolicy = { burst: 2, intervalMs: 1000 / 3 };
      for (let i = 0; i < 3_000; i++) {
        // Integer milliseconds, as the clock gives them: 334 ms apart is just slower than the rate.
        const d = await store.consume('third', third, T0 + i * 334);
        if (!d.allowed) assert.fail(`request ${i} was refused`);
      }
    });

    it('clear() forgets every key', async () => {
      await consumeMany(store, 'a', 3, T0);
      await consumeMany(store, 'b', 3, T0);
      await store.clear();
      for (const key of ['a', 'b']) {
        const d = await store.consume(key, policy, T0);
        assert.deepEqual([d.allowed, d.remaining], [true, 2], key);
      }
    });

    it('peek() answers what consume() would, and spends nothing', async () => {
      const first = await store.peek('k', policy, T0);
      assert.deepEqual([first.allowed, first.remaining], [true, 2]);
      // Peeking again and again leaves the whole burst.
      for (let i = 0; i < 5; i++) await store.peek('k', policy, T0);
      await consumeMany(store, 'k', 2, T0);
      const last = await store.peek('k', policy, T0);
      assert.deepEqual([last.allowed, last.remaining], [true, 0]);
      await store.consume('k', policy, T0);
      const refused = await store.peek('k', policy, T0 + 400);
      assert.deepEqual([refused.allowed, refused.retryAfterMs, refused.resetMs], [false, 600, 2_600]);
      // Still refused by consume exactly as the peek said, and allowed once the wait is over.
      assert.equal((await store.consume('k', policy, T0 + 999)).allowed, false);
      assert.equal((await store.peek('k', policy, T0 + 1_000)).allowed, true);
      assert.equal((await store.consume('k', policy, T0 + 1_000)).allowed, true);
    });

    it('remembers a key until its end, moved later (never earlier) by each remember()', async () => {
      assert.equal(await store.remembers('seen', T0), false);
      await store.remember('seen', T0, 10_000);
      assert.equal(await store.remembers('seen', T0 + 9_999), true);
      assert.equal(await store.remembers('seen', T0 + 10_000), false);
      await store.remember('seen', T0 + 5_000, 10_000);
      assert.equal(await store.remembers('seen', T0 + 14_999), true);
      // A shorter remember does not cut it short.
      await store.remember('seen', T0 + 6_000, 1_000);
      assert.equal(await store.remembers('seen', T0 + 14_999), true);
      assert.equal(await store.remembers('other', T0), false);
      await store.clear();
      assert.equal(await store.remembers('seen', T0 + 1), false);
    });

    it('is atomic: 50 concurrent requests on one key with a burst of 10 allow exactly 10', async () => {
      const ten: RatePolicy = { burst: 10, intervalMs: 60_000 };
      const decisions = await Promise.all(Array.from({ length: 50 }, () => store.consume('hot', ten, T0)));
      assert.equal(decisions.filter((d) => d.allowed).length, 10);
      // Each allowed one saw a different remaining count: no two read the same state.
      assert.deepEqual(
        decisions
          .filter((d) => d.allowed)
          .map((d) => d.remaining)
          .sort((x, y) => x - y),
        [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
      );
    });

    it('is atomic across keys too: concurrent requests on 20 keys each allow exactly the burst', async () => {
      const five: RatePolicy = { burst: 5, intervalMs: 60_000 };
      const calls = Array.from({ length: 20 * 12 }, (_, i) => store.consume(`key-${i % 20}`, five, T0));
      const decisions = await Promise.all(calls);
      for (let k = 0; k < 20; k++) {
        const allowed = decisions.filter((d, i) => i % 20 === k && d.allowed).length;
        assert.equal(allowed, 5, `key-${k}`);
      }
    });
  });
}
