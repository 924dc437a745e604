/**
 * The EventBus contract (event-bus-contract.ts) against both implementations: the process's own
 * (LocalEventBus, one server alone on its store) and Redis pub/sub (RedisEventBus, several server
 * processes), the latter on the machine's Redis under a prefix of each test's own.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { LocalEventBus } from '../../src/adapters/system/event-bus.ts';
import { RedisEventBus } from '../../src/adapters/system/redis-event-bus.ts';
import { REDIS_URL } from '../support/cluster.ts';
import { freePort } from '../support/mosquitto.ts';
import { type ClosableEventBus, eventBusContract } from './event-bus-contract.ts';

const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };

eventBusContract('local (one process)', {
  open: async () => new LocalEventBus(() => undefined),
  cleanup: async () => undefined,
});

const prefixes = new Map<ClosableEventBus, string>();
eventBusContract('Redis (several processes)', {
  async open() {
    const prefix = `lockcloud-test:events:${randomUUID()}:`;
    const bus = await RedisEventBus.connect(REDIS_URL, prefix, silent);
    prefixes.set(bus, prefix);
    return bus;
  },
  async peer(bus) {
    const prefix = prefixes.get(bus);
    if (prefix === undefined) throw new Error('not a bus this factory opened');
    const peer = await RedisEventBus.connect(REDIS_URL, prefix, silent);
    prefixes.set(peer, prefix);
    return peer;
  },
  async cleanup() {
    // Pub/sub stores nothing: the test's prefixes must hold no key, and no channel keeps a subscriber.
    const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
    try {
      for (const prefix of new Set(prefixes.values())) {
        const keys = await redis.keys(`${prefix}*`);
        if (keys.length > 0) await redis.del(...keys);
        assert.deepEqual(keys, [], `keys left under ${prefix}`);
        const channels = (await redis.call('PUBSUB', 'CHANNELS', `${prefix}*`)) as string[];
        assert.deepEqual(channels, [], `a subscription left under ${prefix}`);
      }
    } finally {
      prefixes.clear();
      // Closed before the next test counts the process's handles.
      const closed = new Promise((resolve) => redis.once('end', resolve));
      redis.disconnect();
      await closed;
    }
  },
});

describe('RedisEventBus: connecting and closing', () => {
  it('fails to connect with the reason Redis gave, and leaves nothing open', async () => {
    const closedPort = await freePort();
    const refusing = new URL(REDIS_URL);
    refusing.username = 'lockcloud-nobody';
    refusing.password = 'not-the-password';
    for (const [url, reason] of [
      [`redis://127.0.0.1:${closedPort}`, /ECONNREFUSED/],
      [refusing.toString(), /WRONGPASS/],
    ] as const) {
      const before = clientHandles();
      await assert.rejects(RedisEventBus.connect(url, `lockcloud-test:${randomUUID()}:`, silent), reason);
      // No socket, no reconnection timer: a server that cannot start exits at once.
      assert.deepEqual(clientHandles(), before, url);
    }
  });
});

/** The process's handles a client may leave (freePort's probe server, closing, is none of them). */
const clientHandles = (): string[] =>
  process
    .getActiveResourcesInfo()
    .filter((kind) => kind !== 'TCPServerWrap')
    .sort();
