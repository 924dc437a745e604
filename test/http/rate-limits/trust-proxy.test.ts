/**
 * Behind a reverse proxy every request comes from the proxy's address. --trust-proxy names the
 * proxies whose X-Forwarded-For is believed; then the forwarded address is the client's, for its
 * bucket and for blocks. Without it X-Forwarded-For is a header anyone can send, and is ignored.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { OTHER_KEY, OWNER_KEY, startServer, type TestServer } from '../../support/server.ts';
import { advance, call, floodUntilBlocked, limitsFile, type Reply } from './helpers.ts';

// The address limit is the tight one here: 2 at once per address, the accounts' are far away.
const file = limitsFile({
  endpoints: {
    'GET /public/locks': {
      account: { burst: 1000, per_second: 100 },
      ip: { burst: 2, per_second: 1 },
    },
  },
  block: { excess: 5, window_seconds: 60, block_minutes: 30 },
});

const viaProxy = (t: TestServer, forwardedFor?: string, key = OWNER_KEY): Promise<Reply> =>
  call(t, '/public/locks', {
    key,
    headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor },
  });

async function statuses(t: TestServer, forwardedFor: string | undefined, n: number): Promise<number[]> {
  const seen: number[] = [];
  for (let i = 0; i < n; i++) seen.push((await viaProxy(t, forwardedFor)).status);
  return seen;
}

after(() => file.remove());

describe('--trust-proxy loopback', () => {
  let t: TestServer;
  before(async () => {
    t = await startServer({ flags: ['--rate-limits', file.path, '--trust-proxy', 'loopback'] });
  });
  after(() => t.close());

  it('gives each forwarded client address its own bucket', async () => {
    assert.deepEqual(await statuses(t, '203.0.113.1', 3), [200, 200, 429]);
    assert.deepEqual(await statuses(t, '203.0.113.2', 3), [200, 200, 429]);
    // The proxy's own requests (no X-Forwarded-For) are the proxy's address: a third bucket.
    assert.deepEqual(await statuses(t, undefined, 2), [200, 200]);
    // A client cannot escape its bucket by sending its own X-Forwarded-For through the proxy: the
    // proxy appends the address it saw, and that one (the last untrusted) is the client.
    assert.deepEqual(await statuses(t, '198.51.100.77, 203.0.113.1', 1), [429]);
    assert.deepEqual(await statuses(t, '198.51.100.77', 1), [200]);
  });

  it('blocks the forwarded address only, not the proxy nor its other clients', async () => {
    await advance(t, 60);
    await floodUntilBlocked(() => viaProxy(t, '203.0.113.9'), 40);
    const blocked = await viaProxy(t, '203.0.113.9', OTHER_KEY);
    assert.deepEqual([blocked.status, blocked.body], [403, { error: 'ACCESS_DENY' }]);
    assert.equal((await viaProxy(t, '203.0.113.10')).status, 200);
    assert.equal((await viaProxy(t, undefined)).status, 200);
  });
});

describe('without --trust-proxy', () => {
  let t: TestServer;
  before(async () => {
    t = await startServer({ flags: ['--rate-limits', file.path] });
  });
  after(() => t.close());

  it('ignores X-Forwarded-For: every request counts against the socket address', async () => {
    assert.deepEqual(await statuses(t, '203.0.113.1', 2), [200, 200]);
    assert.deepEqual(await statuses(t, '203.0.113.2', 1), [429]);
    assert.deepEqual(await statuses(t, undefined, 1), [429]);
    // And a flood under ever-changing forwarded addresses blocks the socket address.
    let i = 0;
    await floodUntilBlocked(() => viaProxy(t, `198.51.100.${i++ % 250}`), 40);
    assert.equal((await viaProxy(t, undefined)).status, 403);
  });
});
