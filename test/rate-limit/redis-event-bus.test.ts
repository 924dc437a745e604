/**
 * The event bus several server processes share over Redis (127.0.0.1:6379), each test on its own
 * prefix: what one process announces, the others hear; 'here' listeners hear only their own process.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { RedisEventBus } from '../../src/adapters/system/redis-event-bus.ts';
import type { LockStateChanged } from '../../src/app/ports.ts';
import type { Task } from '../../src/domain/task.ts';
import { eventually } from '../support/eventually.ts';
import { OwnRedis } from '../support/own-redis.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };

const task: Task = {
  id: 'task-1',
  accountId: 'acc-1',
  deviceId: '00000000-0000-4000-8000-0000000000c1',
  command: 'unlock',
  status: 'terminated',
  outcome: { successful: true },
  createdAt: 1,
  deadline: 15_001,
  endedAt: 20,
};
const change: LockStateChanged = { deviceId: task.deviceId, ownerId: 'acc-1', locked: false, at: 20 };

/**
 * Resolves once `to` has received everything published on its channel before now by `from` (and,
 * Redis running one command at a time, by anyone before `from` published): a state change from
 * `from` is heard by `to`. A subscriber gets a channel's messages in the order Redis ran them.
 */
async function heardAllBefore(from: RedisEventBus, to: RedisEventBus): Promise<void> {
  const marker = { ...change, deviceId: randomUUID() };
  let heard = false;
  const stop = to.onLockStateChanged((e) => {
    if (e.deviceId === marker.deviceId) heard = true;
  });
  try {
    from.lockStateChanged(marker);
    await eventually('a marker', () => heard);
  } finally {
    stop();
  }
}

describe('RedisEventBus', () => {
  let prefix: string;
  let a: RedisEventBus;
  let b: RedisEventBus;

  beforeEach(async () => {
    prefix = `lockcloud-test:${randomUUID()}:`;
    a = await RedisEventBus.connect(REDIS_URL, prefix, silent);
    b = await RedisEventBus.connect(REDIS_URL, prefix, silent);
  });
  afterEach(async () => {
    await a.close();
    await b.close();
  });

  it("delivers a task's end to every process, once each", async () => {
    const heardA: Task[] = [];
    const heardB: Task[] = [];
    a.onTaskEnded((t) => heardA.push(t));
    b.onTaskEnded((t) => heardB.push(t));
    a.taskEnded(task);
    assert.deepEqual(heardA, [task], 'its own process hears it at once');
    assert.deepEqual(await eventually('task end on b', () => heardB[0]), task);
    // Everything a published has reached b, and a has received its own event back from Redis.
    await heardAllBefore(a, b);
    await heardAllBefore(b, a);
    assert.equal(heardA.length, 1, 'no echo of its own event');
    assert.equal(heardB.length, 1);
  });

  it("keeps a 'here' listener to its own process's state changes", async () => {
    const here: LockStateChanged[] = [];
    const everywhere: LockStateChanged[] = [];
    b.onLockStateChanged((e) => here.push(e), 'here');
    b.onLockStateChanged((e) => everywhere.push(e));
    a.lockStateChanged(change);
    assert.deepEqual(await eventually('state change on b', () => everywhere[0]), change);
    assert.equal(here.length, 0);
    b.lockStateChanged({ ...change, locked: true });
    assert.deepEqual(
      here.map((e) => e.locked),
      [true],
    );
  });

  it('keeps deployments on other prefixes apart, and drops what is not an event', async () => {
    const otherPrefix = `lockcloud-test:${randomUUID()}:`;
    const other = await RedisEventBus.connect(REDIS_URL, otherPrefix, silent);
    const otherTwin = await RedisEventBus.connect(REDIS_URL, otherPrefix, silent);
    const heard: Task[] = [];
    other.onTaskEnded((t) => heard.push(t));
    const raw = new Redis(REDIS_URL);
    try {
      a.taskEnded(task);
      await raw.publish(`${prefix}events`, 'not json');
      await raw.publish(`${prefix}events`, JSON.stringify({ from: 'x', kind: 'task', event: { id: 1 } }));
      const heardB: Task[] = [];
      b.onTaskEnded((t) => heardB.push(t));
      b.taskEnded({ ...task, id: 'task-2' });
      // What a and b published has reached Redis (the other heard it); then the other prefix's own
      // channel carries a marker: had any of the above reached it, it would have come first.
      await heardAllBefore(a, b);
      await heardAllBefore(b, a);
      await heardAllBefore(otherTwin, other);
      assert.deepEqual(heard, []);
    } finally {
      raw.disconnect();
      await other.close();
      await otherTwin.close();
    }
  });

  it('refuses to start when Redis cannot be reached', async () => {
    await assert.rejects(RedisEventBus.connect('redis://127.0.0.1:1', prefix, silent));
  });
});

describe('RedisEventBus readiness', () => {
  it('answers ping while connected, and fails once closed', async () => {
    const bus = await RedisEventBus.connect(REDIS_URL, `lockcloud-test:${randomUUID()}:`, silent);
    await bus.ping();
    await bus.close();
    await assert.rejects(bus.ping());
  });
});

describe('RedisEventBus across a Redis restart', () => {
  it('reconnects and subscribes again by itself: events flow between processes afterwards', async () => {
    const redis = await OwnRedis.create();
    const warnings: string[] = [];
    const logger = { ...silent, warn: (_o: object, msg: string) => void warnings.push(msg) };
    const p = `lockcloud-test:${randomUUID()}:`;
    const a = await RedisEventBus.connect(redis.url, p, logger);
    const b = await RedisEventBus.connect(redis.url, p, logger);
    try {
      const heard: Task[] = [];
      b.onTaskEnded((t) => heard.push(t));
      await redis.kill9();
      await eventually(
        'a failing ping',
        async () =>
          (await a.ping().then(
            () => false,
            () => true,
          )) || undefined,
      );
      // Announced while Redis is away: delivered here, and the loss for the others logged.
      const heardHere: Task[] = [];
      a.onTaskEnded((t) => heardHere.push(t), 'here');
      a.taskEnded({ ...task, id: 'during' });
      assert.deepEqual(
        heardHere.map((t) => t.id),
        ['during'],
      );
      await eventually('the lost event logged', () => warnings.find((w) => /not shared/.test(w)));

      await redis.start();
      await eventually(
        'both buses ready',
        async () => {
          const ok = await Promise.all([a.ping(), b.ping()]).then(
            () => true,
            () => false,
          );
          return ok || undefined;
        },
        10_000,
      );
      // The subscription is back without anyone asking: a's next event reaches b. Until it is, each
      // event is lost: one is sent each round, and looked for at the next.
      await eventually(
        'an event after the restart',
        () => {
          const found = heard.find((t) => t.id === 'after');
          if (!found) a.taskEnded({ ...task, id: 'after' });
          return found;
        },
        { timeoutMs: 10_000, everyMs: 50 },
      );
    } finally {
      await a.close();
      await b.close();
      await redis.dispose();
    }
  });
});
