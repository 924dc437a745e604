/**
 * A burst is throttled: exactly `burst` requests pass, then 429 {"error":"THROTTLED"} with
 * Retry-After, the whole seconds until one more request is allowed (docs/rate-limits.md); once the
 * clock has moved by Retry-After, one request passes.
 */
import assert from 'node:assert/strict';
import { after, afterEach, before, beforeEach, describe, it } from 'node:test';
import { DEFAULT_RATE_LIMITS, type LimitedEndpoint } from '../../../src/domain/rate-limit.ts';
import { OWNER_KEY, startServer, type TestServer } from '../../support/server.ts';
import { advance, call, everyEndpoint, getLockFrom, limitsFile, type Reply, retryAfter } from './helpers.ts';

const THROTTLED = { error: 'THROTTLED' };

describe('v3 rate limits: a burst (a --rate-limits file: 3 at once, then 1 a second)', () => {
  const file = limitsFile({
    endpoints: { 'GET /public/lock/{device_id}': { account: { burst: 3, per_second: 1 } } },
  });
  let t: TestServer;
  before(async () => {
    t = await startServer({ flags: ['--rate-limits', file.path] });
  });
  after(async () => {
    await t.close();
    file.remove();
  });

  it('passes exactly 3, then answers 429 THROTTLED with Retry-After 1; one passes after 1 s, not two', async () => {
    const started = performance.now();
    for (let i = 0; i < 3; i++) assert.equal((await getLockFrom(t)).status, 200, `request ${i}`);
    const refused = await getLockFrom(t);
    // The premise of "exactly": the burst took less than one interval of real time.
    assert.ok(performance.now() - started < 900, 'the burst was too slow to be a burst');
    assert.deepEqual([refused.status, refused.body], [429, THROTTLED]);
    assert.equal(retryAfter(refused), 1);
    // Refusals cost nothing and refill nothing: still refused, still 1.
    const again = await getLockFrom(t);
    assert.deepEqual([again.status, again.body, retryAfter(again)], [429, THROTTLED, 1]);

    await advance(t, retryAfter(refused));
    assert.equal((await getLockFrom(t)).status, 200);
    const next = await getLockFrom(t);
    assert.deepEqual([next.status, next.body], [429, THROTTLED]);
    assert.equal(retryAfter(next), 1);

    // After burst x interval of quiet, the whole burst is back.
    await advance(t, 3);
    for (let i = 0; i < 3; i++) assert.equal((await getLockFrom(t)).status, 200, `refilled ${i}`);
    assert.equal((await getLockFrom(t)).status, 429);
  });

  it('limits each endpoint on its own: a throttled GET /public/lock leaves GET /public/locks alone', async () => {
    await advance(t, 10);
    for (let i = 0; i < 4; i++) await getLockFrom(t);
    assert.equal((await getLockFrom(t)).status, 429);
    assert.equal((await call(t, '/public/locks', { key: OWNER_KEY })).status, 200);
  });
});

describe('v3 rate limits: a burst against the DEFAULT limits, on every endpoint', () => {
  let t: TestServer;
  beforeEach(async () => {
    t = await startServer();
  });
  afterEach(() => t.close());

  for (const { name, path, options } of everyEndpoint(OWNER_KEY)) {
    const endpoint = name as LimitedEndpoint;
    const { account, ip } = DEFAULT_RATE_LIMITS.endpoints[endpoint];
    it(`${name}: the account's burst of ${account.burst} passes, then 429 THROTTLED with Retry-After`, async () => {
      // The account's burst is the smaller: it is the one a single client meets.
      assert.ok(account.burst < ip.burst);
      const started = performance.now();
      const passed: Reply[] = [];
      let refused: Reply | undefined;
      for (let i = 0; i < account.burst + 20 && refused === undefined; i++) {
        const reply = await call(t, path, options);
        if (reply.status === 429) refused = reply;
        else passed.push(reply);
      }
      const elapsed = performance.now() - started;
      assert.ok(refused, `no 429 after ${passed.length} requests`);
      assert.deepEqual(refused.body, THROTTLED);
      // Real time passes while the requests are made and refills the bucket a little: exactly the
      // burst when the requests are quick, and never more than that time refilled.
      const refilled = Math.ceil(elapsed / account.intervalMs);
      assert.ok(
        passed.length >= account.burst && passed.length <= account.burst + refilled,
        `${passed.length} passed in ${elapsed.toFixed(0)} ms (burst ${account.burst})`,
      );
      // What passed was answered by the endpoint itself (a busy lock or an unknown task is a 400).
      for (const reply of passed) assert.ok([200, 400].includes(reply.status), JSON.stringify(reply.body));
      // The documented wait: whole seconds until one more request is allowed, one interval at most.
      assert.equal(retryAfter(refused), Math.ceil(account.intervalMs / 1000));

      await advance(t, retryAfter(refused));
      const after = await call(t, path, options);
      assert.notEqual(after.status, 429, JSON.stringify(after.body));
    });
  }
});
