/**
 * RateLimit-Policy and RateLimit (draft-ietf-httpapi-ratelimit-headers) on every answer of a
 * limited v3 endpoint, whatever its status: the tighter of the account's and the address's buckets,
 * its quota q and window w (seconds to refill the whole burst), what remains r and the seconds t
 * until it is full again.
 */
import assert from 'node:assert/strict';
import { after, afterEach, before, beforeEach, describe, it } from 'node:test';
import { DEFAULT_RATE_LIMITS, type LimitedEndpoint } from '../../../src/domain/rate-limit.ts';
import { LOCK_A, OWNER_KEY, startServer, type TestServer } from '../../support/server.ts';
import {
  advance,
  call,
  everyEndpoint,
  getLockFrom,
  limitsFile,
  type RateLimitFields,
  type Reply,
  rateLimitFields,
  retryAfter,
} from './helpers.ts';

/** What any answer's fields must satisfy. */
function assertSane(reply: Reply, what: string): RateLimitFields {
  const f = rateLimitFields(reply);
  assert.equal(f.policyName, 'endpoint', what);
  assert.equal(f.name, f.policyName, `${what}: RateLimit names the policy it reports on`);
  assert.ok(f.q >= 1 && f.w >= 1, `${what}: q=${f.q} w=${f.w}`);
  assert.ok(f.r >= 0 && f.r < f.q, `${what}: r=${f.r} of q=${f.q}`);
  assert.ok(f.t >= 0 && f.t <= f.w, `${what}: t=${f.t} of w=${f.w}`);
  if (reply.status === 429) {
    assert.equal(f.r, 0, `${what}: nothing remains when refused`);
    assert.ok(retryAfter(reply) <= f.t, `${what}: Retry-After ${retryAfter(reply)} > t=${f.t}`);
  } else {
    assert.equal(reply.headers['retry-after'], undefined, `${what}: Retry-After only on refusals`);
  }
  return f;
}

/** The fields of the one policy these tests use. */
const fields = (q: number, w: number, r: number, t: number): RateLimitFields => ({
  policyName: 'endpoint',
  q,
  w,
  name: 'endpoint',
  r,
  t,
});

