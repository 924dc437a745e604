/**
 * The RateLimitStore contract against a real Redis (127.0.0.1:6379, or REDIS_URL), each test under
 * its own random key prefix so runs never see each other, then what only Redis does: key expiry,
 * prefix isolation, and the Lua script agreeing with the domain's gcra() step for step.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, afterEach, before, beforeEach, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { RedisRateLimitStore } from '../../src/adapters/rate-limit/redis.ts';
import type { RateLimitStore } from '../../src/app/ports.ts';
import { gcra, type RatePolicy } from '../../src/domain/rate-limit.ts';
import { eventually } from '../support/eventually.ts';
import { rateLimitStoreContract } from './store-contract.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const T0 = 1_732_190_000_000;

const uniquePrefix = () => `lockcloud-test:${randomUUID()}:`;

rateLimitStoreContract('Redis', {
  open: async () => new RedisRateLimitStore(REDIS_URL, uniquePrefix()),
  async cleanup(store: RateLimitStore) {
    await store.clear();
    await store.close();
  },
});

describe('RedisRateLimitStore specifics', () => {
  let raw: Redis;
  let prefix: string;
  let store: RedisRateLimitStore;
  before(() => {
    raw = new Redis(REDIS_URL);
  });
  after(async () => {
    await raw.quit();
  });
  beforeEach(() => {
    prefix = uniquePrefix();
    store = new RedisRateLimitStore(REDIS_URL, prefix);
  });
  afterEach(async () => {
    await store.clear();
    await store.close();
  });

  it('keeps its keys under its prefix, and clear() deletes only those', async () => {
    const neighbour = new RedisRateLimitStore(REDIS_URL, uniquePrefix());
    try {
      const policy = { burst: 1, intervalMs: 60_000 };
      await store.consume('shared-name', policy, T0);
      await neighbour.consume('shared-name', policy, T0);
      // Same key name, other prefix: another bucket.
      assert.deepEqual(await raw.keys(`${prefix}*`), [`${prefix}shared-name`]);
      // Something else in the same Redis that is not a rate limit at all.
      const stranger = `${prefix.slice(0, -1)}-not-mine`;
      await raw.set(stranger, 'keep me', 'EX', 60);

      await store.clear();
      assert.deepEqual(await raw.keys(`${prefix}*`), []);
      assert.equal((await store.consume('shared-name', policy, T0)).allowed, true);
      assert.equal(
        (await neighbour.consume('shared-name', policy, T0)).allowed,
        false,
        "the other prefix's bucket survived the clear",
      );
      assert.equal(await raw.get(stranger), 'keep me');
      await raw.del(stranger);
    } finally {
      await neighbour.clear();
      await neighbour.close();
    }
  });

  it('clear() removes many keys (more than one SCAN page)', async () => {
    const policy = { burst: 1, intervalMs: 60_000 };
    await Promise.all(Array.from({ length: 2_500 }, (_, i) => store.consume(`k${i}`, policy, T0)));
    assert.equal((await raw.keys(`${prefix}*`)).length, 2_500);
    await store.clear();
    assert.equal((await raw.keys(`${prefix}*`)).length, 0);
  });

  it('gives every key an expiry: it lives only until its bucket is full again', async () => {
    const policy = { burst: 5, intervalMs: 60_000 };
    await store.consume('slow', policy, T0);
    await store.consume('slow', policy, T0);
    const pttl = await raw.pttl(`${prefix}slow`);
    // Two intervals spent: full again in 120 s (kept a second more: see the script).
    assert.ok(pttl > 110_000 && pttl <= 121_000, `PTTL ${pttl}`);
    // A refused request does not extend it.
    for (let i = 0; i < 10; i++) await store.consume('slow', { burst: 2, intervalMs: 60_000 }, T0);
    assert.ok((await raw.pttl(`${prefix}slow`)) <= 121_000);

    // A short bucket, in real time: gone from Redis once it is full.
    const quick = { burst: 3, intervalMs: 40 };
    await store.consume('quick', quick, Date.now());
    const quickTtl = await raw.pttl(`${prefix}quick`);
    assert.ok(quickTtl > 0 && quickTtl <= 1_040, `PTTL ${quickTtl}`);
    await eventually(
      'the key to go with its bucket',
      async () => (await raw.exists(`${prefix}quick`)) === 0,
      3_000,
    );
  });

  it('answers exactly as the domain gcra() (to the last bit) over a random sequence of times and policies', async () => {
    // Seeded, so a failure can be replayed.
    let seed = 20_240_611;
    const rand = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    // Policies as the settings file makes them: per_second may be fractional or give a fractional interval.
    const policies: RatePolicy[] = [
      { burst: 1, intervalMs: 1_000 },
      { burst: 3, intervalMs: 1_000 },
      { burst: 10, intervalMs: 1000 / 3 },
      { burst: 30, intervalMs: 200 },
      { burst: 7, intervalMs: 1000 / 7 },
      { burst: 100, intervalMs: 600 },
      { burst: 2, intervalMs: 1000 / 1.5 },
    ];
    const keys = ['a', 'b', 'c'];
    const tats = new Map<string, number>();
    let now = T0;
    const mismatches: string[] = [];
    for (let step = 0; step < 3_000 && mismatches.length < 5; step++) {
      // Mostly bursts at the same instant or a few ms apart, sometimes long pauses.
      const r = rand();
      now +=
        r < 0.4 ? 0 : r < 0.8 ? Math.floor(rand() * 50) : r < 0.97 ? Math.floor(rand() * 1_500) : 120_000;
      const key = keys[Math.floor(rand() * keys.length)] ?? 'a';
      // One policy per key most of the time, as in the app; sometimes another, which both must treat alike.
      const policy =
        rand() < 0.9
          ? (policies[keys.indexOf(key) * 2] ?? policies[0])
          : policies[Math.floor(rand() * policies.length)];
      if (policy === undefined) throw new Error('no policy');
      const expected = gcra(tats.get(key), now, policy);
      tats.set(key, expected.tat);
      const got = await store.consume(key, policy, now);
      const want = expected.decision;
      // Exactly: the stored TAT must round-trip, or errors pile up over fractional intervals.
      if (JSON.stringify(got) !== JSON.stringify(want)) {
        mismatches.push(
          `step ${step} key ${key} now +${now - T0} policy ${JSON.stringify(policy)}: redis ${JSON.stringify(got)} gcra ${JSON.stringify(want)}`,
        );
      }
    }
    assert.deepEqual(mismatches, []);
  });
});
