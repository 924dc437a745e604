import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  LOCK_A,
  LOCK_B,
  OTHER_KEY,
  OTHER_LOCK,
  OWNER_KEY,
  startServer,
  type TestServer,
} from '../../support/server.ts';

describe('GET /public/locks', () => {
  let t: TestServer;
  before(async () => {
    t = await startServer();
  });
  after(() => t.close());

  it("lists the locks the key's account owns, as a bare array in a stable order", async () => {
    const res = await t.request('/public/locks', { key: OWNER_KEY });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'application/json; charset=utf-8');
    assert.deepEqual(await res.json(), [
      { device_id: LOCK_A, serial: 'SERIAL000A', nickname: 'Front door' },
      { device_id: LOCK_B, serial: 'SERIAL000B', nickname: 'Back door' },
    ]);
  });

  it('does not list locks merely shared with the account', async () => {
    const res = await t.request('/public/locks', { key: OTHER_KEY });
    assert.deepEqual(await res.json(), [
      { device_id: OTHER_LOCK, serial: 'SERIAL00CC', nickname: 'Their door' },
    ]);
  });

  it('accepts a Bearer prefix', async () => {
    const res = await t.request('/public/locks', { key: `Bearer ${OWNER_KEY}` });
    assert.equal(res.status, 200);
  });

  it('answers 401 UNAUTHORIZED without a key or with an unknown one', async () => {
    for (const key of [undefined, 'nope-not-a-key', '']) {
      const res = await t.request('/public/locks', key === undefined ? {} : { key });
      assert.equal(res.status, 401);
      assert.deepEqual(await res.json(), { error: 'UNAUTHORIZED' });
    }
  });
});
