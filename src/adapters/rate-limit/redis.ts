import { Redis } from 'ioredis';
import type { RateLimitStore } from '../../app/ports.ts';
import type { RateDecision, RatePolicy } from '../../domain/rate-limit.ts';

/**
 * GCRA in Redis, one script call per request so the read-modify-write is atomic across every
 * server process. Time comes from the caller (the clock port), not Redis, so the sandbox clock
 * moves shared limits too. A key expires when its bucket is full again: idle keys cost nothing.
 * Mirrors domain/rate-limit.ts gcra().
 */
const GCRA_SCRIPT = `
-- Lua's tostring keeps 14 significant digits: at epoch milliseconds (13 digits) that rounds every
-- stored TAT to 0.1 ms and the error piles up with fractional intervals. 17 digits round-trip.
local function num(x) return string.format('%.17g', x) end
local now = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local interval = tonumber(ARGV[3])
local tat = tonumber(redis.call('GET', KEYS[1]) or now)
if tat < now then tat = now end
local nxt = tat + interval
local allow_at = nxt - burst * interval
if now < allow_at then
  return {0, 0, num(allow_at - now), num(tat - now)}
end
-- Kept a second past full: the key's expiry runs on Redis's clock, not the caller's, and a key
-- read after its bucket is full answers as a missing one would (tat < now counts as now).
redis.call('SET', KEYS[1], num(nxt), 'PX', math.ceil(nxt - now) + 1000)
return {1, math.floor((now - allow_at) / interval), '0', num(nxt - now)}
`;

interface GcraRedis extends Redis {
  lockcloudGcra(
    key: string,
    now: number,
    burst: number,
    intervalMs: number,
  ): Promise<[number, number, string, string]>;
}

export class RedisRateLimitStore implements RateLimitStore {
  private readonly redis: GcraRedis;

  /** `prefix` keeps this deployment's (or this test's) keys apart from everything else in Redis. */
  constructor(
    url: string,
    private readonly prefix: string,
  ) {
    const redis = new Redis(url, { lazyConnect: false, enableAutoPipelining: true, maxRetriesPerRequest: 2 });
    redis.defineCommand('lockcloudGcra', { numberOfKeys: 1, lua: GCRA_SCRIPT });
    this.redis = redis as GcraRedis;
  }

  async consume(key: string, policy: RatePolicy, now: number): Promise<RateDecision> {
    const [allowed, remaining, retryAfterMs, resetMs] = await this.redis.lockcloudGcra(
      this.prefix + key,
      now,
      policy.burst,
      policy.intervalMs,
    );
    return {
      allowed: allowed === 1,
      remaining,
      retryAfterMs: Number(retryAfterMs),
      resetMs: Number(resetMs),
    };
  }

  /** Deletes this prefix's keys only (SCAN, never FLUSHDB: the Redis may be shared). */
  async clear(): Promise<void> {
    let cursor = '0';
    do {
      const [next, keys] = await this.redis.scan(cursor, 'MATCH', `${this.prefix}*`, 'COUNT', 1000);
      if (keys.length > 0) await this.redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  }

  /** Readiness: resolves when Redis answers a PING. */
  async ping(): Promise<void> {
    // While the connection is down ioredis queues commands until it reconnects: a probe must not
    // wait for that, it must say so at once.
    if (this.redis.status !== 'ready') throw new Error(`connection ${this.redis.status}`);
    await this.redis.ping();
  }

  async close(): Promise<void> {
    // Connected, QUIT lets the commands in flight finish; away, it would wait for a reconnection.
    if (this.redis.status === 'ready') await this.redis.quit();
    else this.redis.disconnect();
  }
}
