/**
 * Helpers for the rate-limit black-box tests: requests from a chosen client address (Linux loopback
 * accepts any 127.x.y.z as a source), small --rate-limits files, the RateLimit headers parsed.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, type IncomingHttpHeaders, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RedisRateLimitStore } from '../../../src/adapters/rate-limit/redis.ts';
import { createTestDatabase } from '../../support/postgres.ts';
import { LOCK_A, OTHER_KEY, OTHER_LOCK, OWNER_KEY, type TestServer } from '../../support/server.ts';

export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** The second client address; 127.0.0.1 is the first. */
export const OTHER_ADDRESS = '127.0.0.2';

export interface Reply {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: unknown;
}

export interface CallOptions {
  readonly method?: string;
  /** The Authorization header; omitted when undefined. */
  readonly key?: string;
  readonly json?: unknown;
  /** A raw body, sent as it is (set content-type in headers). */
  readonly body?: string;
  /** The client's source address (default 127.0.0.1). */
  readonly from?: string;
  readonly headers?: Record<string, string>;
  /**
   * The route may answer a live stream (GET /ext/events/stream), which never ends: such an answer
   * resolves at its headers, its connection closed; a refusal is read whole as any other.
   */
  readonly mayStream?: boolean;
}

// One keep-alive agent per source address: thousands of requests need no new connection each.
const agents = new Map<string, Agent>();
function agentFor(address: string): Agent {
  let agent = agents.get(address);
  if (!agent) {
    agent = new Agent({ keepAlive: true, maxSockets: 64 });
    agents.set(address, agent);
  }
  return agent;
}

/** One request to a server (its base URL or a TestServer), from `from`; the body parsed as JSON. */
export function call(target: TestServer | string, path: string, options: CallOptions = {}): Promise<Reply> {
  const base = new URL(typeof target === 'string' ? target : target.url);
  const from = options.from ?? '127.0.0.1';
  const headers: Record<string, string> = { ...options.headers };
  if (options.key !== undefined) headers.authorization = options.key;
  const body = options.json === undefined ? options.body : JSON.stringify(options.json);
  if (body !== undefined) {
    headers['content-type'] ??= 'application/json';
    headers['content-length'] = String(Buffer.byteLength(body));
  }
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: base.hostname,
        port: Number(base.port),
        path,
        method: options.method ?? 'GET',
        headers,
        localAddress: from,
        agent: agentFor(from),
      },
      (res) => {
        if (options.mayStream && String(res.headers['content-type']).startsWith('text/event-stream')) {
          res.destroy();
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: '' });
          return;
        }
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown = text;
          try {
            parsed = JSON.parse(text);
          } catch {
            // not JSON: the assertion shows the text
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: parsed });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** What a client sends most: the status of a lock the key's account owns (LOCK_A, or OTHER_LOCK). */
export const getLockFrom = (t: TestServer | string, from?: string, key: string = OWNER_KEY) =>
  call(t, `/public/lock/${key === OTHER_KEY ? OTHER_LOCK : LOCK_A}`, { key, from });

/** One request of each v3 endpoint, with the given key (undefined: none). */
export function everyEndpoint(
  key: string | undefined,
): { name: string; path: string; options: CallOptions }[] {
  return [
    { name: 'GET /public/locks', path: '/public/locks', options: { key } },
    { name: 'GET /public/lock/{device_id}', path: `/public/lock/${LOCK_A}`, options: { key } },
    {
      name: 'POST /public/lock/{device_id}',
      path: `/public/lock/${LOCK_A}`,
      options: { key, method: 'POST', json: { command: 'unlock' } },
    },
    {
      name: 'GET /public/action-result',
      path: `/public/action-result?task_id=${randomUUID()}`,
      options: { key },
    },
    {
      name: 'POST /public/partners/automation',
      path: '/public/partners/automation',
      options: {
        method: 'POST',
        json:
          key === undefined
            ? { command: 'unlock', device_id: LOCK_A }
            : { command: 'unlock', apikey: key, device_id: LOCK_A },
      },
    },
  ];
}

export function header(reply: Reply, name: string): string | undefined {
  const value = reply.headers[name.toLowerCase()];
  return Array.isArray(value) ? value.join(', ') : value;
}

export function retryAfter(reply: Reply): number {
  const value = header(reply, 'retry-after');
  assert.match(value ?? '', /^\d+$/, `Retry-After ${JSON.stringify(value)} on ${reply.status}`);
  return Number(value);
}

export interface RateLimitFields {
  readonly policyName: string;
  readonly q: number;
  readonly w: number;
  readonly name: string;
  readonly r: number;
  readonly t: number;
}

