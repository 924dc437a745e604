/**
 * docs/sandbox.md: "--no-rate-limit turns rate limiting off, for load tests and benchmarks from one
 * address": no 429, no 403, no RateLimit headers, and no v1 login limit either.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DEFAULT_LOGIN_LIMITS } from '../../../src/app/login.ts';
import { DEFAULT_RATE_LIMITS } from '../../../src/domain/rate-limit.ts';
import { OWNER, OWNER_KEY, startServer, type TestServer } from '../../support/server.ts';
import { call, everyEndpoint, getLockFrom, summarize } from './helpers.ts';

describe('--no-rate-limit', () => {
  let t: TestServer;
  before(async () => {
    t = await startServer({ flags: ['--no-rate-limit'] });
  });
  after(() => t.close());

  // Far past the burst and the excess that would block the address with limits on.
  const FLOOD =
    DEFAULT_RATE_LIMITS.endpoints['GET /public/lock/{device_id}'].ip.burst +
    3 * DEFAULT_RATE_LIMITS.block.excess;

  it(`a flood of ${FLOOD} requests is never throttled nor blocked, and carries no RateLimit headers`, async () => {
    const statuses: number[] = [];
    for (let i = 0; i < FLOOD; i++) {
      const reply = await getLockFrom(t);
      statuses.push(reply.status);
      assert.equal(reply.headers.ratelimit, undefined);
      assert.equal(reply.headers['ratelimit-policy'], undefined);
      assert.equal(reply.headers['retry-after'], undefined);
    }
    assert.equal(summarize(statuses), `${FLOOD}x200`);
  });

  it('nor are floods of bad keys, and every endpoint still answers as without limits', async () => {
    const statuses = new Set<number>();
    for (let i = 0; i < FLOOD; i++)
      statuses.add((await call(t, '/public/locks', { key: 'not-a-key' })).status);
    assert.deepEqual([...statuses], [401]);
    for (const { name, path, options } of everyEndpoint(OWNER_KEY)) {
      const reply = await call(t, path, options);
      assert.ok([200, 400].includes(reply.status), `${name}: ${reply.status} ${JSON.stringify(reply.body)}`);
    }
  });

  it('nor is a flood of bad keys on /ext, whose answers carry no RateLimit headers either', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < FLOOD; i++) {
      const reply = await call(t, '/ext/webhook', { key: 'not-a-key' });
      statuses.push(reply.status);
      assert.equal(reply.headers.ratelimit, undefined);
    }
    assert.equal(summarize(statuses), `${FLOOD}x401`);
  });

  it('turns the v1 login limits off too', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < DEFAULT_LOGIN_LIMITS.failuresPerEmailAndIp.burst * 3; i++) {
      const reply = await call(t, '/v1/accounts/login', {
        method: 'POST',
        json: { email: OWNER, password: i % 2 === 0 ? 'wrong' : 'owner-password' },
      });
      statuses.push(reply.status);
    }
    assert.ok(!statuses.includes(429), summarize(statuses));
  });
});
