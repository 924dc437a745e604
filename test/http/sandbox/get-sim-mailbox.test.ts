import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { OTHER, OWNER, startServer, type TestServer } from '../../support/server.ts';
import { json } from './helpers.ts';

describe('GET /_sim/mailbox', () => {
  let t: TestServer;
  before(async () => {
    t = await startServer();
  });
  after(() => t.close());

  it('answers an empty array for an address no mail was sent to (nothing sends mail yet)', async () => {
    for (const to of [OWNER, OTHER, 'nobody@example.com', 'Owner@Example.COM']) {
      const res = await t.request(`/_sim/mailbox?to=${encodeURIComponent(to)}`);
      assert.equal(res.status, 200, to);
      assert.equal(res.headers.get('content-type'), 'application/json; charset=utf-8');
      assert.deepEqual(await res.json(), []);
    }
  });

  it('still answers [] after sandbox actions that send no mail', async () => {
    await t.request(`/_sim/accounts/${OWNER}`, { method: 'POST', json: { password: 'new-password-123' } });
    const res = await t.request(`/_sim/mailbox?to=${encodeURIComponent(OWNER)}`);
    assert.deepEqual(await res.json(), []);
  });

  it('answers 400 BAD_PARAMS without `to`, or with an empty or too short one', async () => {
    for (const query of ['', '?', '?to=', '?to=ab', '?from=owner%40example.com']) {
      const res = await t.request(`/_sim/mailbox${query}`);
      assert.equal(res.status, 400, query);
      const body = await json(res);
      assert.equal(body.error, 'BAD_PARAMS', query);
      assert.equal(typeof body.message, 'string', query);
    }
  });

  it('answers 404 NOT_FOUND to a POST (the route is read-only)', async () => {
    const res = await t.request(`/_sim/mailbox?to=${encodeURIComponent(OWNER)}`, {
      method: 'POST',
      json: {},
    });
    assert.equal(res.status, 404);
    const body = await json(res);
    assert.equal(body.error, 'NOT_FOUND');
    // The sandbox's words for a route it does not have point to its contract, in the repository.
    assert.equal(body.message, 'no POST route here (docs/sandbox.md)');
  });
});
