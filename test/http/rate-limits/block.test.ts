/**
 * docs/decisions.md: "An IP that keeps being throttled well past the limit is blocked for 30 minutes on
 * every endpoint: 403 {"error":"ACCESS_DENY"} with Retry-After." With the DEFAULT limits and block
 * policy (100 refusals within a minute, then 30 minutes), checked before the key.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { DEFAULT_RATE_LIMITS, type RatePolicy } from '../../../src/domain/rate-limit.ts';
import { LOCK_A, OTHER_KEY, OWNER_KEY, startServer, type TestServer } from '../../support/server.ts';
import {
  advance,
  call,
  everyEndpoint,
  type Flood,
  floodUntilBlocked,
  getLockFrom,
  header,
  OTHER_ADDRESS,
  type Reply,
  rateLimitFields,
  retryAfter,
  summarize,
} from './helpers.ts';

const BLOCK_SECONDS = DEFAULT_RATE_LIMITS.block.blockMs / 1000;
const EXCESS = DEFAULT_RATE_LIMITS.block.excess;

function assertBlocked(
  reply: Reply,
  what: string,
  atMost = BLOCK_SECONDS,
  atLeast = BLOCK_SECONDS - 10,
): void {
  assert.deepEqual([reply.status, reply.body], [403, { error: 'ACCESS_DENY' }], what);
  const wait = retryAfter(reply);
  assert.ok(wait >= atLeast && wait <= atMost, `${what}: Retry-After ${wait}`);
  // Nothing remains until the block ends, and the headers say so.
  const f = rateLimitFields(reply);
  assert.deepEqual([f.q, f.r, f.t], [0, 0, wait], `${what}: ${header(reply, 'ratelimit')}`);
}

/** Every v3 endpoint with a good key, a bad key and no key, from `from`: all must be blocked. */
async function assertBlockedEverywhere(t: TestServer, from: string, atMost?: number, atLeast?: number) {
  for (const key of [OWNER_KEY, 'not-a-key', undefined]) {
    for (const { name, path, options } of everyEndpoint(key)) {
      assertBlocked(await call(t, path, { ...options, from }), `${name} key ${key}`, atMost, atLeast);
    }
  }
  // Even a partner body that is not JSON at all: the address is refused before anything is read.
  const notJson = await call(t, '/public/partners/automation', { method: 'POST', body: '{', from });
  assertBlocked(notJson, 'partner, body not JSON', atMost, atLeast);
}

/**
 * A flood must read: the burst allowed, then refusals until about `excess` of them have been made,
 * then the block. Real time passes during the flood and refills a few requests: those may pass too.
 */
function assertFloodShape(flood: Flood, allowedStatus: number, refusedStatus: number, policy: RatePolicy) {
  const { statuses, ms } = flood;
  const firstRefusal = statuses.indexOf(refusedStatus);
  assert.ok(
    firstRefusal >= policy.burst,
    `only ${firstRefusal} allowed before a refusal: ${summarize(statuses)}`,
  );
  assert.ok(
    statuses.every((s) => s === allowedStatus || s === refusedStatus),
    `only ${allowedStatus} and ${refusedStatus}: ${summarize(statuses)}`,
  );
  const refilled = Math.ceil(ms / policy.intervalMs);
  const allowed = statuses.filter((s) => s === allowedStatus).length;
  assert.ok(
    allowed <= policy.burst + refilled,
    `${allowed} allowed in ${ms.toFixed(0)} ms: ${summarize(statuses)}`,
  );
  // "Well past the limit": the excess, and what real time gave back of it meanwhile.
  const refusals = statuses.length - allowed;
  const excessRefilled = Math.ceil(ms / (DEFAULT_RATE_LIMITS.block.windowMs / EXCESS));
  assert.ok(
    refusals >= EXCESS && refusals <= EXCESS + excessRefilled,
    `${refusals} refusals: ${summarize(statuses)}`,
  );
}

