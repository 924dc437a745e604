/**
 * Issue 17, finding 10: `/ext` had no rate limit and ignored the 30-minute block (400 requests with
 * bad keys in 0.3 s met no limit; a blocked address still got 200 from /ext). Now every /ext endpoint
 * is limited per account and per address as v3's are, the address's limit is told before the key,
 * refusals spend the address's excess, and the block covers /ext (docs/rate-limits.md).
 */
import assert from 'node:assert/strict';
import { after, afterEach, before, beforeEach, describe, it } from 'node:test';
import { DEFAULT_RATE_LIMITS, type EndpointLimit } from '../../../src/domain/rate-limit.ts';
import { LOCK_A, OTHER_KEY, OWNER_KEY, startServer, type TestServer } from '../../support/server.ts';
import { type Receiver, startReceiver } from '../../support/webhook-receiver.ts';
import {
  advance,
  type CallOptions,
  call,
  floodUntilBlocked,
  getLockFrom,
  header,
  limitsFile,
  OTHER_ADDRESS,
  type Reply,
  rateLimitFields,
  retryAfter,
  summarize,
} from './helpers.ts';

const BLOCK_SECONDS = DEFAULT_RATE_LIMITS.block.blockMs / 1000;
const EXCESS = DEFAULT_RATE_LIMITS.block.excess;
const DELIVERY = '00000000-0000-4000-8000-000000000001';
/** A webhook endpoint id no account has: its routes answer 404 behind their limits. */
const ENDPOINT = 'we_00000000000000000000000000000000';

/** An /ext endpoint's default limits, looked up when needed (the names are everyExtEndpoint's). */
function defaults(name: string): EndpointLimit {
  const limit = (DEFAULT_RATE_LIMITS.endpoints as Readonly<Record<string, EndpointLimit>>)[name];
  assert.ok(limit, `${name} has no default limits`);
  return limit;
}

