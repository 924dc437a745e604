import { Redis } from 'ioredis';
import type { Logger, RateLimitStore, ReadinessCheck } from '../../app/ports.ts';
import { BackendUnavailableError } from '../../app/unavailable.ts';
import type { RateDecision, RatePolicy } from '../../domain/rate-limit.ts';
import { closed } from '../system/redis-closed.ts';
import { MemoryRateLimitStore } from './memory.ts';

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
-- A peek (ARGV[4] = 1) answers what the call would, and spends nothing.
if ARGV[4] == '1' then
  return {1, math.floor((now - allow_at) / interval), '0', num(nxt - now)}
end
-- Kept a second past full: the key's expiry runs on Redis's clock, not the caller's, and a key
-- read after its bucket is full answers as a missing one would (tat < now counts as now).
redis.call('SET', KEYS[1], num(nxt), 'PX', math.ceil(nxt - now) + 1000)
return {1, math.floor((now - allow_at) / interval), '0', num(nxt - now)}
`;

/** Moves a remembered key's end later, never earlier; expires with it (a second later, as above). */
const REMEMBER_SCRIPT = `
local ends = tonumber(ARGV[1]) + tonumber(ARGV[2])
local current = tonumber(redis.call('GET', KEYS[1]) or 0)
if ends > current then
  redis.call('SET', KEYS[1], string.format('%.17g', ends), 'PX', math.ceil(tonumber(ARGV[2])) + 1000)