/** RateLimit-Policy `"name";q=Q;w=W` and RateLimit `"name";r=R;t=T`, both required. */
export function rateLimitFields(reply: Reply): RateLimitFields {
  const policy = header(reply, 'ratelimit-policy') ?? '';
  const limit = header(reply, 'ratelimit') ?? '';
  const p = /^"([a-z-]+)";q=(\d+);w=(\d+)$/.exec(policy);
  const l = /^"([a-z-]+)";r=(\d+);t=(\d+)$/.exec(limit);
  assert.ok(p, `RateLimit-Policy ${JSON.stringify(policy)} on ${reply.status}`);
  assert.ok(l, `RateLimit ${JSON.stringify(limit)} on ${reply.status}`);
  return {
    policyName: p[1] ?? '',
    q: Number(p[2]),
    w: Number(p[3]),
    name: l[1] ?? '',
    r: Number(l[2]),
    t: Number(l[3]),
  };
}

/** A --rate-limits file in its own temporary directory; remove() when done. */
export function limitsFile(settings: unknown): { path: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'lockcloud-limits-'));
  const path = join(dir, 'rate-limits.json');
  writeFileSync(path, JSON.stringify(settings));
  return { path, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A fresh Redis key prefix for one test, and how to drop its keys afterwards. */
export function redisPrefix(): { prefix: string; flags: string[]; drop(): Promise<void> } {
  const prefix = `lockcloud-test:${randomUUID()}:`;
  return {
    prefix,
    flags: ['--redis-url', REDIS_URL, '--redis-prefix', prefix],
    async drop() {
      const store = new RedisRateLimitStore(REDIS_URL, prefix);
      await store.clear();
      await store.close();
    },
  };
}

/**
 * What two app instances of one test share, as several processes do in production (docs/deploy.md,
 * "What runs where"): a Redis prefix and a PostgreSQL database of their own, and one data directory
 * (the seed and the server's key). Not one SQLite file: the server's group commit holds SQLite's write
 * lock until its turn of the event loop ends, so a second server writing the same file from the same
 * process waits in SQLite's busy handler with the whole event loop stopped, 5 s, and then fails. One
 * CI run froze a second server's start that way past Fastify's 10 s plugin timeout.
 */
export interface SharedBackends {
  readonly dataDir: string;
  readonly flags: string[];
  drop(): Promise<void>;
}

export async function sharedBackends(name: string): Promise<SharedBackends> {
  const redis = redisPrefix();
  const database = await createTestDatabase();
  const dataDir = mkdtempSync(join(tmpdir(), `lockcloud-${name}-`));
  return {
    dataDir,
    flags: [...redis.flags, '--database-url', database.url],
    async drop() {
      await redis.drop();
      await database.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * One request to each instance before a test counts: the first request of an instance on PostgreSQL
 * opens a pool connection, and the budgets refill in real time, so a slow first request inside a
 * counted sequence could let one more through. GET /public/locks from an address of its own spends
 * no budget a test here counts.
 */
export async function warmUp(...servers: TestServer[]): Promise<void> {
  for (const t of servers) {
    const reply = await call(t, '/public/locks', { key: OWNER_KEY, from: WARM_UP_ADDRESS });
    assert.equal(reply.status, 200, JSON.stringify(reply.body));
  }
}

/** The address of warm-up requests, which no test's budget or block counts. */
export const WARM_UP_ADDRESS = '127.0.0.9';

export interface Flood {
  /** Every status before the 403. */
  readonly statuses: number[];
  /** Real milliseconds the flood took: what real time refilled meanwhile is allowed for. */
  readonly ms: number;
}

/** Sends `next()` until it answers 403 ACCESS_DENY; bounded by `max`. */
export async function floodUntilBlocked(next: () => Promise<Reply>, max = 1_000): Promise<Flood> {
  const statuses: number[] = [];
  const started = performance.now();
  for (let i = 0; i < max; i++) {
    const reply = await next();
    if (reply.status === 403) {
      assert.deepEqual(reply.body, { error: 'ACCESS_DENY' });
      return { statuses, ms: performance.now() - started };
    }
    statuses.push(reply.status);
  }
  assert.fail(`no 403 after ${max} requests (statuses: ${summarize(statuses)})`);
}

/** [200, 200, 429, 429, 429] -> "2x200 3x429": readable failure messages for long runs. */
export function summarize(statuses: readonly number[]): string {
  const runs: string[] = [];
  let i = 0;
  while (i < statuses.length) {
    let j = i;
    while (j < statuses.length && statuses[j] === statuses[i]) j++;
    runs.push(`${j - i}x${statuses[i]}`);
    i = j;
  }
  return runs.join(' ');
}

/**
 * Moves the server's sandbox clock (POST /_sim/clock) over a keep-alive connection: the same as
 * advanceClock() in test/support/server.ts, several times cheaper, which counts over an hour of seconds.
 */
export async function advance(target: TestServer | string, seconds: number): Promise<void> {
  const reply = await call(target, '/_sim/clock', { method: 'POST', json: { advance_seconds: seconds } });
  if (reply.status !== 200)
    throw new Error(`clock advance failed: ${reply.status} ${JSON.stringify(reply.body)}`);
}