/** One request of each /ext endpoint with the given key (undefined: none). */
function everyExtEndpoint(key: string | undefined): { name: string; path: string; options: CallOptions }[] {
  return [
    { name: 'GET /ext/webhook', path: '/ext/webhook', options: { key } },
    {
      name: 'PUT /ext/webhook',
      path: '/ext/webhook',
      options: { key, method: 'PUT', json: { url: 'http://127.0.0.1:9/hook' } },
    },
    { name: 'DELETE /ext/webhook', path: '/ext/webhook', options: { key, method: 'DELETE' } },
    {
      name: 'POST /ext/webhook/rotate-secret',
      path: '/ext/webhook/rotate-secret',
      options: { key, method: 'POST' },
    },
    { name: 'POST /ext/webhook/test', path: '/ext/webhook/test', options: { key, method: 'POST' } },
    { name: 'GET /ext/webhook/deliveries', path: '/ext/webhook/deliveries', options: { key } },
    {
      name: 'POST /ext/webhook/deliveries/{id}/resend',
      path: `/ext/webhook/deliveries/${DELIVERY}/resend`,
      options: { key, method: 'POST' },
    },
    { name: 'GET /ext/events', path: '/ext/events', options: { key } },
    { name: 'GET /ext/events/stream', path: '/ext/events/stream', options: { key, mayStream: true } },
    {
      name: 'POST /ext/webhook-endpoints',
      path: '/ext/webhook-endpoints',
      options: { key, method: 'POST', json: { url: 'https://hooks.example.com/in' } },
    },
    { name: 'GET /ext/webhook-endpoints', path: '/ext/webhook-endpoints', options: { key } },
    { name: 'GET /ext/webhook-endpoints/{id}', path: `/ext/webhook-endpoints/${ENDPOINT}`, options: { key } },
    {
      name: 'PATCH /ext/webhook-endpoints/{id}',
      path: `/ext/webhook-endpoints/${ENDPOINT}`,
      options: { key, method: 'PATCH', json: { retries: false } },
    },
    {
      name: 'DELETE /ext/webhook-endpoints/{id}',
      path: `/ext/webhook-endpoints/${ENDPOINT}`,
      options: { key, method: 'DELETE' },
    },
    {
      name: 'POST /ext/webhook-endpoints/{id}/rotate-secret',
      path: `/ext/webhook-endpoints/${ENDPOINT}/rotate-secret`,
      options: { key, method: 'POST' },
    },
    {
      name: 'GET /ext/webhook-endpoints/{id}/deliveries',
      path: `/ext/webhook-endpoints/${ENDPOINT}/deliveries`,
      options: { key },
    },
    {
      name: 'POST /ext/webhook-endpoints/{id}/deliveries/{delivery_id}/resend',
      path: `/ext/webhook-endpoints/${ENDPOINT}/deliveries/${DELIVERY}/resend`,
      options: { key, method: 'POST' },
    },
    { name: 'GET /ext/locks', path: '/ext/locks', options: { key } },
    { name: 'GET /ext/locks/{device_id}', path: `/ext/locks/${DELIVERY}`, options: { key } },
    {
      name: 'PATCH /ext/locks/{device_id}',
      path: `/ext/locks/${DELIVERY}`,
      options: { key, method: 'PATCH', json: { battery_low: 30 } },
    },
    { name: 'GET /ext/keys', path: '/ext/keys', options: { key } },
    {
      name: 'POST /ext/keys',
      path: '/ext/keys',
      options: { key, method: 'POST', json: { scopes: ['locks:read'] } },
    },
    // A key id no account has: answers 404 behind its limits.
    { name: 'DELETE /ext/keys/{id}', path: `/ext/keys/${DELIVERY}`, options: { key, method: 'DELETE' } },
    { name: 'GET /ext/locks/{device_id}/grants', path: `/ext/locks/${DELIVERY}/grants`, options: { key } },
    {
      name: 'POST /ext/locks/{device_id}/grants',
      path: `/ext/locks/${DELIVERY}/grants`,
      options: { key, method: 'POST', json: { email: 'nobody@example.com', role: 'view' } },
    },
    {
      name: 'PATCH /ext/locks/{device_id}/grants/{grant_id}',
      path: `/ext/locks/${DELIVERY}/grants/${DELIVERY}`,
      options: { key, method: 'PATCH', json: { role: 'view' } },
    },
    {
      name: 'DELETE /ext/locks/{device_id}/grants/{grant_id}',
      path: `/ext/locks/${DELIVERY}/grants/${DELIVERY}`,
      options: { key, method: 'DELETE' },
    },
    { name: 'GET /ext/invitations', path: '/ext/invitations', options: { key } },
    {
      name: 'POST /ext/invitations/{grant_id}/accept',
      path: `/ext/invitations/${DELIVERY}/accept`,
      options: { key, method: 'POST' },
    },
    {
      name: 'POST /ext/invitations/{grant_id}/decline',
      path: `/ext/invitations/${DELIVERY}/decline`,
      options: { key, method: 'POST' },
    },
    { name: 'GET /ext/grants', path: '/ext/grants', options: { key } },
    {
      name: 'POST /ext/locks/{device_id}/commands',
      path: `/ext/locks/${DELIVERY}/commands`,
      options: { key, method: 'POST', json: { command: 'sync' } },
    },
    { name: 'GET /ext/tasks/{task_id}', path: `/ext/tasks/${DELIVERY}`, options: { key } },
  ];
}

/** The extension API's 403: its shape (a message), Retry-After counting down, nothing left. */
function assertExtBlocked(reply: Reply, what: string, atMost = BLOCK_SECONDS, atLeast = BLOCK_SECONDS - 10) {
  assert.equal(reply.status, 403, `${what}: ${JSON.stringify(reply.body)}`);
  const body = reply.body as { error: string; message: string };
  assert.deepEqual(Object.keys(body).sort(), ['error', 'message'], what);
  assert.equal(body.error, 'ACCESS_DENY', what);
  const wait = retryAfter(reply);
  assert.ok(wait >= atLeast && wait <= atMost, `${what}: Retry-After ${wait}`);
  assert.match(body.message, new RegExp(`blocked .* try again in ${wait} s$`), what);
  const f = rateLimitFields(reply);
  assert.deepEqual(
    [f.policyName, f.q, f.r, f.t],
    ['blocked', 0, 0, wait],
    `${what}: ${header(reply, 'ratelimit')}`,
  );
}

function assertExtThrottled(reply: Reply, what: string): void {
  assert.equal(reply.status, 429, `${what}: ${JSON.stringify(reply.body)}`);
  const body = reply.body as { error: string; message: string };
  assert.deepEqual(Object.keys(body).sort(), ['error', 'message'], what);
  assert.equal(body.error, 'THROTTLED', what);
  const wait = retryAfter(reply);
  assert.equal(body.message, `over this endpoint's rate limit; try again in ${wait} s`, what);
  assert.equal(rateLimitFields(reply).r, 0, what);
}

