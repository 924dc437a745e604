/**
 * The server's hourly purges, driven by the sandbox clock: what has expired is forgotten, what is
 * still in force stays. Ended IP blocks were never forgotten before the purges became one loop.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startServer, type TestServer } from '../../support/server.ts';

describe('the hourly purges of a running server', () => {
  let t: TestServer;
  before(async () => {
    t = await startServer();
  });
  after(() => t.close());

  it('forget an ended IP block within the hour, and keep one still in force', async () => {
    const { blocks } = t.server.store;
    const now = t.server.clock.now();
    await blocks.block({ ip: '198.51.100.7', blockedAt: now, until: now + 60_000 });
    await blocks.block({ ip: '198.51.100.8', blockedAt: now, until: now + 3 * 3600_000 });
    const res = await t.request('/_sim/clock', { method: 'POST', json: { advance_seconds: 3600 } });
    assert.equal(res.status, 200);
    const left = await blocks.listActive(Number.MIN_SAFE_INTEGER);
    assert.deepEqual(
      left.map((b) => b.ip),
      ['198.51.100.8'],
    );
  });
});