describe('RateLimit headers: exact numbers (a --rate-limits file: 1 a second, small bursts)', () => {
  const file = limitsFile({
    endpoints: {
      'GET /public/lock/{device_id}': {
        account: { burst: 3, per_second: 1 },
        ip: { burst: 8, per_second: 1 },
      },
      'POST /public/partners/automation': { account: { burst: 2, per_second: 1 } },
    },
  });
  let t: TestServer;
  before(async () => {
    t = await startServer({ flags: ['--rate-limits', file.path] });
  });
  after(async () => {
    await t.close();
    file.remove();
  });

  it('200, 400, 401 and 429 on GET /public/lock/{device_id} all carry them, counting down', async () => {
    const ok = await getLockFrom(t);
    assert.equal(ok.status, 200);
    assert.deepEqual(rateLimitFields(ok), fields(3, 3, 2, 1));

    const bad = await call(t, '/public/lock/not-a-uuid', { key: OWNER_KEY });
    assert.deepEqual([bad.status, bad.body], [400, { error: 'BAD_PARAMS' }]);
    assert.deepEqual(rateLimitFields(bad), fields(3, 3, 1, 2));

    // Without a known account only the address's bucket is spent and shown: 3 of its 8 are gone.
    const unauthorized = await call(t, `/public/lock/${LOCK_A}`, { key: 'not-a-key' });
    assert.deepEqual([unauthorized.status, unauthorized.body], [401, { error: 'UNAUTHORIZED' }]);
    assert.deepEqual(rateLimitFields(unauthorized), fields(8, 8, 5, 3));
    const missing = await call(t, `/public/lock/${LOCK_A}`);
    assert.equal(missing.status, 401);
    assert.deepEqual(rateLimitFields(missing), fields(8, 8, 4, 4));

    const last = await getLockFrom(t);
    assert.equal(last.status, 200);
    assert.deepEqual(rateLimitFields(last), fields(3, 3, 0, 3));

    const refused = await getLockFrom(t);
    assert.equal(refused.status, 429);
    assert.deepEqual(rateLimitFields(refused), fields(3, 3, 0, 3));
    assert.equal(retryAfter(refused), 1);

    // A second later one request's worth is back and spent; the bucket is 3 s from full.
    await advance(t, 1);
    const after = await getLockFrom(t);
    assert.equal(after.status, 200);
    assert.deepEqual(rateLimitFields(after), fields(3, 3, 0, 3));
    // Ten seconds of quiet: full again.
    await advance(t, 10);
    assert.deepEqual(rateLimitFields(await getLockFrom(t)), fields(3, 3, 2, 1));
  });

  it('the partner endpoint carries them on 200, 400 (after the key), 401, 429, and a body with no key', async () => {
    const partner = (json: unknown) => call(t, '/public/partners/automation', { method: 'POST', json });
    const ok = await partner({ apikey: OWNER_KEY, command: 'unlock', device_id: LOCK_A });
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    assert.deepEqual(rateLimitFields(ok), fields(2, 2, 1, 1));

    const badCommand = await partner({ apikey: OWNER_KEY, command: 'sync', device_id: LOCK_A });
    assert.deepEqual([badCommand.status, badCommand.body], [400, { error: 'BAD_PARAMS' }]);
    assertSane(badCommand, 'partner 400');

    const badKey = await partner({ apikey: 'not-a-key', command: 'unlock', device_id: LOCK_A });
    assert.deepEqual([badKey.status, badKey.body], [401, { error: 'UNAUTHORIZED' }]);
    assertSane(badKey, 'partner 401');

    const refused = await partner({ apikey: OWNER_KEY, command: 'unlock', device_id: LOCK_A });
    assert.deepEqual([refused.status, refused.body], [429, { error: 'THROTTLED' }]);
    assertSane(refused, 'partner 429');

    // A body that is not an object has no key to check: BAD_PARAMS, and the address's budget is spent.
    for (const body of [[], 'lock', null]) {
      const noKey = await partner(body);
      assert.deepEqual([noKey.status, noKey.body], [400, { error: 'BAD_PARAMS' }], JSON.stringify(body));
      assertSane(noKey, `partner body ${JSON.stringify(body)}`);
    }
    const notJson = await call(t, '/public/partners/automation', { method: 'POST', body: '{"apikey":' });
    assert.deepEqual([notJson.status, notJson.body], [400, { error: 'BAD_PARAMS' }]);
    assertSane(notJson, 'partner body not JSON');
  });
});

describe('RateLimit headers with the DEFAULT limits, on every endpoint and every kind of answer', () => {
  let t: TestServer;
  beforeEach(async () => {
    t = await startServer();
  });
  afterEach(() => t.close());

  for (const { name, path, options } of everyEndpoint(OWNER_KEY)) {
    const endpoint = name as LimitedEndpoint;
    it(`${name}: the first answer shows the account's bucket; every answer up to 429 is sane`, async () => {
      const { account } = DEFAULT_RATE_LIMITS.endpoints[endpoint];
      const first = await call(t, path, options);
      assert.deepEqual(
        assertSane(first, `${name} first`),
        fields(
          account.burst,
          Math.ceil((account.burst * account.intervalMs) / 1000),
          account.burst - 1,
          Math.ceil(account.intervalMs / 1000),
        ),
      );
      let previous = rateLimitFields(first).r;
      const statuses = new Set<number>([first.status]);
      for (let i = 0; i < account.burst + 5; i++) {
        const reply = await call(t, path, options);
        const f = assertSane(reply, `${name} #${i + 2} (${reply.status})`);
        assert.ok(f.r <= previous, `${name}: r went up from ${previous} to ${f.r}`);
        previous = f.r;
        statuses.add(reply.status);
      }
      assert.ok(statuses.has(429), `${name}: never throttled (${[...statuses]})`);
      // Without a key, or with a bad one: the address's bucket.
      for (const key of [undefined, 'not-a-key']) {
        const denied = everyEndpoint(key).find((e) => e.name === name);
        assert.ok(denied);
        const reply = await call(t, denied.path, denied.options);
        assert.deepEqual([reply.status, reply.body], [401, { error: 'UNAUTHORIZED' }]);
        assertSane(reply, `${name} 401 key ${key}`);
      }
    });
  }
});
