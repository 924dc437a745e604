/**
 * docs/decisions.md: rate limits apply per endpoint "to both the account and the client IP". The account's
 * bucket holds across every address it calls from; the address's across every account it speaks for.
 * Two client addresses: 127.0.0.1 and 127.0.0.2 (Linux loopback takes any 127.x.y.z as a source).
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { OTHER_KEY, OWNER_KEY, startServer, type TestServer } from '../../support/server.ts';
import { advance, getLockFrom, limitsFile, OTHER_ADDRESS, rateLimitFields } from './helpers.ts';

const HOME = '127.0.0.1';

describe('v3 rate limits: account and address (a --rate-limits file: account 4, address 6 at once)', () => {
  const file = limitsFile({
    endpoints: {
      'GET /public/lock/{device_id}': {
        account: { burst: 4, per_second: 1 },
        ip: { burst: 6, per_second: 1 },
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
  // Every bucket full again between tests.
  beforeEach(() => advance(t, 60));

  it('the account limit holds across two client addresses with the same key', async () => {
    assert.equal((await getLockFrom(t, HOME)).status, 200);
    assert.equal((await getLockFrom(t, HOME)).status, 200);
    assert.equal((await getLockFrom(t, OTHER_ADDRESS)).status, 200);
    const last = await getLockFrom(t, OTHER_ADDRESS);
    assert.equal(last.status, 200);
    assert.equal(rateLimitFields(last).r, 0, 'the account has nothing left');

    // Each address has spent only 2 of its 6: it is the account that is refused, from both.
    for (const from of [OTHER_ADDRESS, HOME]) {
      const refused = await getLockFrom(t, from);
      assert.deepEqual([refused.status, refused.body], [429, { error: 'THROTTLED' }], from);
      assert.equal(rateLimitFields(refused).q, 4, `${from}: the account's policy is the one reported`);
    }
    // Another account from either address is not held back by this one's limit.
    assert.equal((await getLockFrom(t, OTHER_ADDRESS, OTHER_KEY)).status, 200);
    assert.equal((await getLockFrom(t, HOME, OTHER_KEY)).status, 200);
  });

  it('the address limit holds across two accounts calling from one address', async () => {
    for (let i = 0; i < 4; i++)
      assert.equal((await getLockFrom(t, HOME, OWNER_KEY)).status, 200, `owner ${i}`);
    assert.equal((await getLockFrom(t, HOME, OTHER_KEY)).status, 200);
    assert.equal((await getLockFrom(t, HOME, OTHER_KEY)).status, 200);
    // The other account has spent 2 of its 4, the address 6 of its 6: the address is refused.
    const refused = await getLockFrom(t, HOME, OTHER_KEY);
    assert.deepEqual([refused.status, refused.body], [429, { error: 'THROTTLED' }]);
    assert.equal(rateLimitFields(refused).q, 6, "the address's policy is the one reported");
    // The same account from another address still has its 2.
    assert.equal((await getLockFrom(t, OTHER_ADDRESS, OTHER_KEY)).status, 200);
    assert.equal((await getLockFrom(t, OTHER_ADDRESS, OTHER_KEY)).status, 200);
    assert.equal((await getLockFrom(t, OTHER_ADDRESS, OTHER_KEY)).status, 429);
  });

  it('an address refused by its own limit does not spend the account: the account still has its burst elsewhere', async () => {
    // Fill the address with the other account, then hammer it with the owner's key.
    for (let i = 0; i < 6; i++)
      assert.equal((await getLockFrom(t, HOME, OTHER_KEY)).status, i < 4 ? 200 : 429);
    await advance(t, 2);
    // Two back for the address; the owner takes them, then is refused by the address 20 times.
    assert.equal((await getLockFrom(t, HOME, OWNER_KEY)).status, 200);
    assert.equal((await getLockFrom(t, HOME, OWNER_KEY)).status, 200);
    for (let i = 0; i < 20; i++) assert.equal((await getLockFrom(t, HOME, OWNER_KEY)).status, 429);
    // The owner's account spent only 2 of its 4.
    assert.equal((await getLockFrom(t, OTHER_ADDRESS, OWNER_KEY)).status, 200);
    assert.equal((await getLockFrom(t, OTHER_ADDRESS, OWNER_KEY)).status, 200);
    assert.equal((await getLockFrom(t, OTHER_ADDRESS, OWNER_KEY)).status, 429);
  });
});