end
return 1
`;

interface GcraRedis extends Redis {
  lockcloudGcra(
    key: string,
    now: number,
    burst: number,
    intervalMs: number,
    peek: 0 | 1,
  ): Promise<[number, number, string, string]>;
  lockcloudRemember(key: string, now: number, forMs: number): Promise<number>;
}

export interface RedisRateLimitOptions {
  readonly logger?: Logger;
  /** Called for every check answered from this process's memory because Redis could not answer. */
  readonly onFallback?: () => void;
  /** The longest one check may wait for Redis before memory answers it (default 1000 ms). */
  readonly commandTimeoutMs?: number;
}

const SILENT: Logger = { info: () => undefined, warn: () => undefined, error: () => undefined };

/**
 * While Redis cannot be reached, the limits fail open to this process's own memory (GCRA, the same
 * policies) instead of failing the request: a lock cloud that answers 500 (or 503) to every v3 call,
 * v1 login and dashboard login because its rate-limit cache is away turns a cache outage into a
 * full outage, and keeps people from opening their doors. Each process still limits what reaches
 * it, so N processes allow at most N times the budget for the outage; brute-force limits on logins
 * hold per process. One warning when the fallback starts and one line when Redis is back, a counter
 * per check answered from memory (lockcloud_rate_limit_fallbacks_total), and /readyz shows `redis`
 * failing meanwhile. Once Redis answers again the shared buckets are used again (the memory ones
 * are dropped: an account starts the shared budget where Redis left it).
 */
export class RedisRateLimitStore implements RateLimitStore {
  private readonly redis: GcraRedis;
  private readonly memory = new MemoryRateLimitStore();
  private readonly logger: Logger;
  /** Until the first connection, checks wait for it (start-up); after, a lost one is not waited for. */
  private everReady = false;
  private degraded = false;

  /** `prefix` keeps this deployment's (or this test's) keys apart from everything else in Redis. */
  constructor(
    url: string,
    private readonly prefix: string,
    private readonly options: RedisRateLimitOptions = {},
  ) {
    const redis = new Redis(url, {
      lazyConnect: false,
      enableAutoPipelining: true,
      maxRetriesPerRequest: 1,
      // A Redis that accepts the connection but does not answer (paused, overloaded) must not hold
      // the request: memory answers after this long.
      commandTimeout: options.commandTimeoutMs ?? 1000,
    });
    redis.defineCommand('lockcloudGcra', { numberOfKeys: 1, lua: GCRA_SCRIPT });
    redis.defineCommand('lockcloudRemember', { numberOfKeys: 1, lua: REMEMBER_SCRIPT });
    // ioredis reports every failed reconnection here; without a listener it prints each one. The
    // fallback logs the outage once (consume), readiness reports it.
    redis.on('error', () => undefined);
    redis.on('ready', () => {
      this.everReady = true;
    });
    this.redis = redis as GcraRedis;
    this.logger = options.logger ?? SILENT;
  }

  consume(key: string, policy: RatePolicy, now: number): Promise<RateDecision> {
    return this.gcra(key, policy, now, 0);
  }

  peek(key: string, policy: RatePolicy, now: number): Promise<RateDecision> {
    return this.gcra(key, policy, now, 1);
  }

  remember(key: string, now: number, forMs: number): Promise<void> {
    return this.shared(
      async () => {
        await this.redis.lockcloudRemember(this.prefix + key, now, forMs);
      },
      () => this.memory.remember(key, now, forMs),
    );
  }

  remembers(key: string, now: number): Promise<boolean> {
    return this.shared(
      async () => Number((await this.redis.get(this.prefix + key)) ?? 0) > now,
      () => this.memory.remembers(key, now),
    );
  }

  private gcra(key: string, policy: RatePolicy, now: number, peek: 0 | 1): Promise<RateDecision> {
    return this.shared(
      async () => {
        const [allowed, remaining, retryAfterMs, resetMs] = await this.redis.lockcloudGcra(
          this.prefix + key,
          now,
          policy.burst,
          policy.intervalMs,
          peek,
        );
        return {
          allowed: allowed === 1,
          remaining,
          retryAfterMs: Number(retryAfterMs),
          resetMs: Number(resetMs),
        };
      },
      async () => (peek === 1 ? this.memory.peek(key, policy, now) : this.memory.consume(key, policy, now)),
    );
  }

  /** Redis's answer, or this process's memory's while Redis cannot give one (see the class). */
  private async shared<T>(fromRedis: () => Promise<T>, fromMemory: () => Promise<T>): Promise<T> {
    if (this.everReady && this.redis.status !== 'ready') return this.fallBack(fromMemory, undefined);
    let answer: T;
    try {
      answer = await fromRedis();
    } catch (error) {
      return this.fallBack(fromMemory, error);
    }
    if (this.degraded) {
      this.degraded = false;
      await this.memory.clear();
      this.logger.info({}, 'Redis answers again: rate limits are shared across processes again');
    }
    return answer;
  }

  private fallBack<T>(fromMemory: () => Promise<T>, error: unknown): Promise<T> {
    if (!this.degraded) {
      this.degraded = true;
      this.logger.warn(
        { err: error, redis: this.redis.status },
        "Redis unreachable: rate limits fall back to this process's memory until it is back",
      );
    }
    this.options.onFallback?.();
    return fromMemory();
  }

  /**
   * Deletes this prefix's keys only (SCAN, never FLUSHDB: the Redis may be shared), and the memory
   * fallback's. With Redis away the shared buckets cannot be emptied: BackendUnavailableError
   * (a sandbox reset answers 503), rather than a reset that silently kept them.
   */
  async clear(): Promise<void> {
    await this.memory.clear();
    try {
      let cursor = '0';
      do {
        const [next, keys] = await this.redis.scan(cursor, 'MATCH', `${this.prefix}*`, 'COUNT', 1000);
        if (keys.length > 0) await this.redis.del(...keys);
        cursor = next;
      } while (cursor !== '0');
    } catch (error) {
      throw new BackendUnavailableError('redis', error);
    }
  }

  /** Readiness: resolves when Redis answers a PING. */
  async ping(): Promise<void> {
    // While the connection is down ioredis queues commands until it reconnects: a probe must not
    // wait for that, it must say so at once.
    if (this.redis.status !== 'ready') throw new Error(`connection ${this.redis.status}`);
    await this.redis.ping();
  }

  /**
   * Redis away degrades, it does not stop the service: the limits fall back to memory (http/ops.ts
   * `critical`).
   */
  readinessChecks(): ReadinessCheck[] {
    return [{ name: 'redis', critical: false, check: () => this.ping() }];
  }

  /** Resolves once the connection is closed: nothing of the store is left to hold the process. */
  async close(): Promise<void> {
    await this.memory.close();
    // Connected, QUIT lets the commands in flight finish; away, it would wait for a reconnection.
    await closed(this.redis, { graceful: true });
  }
}
