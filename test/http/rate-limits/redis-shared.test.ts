/**
 * Several lockcloud processes behind one address share their limits through Redis
 * (--redis-url, --redis-prefix) and their blocks through the shared store. Two app instances on one
 * PostgreSQL database and one Redis prefix (both unique to each test) must limit and block as one.
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { DEFAULT_LOGIN_LIMITS } from '../../../src/app/login.ts';
import { DEFAULT_RATE_LIMITS } from '../../../src/domain/rate-limit.ts';
import { eventually } from '../../support/eventually.ts';
import { LOCK_A, LOCK_B, OWNER, OWNER_KEY, startServer, type TestServer } from '../../support/server.ts';
import { v1Token } from './command-helpers.ts';
import {
  advance,
  call,
  floodUntilBlocked,
  getLockFrom,
  limitsFile,
  OTHER_ADDRESS,
  retryAfter,
  type SharedBackends,
  sharedBackends,
  summarize,
  warmUp,
} from './helpers.ts';

const BLOCK = { excess: 5, window_seconds: 60, block_minutes: 30 };

describe('v3 rate limits in Redis: two instances limit as one', () => {
  const file = limitsFile({
    endpoints: {
      'GET /public/lock/{device_id}': { account: { burst: 4, per_second: 1 } },
      // Generous, so that polling it never throttles: only a block can refuse it.
      'GET /public/locks': {
        account: { burst: 1000, per_second: 100 },
        ip: { burst: 1000, per_second: 100 },
      },
    },
    block: BLOCK,
  });
  let shared: SharedBackends;
  let a: TestServer;
  let b: TestServer;
  beforeEach(async () => {
    shared = await sharedBackends('redis');
    const flags = ['--rate-limits', file.path, ...shared.flags];
    a = await startServer({ dataDir: shared.dataDir, flags });
    // The second instance finds the data the first seeded.
    b = await startServer({ dataDir: shared.dataDir, flags });
    await warmUp(a, b);
  });
  afterEach(async () => {
    await a.close();
    await b.close();
    await shared.drop();
  });

  /** Both instances' clocks move together, as they would in real time. */
  async function advanceBoth(seconds: number): Promise<void> {
    await advance(a, seconds);
    await advance(b, seconds);
  }

  it('requests spread over both instances spend one bucket: 4 in all, then 429 on both', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) statuses.push((await getLockFrom(i % 2 === 0 ? a : b)).status);
    assert.equal(summarize(statuses), '4x200 4x429');
    const refused = await getLockFrom(b);
    assert.deepEqual([refused.status, refused.body], [429, { error: 'THROTTLED' }]);
    assert.equal(retryAfter(refused), 1);

    await advanceBoth(1);
    assert.equal((await getLockFrom(a)).status, 200);
    assert.equal((await getLockFrom(b)).status, 429);
  });

  it('refusals through both instances add up to one block, which both then refuse', async () => {
    for (let i = 0; i < 4; i++) assert.equal((await getLockFrom(a)).status, 200);
    // Alternate the instances: the excess bucket is shared too, so about 5 refusals in all block.
    let sent = 0;
    const { statuses } = await floodUntilBlocked(() => getLockFrom(sent++ % 2 === 0 ? a : b), 40);
    assert.ok(statuses.length >= BLOCK.excess && statuses.length <= BLOCK.excess + 2, summarize(statuses));
    for (const instance of [a, b]) {
      const reply = await getLockFrom(instance);
      assert.deepEqual([reply.status, reply.body], [403, { error: 'ACCESS_DENY' }]);
      assert.ok(retryAfter(reply) > 1790, `Retry-After ${retryAfter(reply)}`);
      assert.equal(
        (await getLockFrom(instance, OTHER_ADDRESS)).status,
        429,
        'the account is still throttled',
      );
      assert.equal(
        (await call(instance, '/public/locks', { key: OWNER_KEY, from: OTHER_ADDRESS })).status,
        200,
      );
    }
    await advanceBoth(BLOCK.block_minutes * 60);
    for (const instance of [a, b]) assert.equal((await getLockFrom(instance)).status, 200);
  });

  it('a block made through one instance is refused by the other within about a second', async () => {
    // Flood through A only; B is asked nothing that could be refused, so only A's block can stop it.
    for (let i = 0; i < 4; i++) assert.equal((await getLockFrom(a)).status, 200);
    await floodUntilBlocked(() => getLockFrom(a), 40);
    // B learns of blocks on a one-second timer: the wait is generous, and no duration is asserted.
    const seen = await eventually(
      'B to refuse the address A blocked',
      async () => {
        const reply = await call(b, '/public/locks', { key: OWNER_KEY });
        return reply.status !== 200 && reply;
      },
      { everyMs: 25 },
    );
    assert.deepEqual([seen.status, seen.body], [403, { error: 'ACCESS_DENY' }]);
    assert.ok(retryAfter(seen) > 1790, `Retry-After ${retryAfter(seen)}`);
    // B refuses it everywhere, and only it.
    assert.equal(
      (await call(b, '/public/partners/automation', { method: 'POST', json: { apikey: 'x' } })).status,
      403,
    );
    assert.equal((await call(b, '/public/locks', { key: OWNER_KEY, from: OTHER_ADDRESS })).status, 200);
  });
});