/** Every /ext endpoint with a good key, a bad key and no key, from `from`: all blocked. */
async function assertExtBlockedEverywhere(t: TestServer, from: string, atMost?: number, atLeast?: number) {
  for (const key of [OWNER_KEY, 'not-a-key', undefined])
    for (const { name, path, options } of everyExtEndpoint(key))
      assertExtBlocked(await call(t, path, { ...options, from }), `${name} key ${key}`, atMost, atLeast);
}

describe('/ext rate limits (default limits)', () => {
  let t: TestServer;
  beforeEach(async () => {
    t = await startServer();
  });
  afterEach(() => t.close());

  it('every /ext endpoint has a limit for the account and one for the address, at least 1/s', () => {
    const names = everyExtEndpoint(OWNER_KEY).map((e) => e.name);
    assert.deepEqual(
      Object.keys(DEFAULT_RATE_LIMITS.endpoints).filter((e) => / \/ext\//.test(e)),
      names,
    );
    for (const name of names) {
      const { account, ip } = defaults(name);
      assert.ok(account.intervalMs <= 1_000 && ip.intervalMs <= 1_000, name);
    }
  });

  it('the probe: a flood with bad keys meets 429 THROTTLED once the address is over its limit, then the block', async () => {
    const replies: Reply[] = [];
    const started = performance.now();
    let blocked: Reply | undefined;
    for (let i = 0; i < 1_000 && !blocked; i++) {
      const reply = await call(t, '/ext/webhook', { key: 'not-a-key' });
      if (reply.status === 403) blocked = reply;
      else replies.push(reply);
    }
    const ms = performance.now() - started;
    assert.ok(blocked, 'no block after 1,000 requests');
    assertExtBlocked(blocked, 'the request after the excess');
    const statuses = replies.map((r) => r.status);
    const { ip } = defaults('GET /ext/webhook');
    // The address's burst answers 401 (with the RateLimit fields of the address), then 429.
    const firstRefusal = statuses.indexOf(429);
    assert.ok(firstRefusal >= ip.burst, `only ${firstRefusal} before a refusal: ${summarize(statuses)}`);
    const allowed = statuses.filter((s) => s === 401).length;
    assert.ok(
      allowed <= ip.burst + Math.ceil(ms / ip.intervalMs),
      `${allowed} keys looked up: ${summarize(statuses)}`,
    );
    assert.ok(
      statuses.every((s) => s === 401 || s === 429),
      summarize(statuses),
    );
    assert.ok(statuses.filter((s) => s === 429).length >= EXCESS, summarize(statuses));
    for (const reply of replies) {
      const f = rateLimitFields(reply);
      assert.deepEqual([f.policyName, f.q], ['endpoint', ip.burst], `${reply.status}`);
      if (reply.status === 401) assert.deepEqual(reply.body, { error: 'UNAUTHORIZED' });
      else assertExtThrottled(reply, 'the flood');
    }

    // Blocked on every /ext endpoint, whatever the key, and on v3 too: one block.
    await assertExtBlockedEverywhere(t, '127.0.0.1');
    const v3 = await getLockFrom(t);
    assert.deepEqual([v3.status, v3.body], [403, { error: 'ACCESS_DENY' }]);
    // An unknown /ext route is still 404, as on v3.
    const unknown = await call(t, '/ext/nowhere', { key: OWNER_KEY });
    assert.equal(unknown.status, 404);
    // Another address is not held back.
    const other = await call(t, '/ext/webhook/deliveries', { key: OWNER_KEY, from: OTHER_ADDRESS });
    assert.deepEqual([other.status, other.body], [200, []]);

    // The block ends after 30 minutes, not before.
    await advance(t, BLOCK_SECONDS - 5);
    assertExtBlocked(await call(t, '/ext/webhook/deliveries', { key: OWNER_KEY }), 'before the end', 5, 1);
    await advance(t, 5);
    assert.equal((await call(t, '/ext/webhook/deliveries', { key: OWNER_KEY })).status, 200);
  });

  it('an address blocked through v3 gets the blocked answer from /ext, on every endpoint and with any key', async () => {
    await floodUntilBlocked(() => call(t, `/public/lock/${LOCK_A}`, { key: 'not-a-key' }));
    await assertExtBlockedEverywhere(t, '127.0.0.1');
    const other = await call(t, '/ext/webhook/deliveries', { key: OWNER_KEY, from: OTHER_ADDRESS });
    assert.equal(other.status, 200);
  });

  it('every answer of a limited /ext endpoint carries the RateLimit fields, as v3', async () => {
    for (const key of [OWNER_KEY, 'not-a-key'])
      for (const { name, path, options } of everyExtEndpoint(key)) {
        // Each key from its own address: every bucket is fresh.
        const reply = await call(t, path, {
          ...options,
          from: key === OWNER_KEY ? OTHER_ADDRESS : '127.0.0.3',
        });
        const { account, ip } = defaults(name);
        const f = rateLimitFields(reply);
        // A good key shows the tighter of the two (the account's, here); a bad one the address's.
        const policy = key === OWNER_KEY ? account : ip;
        assert.deepEqual([f.policyName, f.q], ['endpoint', policy.burst], `${name} ${reply.status}`);
        assert.equal(f.r, policy.burst - 1, `${name} ${reply.status}`);
      }
  });
});

describe('/ext rate limits: account and address (a --rate-limits file: account 3, address 5 at once)', () => {
  const file = limitsFile({
    endpoints: {
      'GET /ext/webhook/deliveries': {
        account: { burst: 3, per_second: 1 },
        ip: { burst: 5, per_second: 1 },
      },
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
  beforeEach(() => advance(t, 60));

  const deliveries = (key: string, from?: string) => call(t, '/ext/webhook/deliveries', { key, from });

  it('the account limit holds across two addresses; another account is not held back', async () => {
    assert.equal((await deliveries(OWNER_KEY)).status, 200);
    assert.equal((await deliveries(OWNER_KEY, OTHER_ADDRESS)).status, 200);
    assert.equal((await deliveries(OWNER_KEY)).status, 200);
    for (const from of ['127.0.0.1', OTHER_ADDRESS]) {
      const refused = await deliveries(OWNER_KEY, from);
      assertExtThrottled(refused, from);
      assert.equal(rateLimitFields(refused).q, 3, "the account's policy");
    }
    assert.equal((await deliveries(OTHER_KEY)).status, 200);
  });

  it('the address limit holds across accounts, and is told before the key', async () => {
    for (let i = 0; i < 3; i++) assert.equal((await deliveries(OTHER_KEY)).status, 200);
    assert.equal((await deliveries('not-a-key')).status, 401);
    assert.equal((await deliveries('not-a-key')).status, 401);
    // The address has spent its 5: any key, good or bad, is now refused with 429.
    for (const key of [OWNER_KEY, 'not-a-key']) {
      const refused = await deliveries(key);
      assertExtThrottled(refused, key);
      assert.equal(rateLimitFields(refused).q, 5, "the address's policy");
    }
    assert.equal((await deliveries(OWNER_KEY, OTHER_ADDRESS)).status, 200);
  });
});

describe('/ext rate limits: refusals of the test-event budget spend the excess (a --rate-limits file: blocked after 5)', () => {
  const file = limitsFile({ block: { excess: 5 } });
  let t: TestServer;
  let receiver: Receiver;
  before(async () => {
    receiver = await startReceiver({ status: 204 });
    t = await startServer({ flags: ['--rate-limits', file.path] });
  });
  after(async () => {
    await t.close();
    await receiver.close();
    file.remove();
  });

  it('30 test events, then the budget refuses (429, its own message) until the address is blocked', async () => {
    const set = await call(t, '/ext/webhook', { method: 'PUT', key: OWNER_KEY, json: { url: receiver.url } });
    assert.equal(set.status, 200, JSON.stringify(set.body));
    const statuses: number[] = [];
    for (let i = 0; i < 60; i++) {
      const reply = await call(t, '/ext/webhook/test', { method: 'POST', key: OWNER_KEY });
      statuses.push(reply.status);
      if (reply.status === 403) {
        assertExtBlocked(reply, 'blocked');
        break;
      }
      if (reply.status === 429) {
        assert.match((reply.body as { message: string }).message, /too many test events and resends/);
        // The endpoint itself had room: the budget of messages refused.
        assert.ok(rateLimitFields(reply).r > 0, header(reply, 'ratelimit'));
      }
    }
    assert.match(summarize(statuses), /^(30|31)x202 6x429 1x403$/);
  });
});
