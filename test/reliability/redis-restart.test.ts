/**
 * Issue 11, faults: Redis restarted under a running lockcloud (a server process on a redis-server of
 * the test's own), once stopped and once killed -9, while v3 reads, commands and result polls, v1
 * logins, reads and controls and sandbox changes run. Redis carries the rate limits and the event
 * bus; neither is worth an outage. No request may fail for it (no 500, and no 503 either: the limits
 * fall back to each process's memory and still limit), /readyz shows redis failing but stays 200
 * (degraded) and then ok, the metric counts the fallback, and afterwards the buckets and the event
 * bus are in Redis again, in the same process, without a restart.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import type { Seed } from '../../src/app/seed/schema.ts';
import { LIMITED_ENDPOINTS } from '../../src/domain/rate-limit.ts';
import { eventually } from '../support/eventually.ts';
import { MixedLoad } from '../support/mixed-load.ts';
import { OwnRedis } from '../support/own-redis.ts';
import { reportUnexpectedExit, type ServerProcess, startProcess } from '../support/process.ts';

const EMAIL = 'redis-restart@example.com';
const PASSWORD = 'redis-restart-password';
const KEY = 'redis-restart-api-key-0001';
const LOCKS = Array.from({ length: 6 }, (_, i) => `e0000000-0000-4000-8000-00000000000${i}`);
const PREFIX = `lockcloud-test-redis-restart-${randomUUID()}:`;

const seed: Seed = {
  accounts: [{ email: EMAIL, password: PASSWORD, verified: true }],
  api_keys: [{ account: EMAIL, key: KEY }],
  locks: LOCKS.map((device_id, i) => ({
    device_id,
    serial: `REDIS${i}`,
    nickname: `Door ${i}`,
    owner: EMAIL,
    latency_ms: i % 2 === 0 ? 0 : 200,
  })),
};

// Room for the test's clients (all from one address) on every v3 endpoint; the v1 login limits
// are not configurable and stay as they are: they show the fallback still limits.
const roomy = { burst: 1000, per_second: 1000 };
const rateLimits = {
  endpoints: Object.fromEntries(LIMITED_ENDPOINTS.map((e) => [e, { account: roomy, ip: roomy }])),
  commands: roomy,
};

/** Outages take seconds: a longer wait, polled less often. */
const until = (what: string, probe: () => boolean | Promise<boolean>): Promise<true> =>
  eventually(what, probe, { timeoutMs: 30_000, everyMs: 50 });

async function readiness(url: string): Promise<{ code: number; status: string; failing: string[] }> {
  const res = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(10_000) });
  const body = (await res.json()) as { status: string; failing?: string[] };
  return { code: res.status, status: body.status, failing: body.failing ?? [] };
}

async function fallbacks(metricsUrl: string | undefined): Promise<number> {
  assert.ok(metricsUrl, 'the server serves metrics');
  const text = await (await fetch(metricsUrl)).text();
  return Number(/^lockcloud_rate_limit_fallbacks_total (\d+)/m.exec(text)?.[1] ?? Number.NaN);
}