describe('v3 rate limits: a flood from one address is blocked on every endpoint (default limits)', () => {
  let t: TestServer;
  beforeEach(async () => {
    t = await startServer();
  });
  afterEach(() => t.close());

  it('a flood with a good key: burst, then 429 THROTTLED about 100 times, then 403 ACCESS_DENY everywhere for 30 minutes', async () => {
    const flood = await floodUntilBlocked(() => getLockFrom(t));
    assertFloodShape(flood, 200, 429, DEFAULT_RATE_LIMITS.endpoints['GET /public/lock/{device_id}'].account);
    await assertBlockedEverywhere(t, '127.0.0.1');

    // Other addresses are not affected, for this account or another.
    assert.equal((await getLockFrom(t, OTHER_ADDRESS, OTHER_KEY)).status, 200);
    assert.equal((await call(t, '/public/locks', { key: OWNER_KEY, from: OTHER_ADDRESS })).status, 200);
    const partner = await call(t, '/public/partners/automation', {
      method: 'POST',
      json: { apikey: OWNER_KEY, command: 'unlock', device_id: LOCK_A },
      from: OTHER_ADDRESS,
    });
    assert.equal(partner.status, 200, JSON.stringify(partner.body));

    // Retry-After counts down with the clock; the block ends after 30 minutes, not before.
    await advance(t, BLOCK_SECONDS - 5);
    assertBlocked(await getLockFrom(t), 'a few seconds before the end', 5, 1);
    await advance(t, 5);
    const free = await getLockFrom(t);
    assert.equal(free.status, 200, JSON.stringify(free.body));
    assert.equal((await call(t, '/public/partners/automation', { method: 'POST', json: [] })).status, 400);
  });

  it('a flood with a bad key answers 401 (the key comes first) but still ends in the block', async () => {
    const { statuses } = await floodUntilBlocked(() =>
      call(t, `/public/lock/${LOCK_A}`, { key: 'not-a-key' }),
    );
    const ip = DEFAULT_RATE_LIMITS.endpoints['GET /public/lock/{device_id}'].ip;
    // Every answer before the block is 401; the address's burst and then the excess were spent.
    assert.ok(
      statuses.every((s) => s === 401),
      summarize(statuses),
    );
    assert.ok(statuses.length >= ip.burst + EXCESS, `blocked after ${statuses.length}`);
    await assertBlockedEverywhere(t, '127.0.0.1');
    assert.equal((await getLockFrom(t, OTHER_ADDRESS)).status, 200);
  });

  it('a flood without any key, or of partner bodies that carry no key, ends in the block too', async () => {
    const { statuses: noKey } = await floodUntilBlocked(() => call(t, '/public/locks'));
    assert.ok(
      noKey.every((s) => s === 401),
      summarize(noKey),
    );
    await assertBlockedEverywhere(t, '127.0.0.1');

    const { statuses: junk } = await floodUntilBlocked(() =>
      call(t, '/public/partners/automation', { method: 'POST', json: [], from: OTHER_ADDRESS }),
    );
    assert.ok(
      junk.every((s) => s === 400),
      summarize(junk),
    );
    await assertBlockedEverywhere(t, OTHER_ADDRESS);
  });

  it('refusals spread over several endpoints add up to one block', async () => {
    // A quarter of the burst-and-excess on each of four endpoints: no single endpoint sees 100 refusals.
    const statuses: number[] = [];
    const endpoints = everyEndpoint(OWNER_KEY).filter((e) => e.name !== 'GET /public/lock/{device_id}');
    for (let round = 0; round < 200; round++) {
      const e = endpoints[round % endpoints.length];
      assert.ok(e);
      const reply = await call(t, e.path, e.options);
      statuses.push(reply.status);
      if (reply.status === 403) break;
    }
    assert.equal(statuses.at(-1), 403, summarize(statuses));
    assert.ok(statuses.filter((s) => s === 429).length >= EXCESS, summarize(statuses));
  });
});

describe('v3 rate limits: a block survives a restart on the same data directory', () => {
  let dataDir: string;
  let running: TestServer | undefined;
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'lockcloud-block-restart-'));
  });
  afterEach(async () => {
    await running?.close();
    running = undefined;
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('the restarted server refuses the blocked address at once, for the rest of the 30 minutes', async () => {
    running = await startServer({ dataDir });
    await floodUntilBlocked(() => getLockFrom(running as TestServer));
    await running.close();

    running = await startServer({ dataDir, seed: null });
    await assertBlockedEverywhere(running, '127.0.0.1');
    assert.equal((await getLockFrom(running, OTHER_ADDRESS)).status, 200);
    await advance(running, BLOCK_SECONDS);
    assert.equal((await getLockFrom(running)).status, 200);
  });
});
