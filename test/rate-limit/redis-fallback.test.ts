/**
 * RedisRateLimitStore with Redis gone (a redis-server of the test's own, killed and started again):
 * the checks fail open to the process's memory, still limiting, logged once and counted each time,
 * and go back to the shared buckets by themselves once Redis answers again.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { RedisRateLimitStore } from '../../src/adapters/rate-limit/redis.ts';
import { isBackendUnavailable } from '../../src/app/unavailable.ts';
import { eventually } from '../support/eventually.ts';
import { OwnRedis } from '../support/own-redis.ts';

const T0 = 1_732_190_000_000;
const policy = { burst: 2, intervalMs: 60_000 };

describe('RedisRateLimitStore while Redis is away', () => {
  let redis: OwnRedis;
  before(async () => {
    redis = await OwnRedis.create();
  });
  after(async () => {
    await redis.dispose();
  });

  it('limits from memory meanwhile, says so once, and shares the buckets again once Redis is back', async () => {
    const lines: { level: string; msg: string }[] = [];
    const log = (level: string) => (_o: object, msg: string) => void lines.push({ level, msg });
    let fallbacks = 0;
    const prefix = `lockcloud-test:${randomUUID()}:`;
    const store = new RedisRateLimitStore(redis.url, prefix, {
      logger: { info: log('info'), warn: log('warn'), error: log('error') },
      onFallback: () => fallbacks++,
    });
    const raw = new Redis(redis.url, { lazyConnect: true });
    raw.on('error', () => undefined);
    try {
      assert.equal((await store.consume('k', policy, T0)).allowed, true);
      assert.equal(fallbacks, 0);

      await redis.kill9();
      // Memory answers: the same policy, so the burst of 2 is spent and the third is refused.
      const during = [];
      for (let i = 0; i < 3; i++) during.push((await store.consume('away', policy, T0)).allowed);
      assert.deepEqual(during, [true, true, false]);
      assert.equal(fallbacks, 3);
      assert.deepEqual(
        lines.map((l) => l.level),
        ['warn'],
        'one line for the outage, not one per check',
      );
      // Peeks and remembered keys (login's failure budgets and known clients) answer from memory too.
      assert.equal((await store.peek('away', policy, T0)).allowed, false);
      await store.remember('seen', T0, 60_000);
      assert.equal(await store.remembers('seen', T0), true);
      assert.equal(fallbacks, 6);
      // A sandbox reset cannot empty the shared buckets: it says the backend is unavailable.
      await assert.rejects(store.clear(), (error) => isBackendUnavailable(error));

      await redis.start();
      await eventually(
        'Redis to answer checks again',
        async () => {
          const before = fallbacks;
          await store.consume('back', policy, T0);
          return fallbacks === before;
        },
        { timeoutMs: 15_000, everyMs: 50 },
      );
      assert.equal(lines.at(-1)?.level, 'info', 'its return is logged');
      await raw.connect();
      assert.deepEqual(await raw.keys(`${prefix}*`), [`${prefix}back`], 'the bucket is in Redis again');
    } finally {
      raw.disconnect();
      await store.close();
    }
  });
});
