/**
 * docs/decisions.md: "A client that sends one request per second or fewer is never throttled", with the
 * DEFAULT limits. A simulated hour at 1/s: the sandbox clock moves 1 s between requests.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DEFAULT_RATE_LIMITS, LIMITED_ENDPOINTS } from '../../../src/domain/rate-limit.ts';
import { startServer, type TestServer } from '../../support/server.ts';
import { advance, getLockFrom, summarize } from './helpers.ts';

const HOUR = 3_600;

describe('v3 rate limits: one request a second is never throttled (default limits)', () => {
  let t: TestServer;
  before(async () => {
    t = await startServer();
  });
  after(() => t.close());

  it('the defaults allow at least 1 request a second on every endpoint, for the account and the address', () => {
    for (const endpoint of LIMITED_ENDPOINTS) {
      const { account, ip } = DEFAULT_RATE_LIMITS.endpoints[endpoint];
      assert.ok(account.intervalMs <= 1_000 && account.burst >= 1, `${endpoint} account`);
      assert.ok(ip.intervalMs <= 1_000 && ip.burst >= 1, `${endpoint} ip`);
    }
    // The command budget too: a client at one command a second is never refused by it.
    const { commands } = DEFAULT_RATE_LIMITS;
    assert.ok(commands.intervalMs <= 1_000 && commands.burst >= 1, 'commands');
  });

  it('GET /public/lock/{device_id} once a second for an hour: 3600 x 200', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < HOUR; i++) {
      const reply = await getLockFrom(t);
      statuses.push(reply.status);
      if (reply.status !== 200) assert.fail(`request ${i}: ${reply.status} ${JSON.stringify(reply.body)}`);
      await advance(t, 1);
    }
    assert.equal(summarize(statuses), '3600x200');
  });
});