/** v1 logins with a wrong password for one e-mail until one is throttled; the answers' statuses. */
async function loginsUntilThrottled(url: string): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < 15 && !statuses.includes(429); i++) {
    const res = await fetch(`${url}/v1/accounts/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'guess@example.com', password: `guess-${i}` }),
    });
    statuses.push(res.status);
    await res.arrayBuffer();
  }
  return statuses;
}

describe('Redis restarted under a running lockcloud', () => {
  let redis: OwnRedis;
  let server: ServerProcess;
  let markStopping = (): void => undefined;
  const dir = mkdtempSync(join(tmpdir(), 'lockcloud-redis-restart-'));

  before(async () => {
    redis = await OwnRedis.create();
    writeFileSync(join(dir, 'seed.json'), JSON.stringify(seed));
    writeFileSync(join(dir, 'limits.json'), JSON.stringify(rateLimits));
    const flags = [
      '--data',
      dir,
      '--seed',
      join(dir, 'seed.json'),
      '--rate-limits',
      join(dir, 'limits.json'),
    ];
    server = await startProcess([...flags, '--command-timeout-ms', '3000', '--metrics-port', '0'], {
      REDIS_URL: redis.url,
      REDIS_PREFIX: PREFIX,
    });
    // A crash is told with what the process wrote.
    markStopping = reportUnexpectedExit(server);
  });
  after(async () => {
    markStopping();
    await server?.stop();
    await redis?.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps answering (limits from memory, never a 500 or 503) and goes back to Redis by itself', async () => {
    const raw = new Redis(redis.url, { maxRetriesPerRequest: 1 });
    raw.on('error', () => undefined);
    const load = new MixedLoad({
      url: server.url,
      apiKey: KEY,
      locks: LOCKS,
      email: EMAIL,
      password: PASSWORD,
    });
    await load.start(8);
    try {
      await until('traffic answered', () => load.verdicts.ok >= 50);
      assert.ok((await raw.keys(`${PREFIX}*`)).length > 0, 'the buckets are in Redis');
      assert.equal((await readiness(server.url)).status, 'ok');

      for (const outage of ['stop', 'kill -9'] as const) {
        if (outage === 'stop') await redis.stop();
        else await redis.kill9();
        await until(`${outage}: /readyz shows redis failing, still 200`, async () => {
          const ready = await readiness(server.url);
          return ready.code === 200 && ready.status === 'degraded' && ready.failing.includes('redis');
        });
        // Served meanwhile: the clients get their answers, not errors.
        const okBefore = load.verdicts.ok;
        await until(
          `${outage}: traffic served while Redis is away`,
          () => load.verdicts.ok >= okBefore + 100,
        );
        assert.ok((await fallbacks(server.metricsUrl)) > 0, 'the fallback is counted');
        // Limited meanwhile: the login limits answer from memory.
        const logins = await loginsUntilThrottled(server.url);
        assert.equal(logins.at(-1), 429, `throttled from memory: ${logins.join(' ')}`);

        await redis.start();
        await until(`${outage}: /readyz ok again`, async () => (await readiness(server.url)).status === 'ok');
        // The checks are Redis's again: the buckets reappear in the new (empty) Redis.
        await until(
          `${outage}: buckets in Redis again`,
          async () => (await raw.keys(`${PREFIX}*`)).length > 0,
        );
        const okAfter = load.verdicts.ok;
        await until(`${outage}: traffic served after`, () => load.verdicts.ok >= okAfter + 50);
      }
    } finally {
      await load.stop();
    }

    const report = `${load.table()}\nfailures: ${JSON.stringify(load.failures.slice(0, 5))}`;
    assert.equal(load.faults, 0, `every answer is documented:\n${report}`);
    assert.equal(load.verdicts.unavailable, 0, `Redis away is no reason for a 503:\n${report}`);
    const left = await load.settle(20_000);
    assert.deepEqual(
      left.map((t) => t.taskId),
      [],
      'every accepted command ends',
    );
    assert.deepEqual(load.badOutcomes, [], 'no task ends INTERNAL_ERROR');

    // The event bus subscribed again by itself and publishes again: a command's end reaches Redis.
    const [, subscribers] = (await raw.pubsub('NUMSUB', `${PREFIX}events`)) as [string, number];
    assert.ok(Number(subscribers) >= 1, 'the server is subscribed again');
    const listener = new Redis(redis.url);
    try {
      const heard: string[] = [];
      listener.on('message', (_channel: string, message: string) => heard.push(message));
      await listener.subscribe(`${PREFIX}events`);
      const res = await fetch(`${server.url}/public/lock/${LOCKS[0]}`, {
        method: 'POST',
        headers: { authorization: KEY, 'content-type': 'application/json' },
        body: JSON.stringify({ command: 'sync' }),
      });
      assert.equal(res.status, 200, await res.text());
      await until('an event published on Redis', () => heard.some((m) => m.includes('"kind":"task"')));
    } finally {
      listener.disconnect();
      raw.disconnect();
    }

    // One warning per outage, not one per request; the same process throughout.
    const warnings = server.stdout().match(/Redis unreachable: rate limits fall back/g) ?? [];
    assert.equal(warnings.length, 2, 'one fallback warning per outage');
    assert.equal(server.child.exitCode, null);
    assert.equal(server.child.signalCode, null);
  });
});