describe('the command budget in Redis: two instances spend one budget per account and lock', () => {
  let shared: SharedBackends;
  let a: TestServer;
  let b: TestServer;
  beforeEach(async () => {
    shared = await sharedBackends('redis-commands');
    a = await startServer({ dataDir: shared.dataDir, flags: shared.flags });
    b = await startServer({ dataDir: shared.dataDir, flags: shared.flags });
    await warmUp(a, b);
  });
  afterEach(async () => {
    await a.close();
    await b.close();
    await shared.drop();
  });

  it('v1 control through one instance spends the budget v3 then meets through the other', async () => {
    const token = await v1Token(a);
    const control = (t: TestServer, i: number) =>
      call(t, `/v1/locks/${LOCK_A}/control`, {
        method: 'POST',
        json: { type: i % 2 === 0 ? 'unlock' : 'lock' },
        headers: { 'x-authorization': token },
      });
    const statuses: number[] = [];
    for (let i = 0; i < 40 && !statuses.includes(429); i++) statuses.push((await control(a, i)).status);
    assert.equal(statuses.at(-1), 429, summarize(statuses));
    assert.ok(statuses.length > DEFAULT_RATE_LIMITS.commands.burst, summarize(statuses));
    // The other instance has its own memory, but the budget is in Redis.
    const refused = await call(b, `/public/lock/${LOCK_A}`, {
      method: 'POST',
      key: OWNER_KEY,
      json: { command: 'lock' },
    });
    assert.deepEqual([refused.status, refused.body], [429, { error: 'THROTTLED' }]);
    const v1 = await control(b, 0);
    assert.deepEqual([v1.status, v1.body], [429, { code: 42900, message: 'TooManyRequests' }]);
    // Another lock of the account is not held back, on either instance.
    const other = await call(b, `/public/lock/${LOCK_B}`, {
      method: 'POST',
      key: OWNER_KEY,
      json: { command: 'lock' },
    });
    assert.equal(other.status, 200, JSON.stringify(other.body));
  });
});

describe('v1 login limits in Redis: two instances share the login budgets', () => {
  let shared: SharedBackends;
  let a: TestServer;
  let b: TestServer;
  beforeEach(async () => {
    shared = await sharedBackends('redis-login');
    a = await startServer({ dataDir: shared.dataDir, flags: shared.flags });
    b = await startServer({ dataDir: shared.dataDir, flags: shared.flags });
    await warmUp(a, b);
  });
  afterEach(async () => {
    await a.close();
    await b.close();
    await shared.drop();
  });

  const login = (t: TestServer, from?: string, password = 'owner-password') =>
    call(t, '/v1/accounts/login', {
      method: 'POST',
      json: { email: OWNER, password },
      from,
    });
  const TOO_MANY = [429, { code: 42900, message: 'TooManyRequests' }];

  it('failed logins of one e-mail from one address, spread over both instances, spend one budget', async () => {
    const { burst, intervalMs } = DEFAULT_LOGIN_LIMITS.failuresPerEmailAndIp;
    const statuses: number[] = [];
    for (let i = 0; i < burst; i++)
      statuses.push((await login(i % 2 === 0 ? a : b, undefined, 'wrong')).status);
    assert.equal(summarize(statuses), `${burst}x400`);
    for (const instance of [a, b]) {
      const refused = await login(instance);
      assert.deepEqual([refused.status, refused.body], TOO_MANY);
      assert.ok(retryAfter(refused) <= intervalMs / 1000);
    }
    // Another address is not held back by this one's failures.
    assert.equal((await login(a, OTHER_ADDRESS)).status, 200);
    // One interval later, on both clocks: one more failure, through either instance, not two.
    await advance(a, intervalMs / 1000);
    await advance(b, intervalMs / 1000);
    assert.equal((await login(b, undefined, 'wrong')).status, 400);
    assert.equal((await login(a, undefined, 'wrong')).status, 429);
  });

  it('attempts from clients the e-mail does not know spend one budget across instances; a known client is known to both', async () => {
    // The owner logs in through one instance from their usual address before the attack: not known
    // yet, so that login spent one of the budget.
    assert.equal((await login(a, '127.0.0.1')).status, 200);
    const left = DEFAULT_LOGIN_LIMITS.perEmailFromNewClients.burst - 1;
    const statuses: number[] = [];
    for (let i = 0; i < left; i++)
      statuses.push((await login(i % 2 === 0 ? a : b, `127.0.1.${i + 1}`, 'wrong')).status);
    assert.equal(summarize(statuses), `${left}x400`);
    for (const instance of [a, b]) {
      const refused = await login(instance, '127.0.2.1');
      assert.deepEqual(
        [refused.status, refused.body],
        TOO_MANY,
        'a new client, even with the right password',
      );
    }
    assert.equal((await login(b, '127.0.0.1')).status, 200, 'the owner, through the other instance');
  });
});
