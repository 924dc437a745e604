/**
 * RedisEventBus against a Redis server of the test's own, killed and started again: a bus closed
 * while Redis is away closes at once, and nothing reconnects behind its back. (The contract itself
 * runs on the machine's Redis: event-bus.test.ts.)
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { RedisEventBus } from '../../src/adapters/system/redis-event-bus.ts';
import { eventually } from '../support/eventually.ts';
import { OwnRedis } from '../support/own-redis.ts';

const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };

describe('RedisEventBus when its Redis goes away', () => {
  it('closes at once while Redis is away, and is heard from again after a restart only if open', async () => {
    const redis = await OwnRedis.create();
    try {
      const prefix = `lockcloud-test:${randomUUID()}:`;
      const bus = await RedisEventBus.connect(redis.url, prefix, silent);
      await redis.kill9();
      await eventually('the bus to notice', async () =>
        bus.ping().then(
          () => false,
          () => true,
        ),
      );
      // Closing does not wait for a reconnection that will not come.
      await bus.close();
      await redis.start();
      const watcher = new Redis(redis.url);
      try {
        // Nothing reconnects behind the closed bus's back: no subscriber comes back on its channel.
        await eventually('Redis to answer', async () => (await watcher.ping()) === 'PONG');
        assert.deepEqual(await watcher.call('PUBSUB', 'NUMSUB', `${prefix}events`), [`${prefix}events`, 0]);
      } finally {
        watcher.disconnect();
      }
    } finally {
      await redis.dispose();
    }
  });
});
