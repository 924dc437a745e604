import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import {
  answer,
  getLock,
  LOCK_A,
  LOCK_B,
  OTHER,
  OTHER_KEY,
  OTHER_LOCK,
  OWNER_KEY,
  simLockOk,
  startServer,
  type TestServer,
} from '../../support/server.ts';

// Rate limiting is not what these tests are about; they poll fast.
const FLAGS = ['--no-rate-limit'];
const BAD_PARAMS = { status: 400, body: { error: 'BAD_PARAMS' } };
const UNAUTHORIZED = { status: 401, body: { error: 'UNAUTHORIZED' } };
const UNKNOWN_LOCK = '00000000-0000-4000-8000-0000000000ff';

describe('GET /public/lock/:device_id', () => {
  let t: TestServer;
  beforeEach(async () => {
    t = await startServer({ flags: FLAGS });
  });
  afterEach(() => t.close());

  it('answers 200 with exactly {locked, battery, responsive} from the seed', async () => {
    const res = await getLock(t, LOCK_A);
    assert.equal(res.headers.get('content-type'), 'application/json; charset=utf-8');
    assert.deepEqual(await answer(res), {
      status: 200,
      body: { locked: true, battery: 100, responsive: true },
    });
    assert.deepEqual(await answer(await getLock(t, LOCK_B)), {
      status: 200,
      body: { locked: false, battery: 55, responsive: true },
    });
  });

  it('accepts the device id in upper case and a Bearer prefix on the key', async () => {
    assert.deepEqual(await answer(await getLock(t, LOCK_A.toUpperCase())), {
      status: 200,
      body: { locked: true, battery: 100, responsive: true },
    });
    assert.deepEqual(await answer(await getLock(t, LOCK_A, `Bearer ${OWNER_KEY}`)), {
      status: 200,
      body: { locked: true, battery: 100, responsive: true },
    });
  });

  it('accepts Content-Type: application/json on the GET', async () => {
    const res = await t.request(`/public/lock/${LOCK_A}`, {
      key: OWNER_KEY,
      headers: { 'content-type': 'application/json' },
    });
    assert.deepEqual(await answer(res), {
      status: 200,
      body: { locked: true, battery: 100, responsive: true },
    });
  });

  it('answers from the stored status with integration off', async () => {
    await simLockOk(t, LOCK_A, { integration: false });
    assert.deepEqual(await answer(await getLock(t, LOCK_A)), {
      status: 200,
      body: { locked: true, battery: 100, responsive: true },
    });
  });

  it('answers from the stored status for a lock with no access point, which reads unresponsive', async () => {
    await simLockOk(t, LOCK_B, { access_point: false });
    assert.deepEqual(await answer(await getLock(t, LOCK_B)), {
      status: 200,
      body: { locked: false, battery: 55, responsive: false },
    });
  });

  it('follows the lock turned by hand, a new battery reading and the lock going out of reach', async () => {
    await simLockOk(t, LOCK_A, { locked: false, battery: 42 });
    assert.deepEqual(await answer(await getLock(t, LOCK_A)), {
      status: 200,
      body: { locked: false, battery: 42, responsive: true },
    });
    await simLockOk(t, LOCK_A, { responsive: false });
    assert.deepEqual(await answer(await getLock(t, LOCK_A)), {
      status: 200,
      body: { locked: false, battery: 42, responsive: false },
    });
    await simLockOk(t, LOCK_A, { responsive: true });
    assert.deepEqual(await answer(await getLock(t, LOCK_A)), {
      status: 200,
      body: { locked: false, battery: 42, responsive: true },
    });
  });

  it('answers 400 BAD_PARAMS for an unknown device id', async () => {
    assert.deepEqual(await answer(await getLock(t, UNKNOWN_LOCK)), BAD_PARAMS);
  });

  it('answers 400 BAD_PARAMS for a malformed device id', async () => {
    for (const id of [
      'not-a-uuid',
      '1234',
      '00000000000040008000000000000000a',
      `${LOCK_A}0`,
      `x${LOCK_A.slice(1)}`,
      'zzzzzzzz-zzzz-zzzz-zzzz-zzzzzzzzzzzz',
      '%20',
      '',
    ]) {
      assert.deepEqual(await answer(await getLock(t, id)), BAD_PARAMS, `id ${JSON.stringify(id)}`);
    }
  });

  it('answers 400 BAD_PARAMS for a lock of another account, just like an unknown one', async () => {
    assert.deepEqual(await answer(await getLock(t, OTHER_LOCK, OWNER_KEY)), BAD_PARAMS);
    assert.deepEqual(await answer(await getLock(t, LOCK_B, OTHER_KEY)), BAD_PARAMS);
  });

  it('answers 400 BAD_PARAMS for a lock merely shared with the account', async () => {
    // LOCK_A is shared with the other account in the standard seed; only owned locks are usable.
    assert.deepEqual(await answer(await getLock(t, LOCK_A, OTHER_KEY)), BAD_PARAMS);
  });

  it('answers 401 UNAUTHORIZED without a key, with an empty or unknown key', async () => {
    assert.deepEqual(await answer(await t.request(`/public/lock/${LOCK_A}`)), UNAUTHORIZED);
    for (const key of ['', 'Bearer ', 'not-a-known-key', `${OWNER_KEY}x`]) {
      assert.deepEqual(
        await answer(await getLock(t, LOCK_A, key)),
        UNAUTHORIZED,
        `key ${JSON.stringify(key)}`,
      );
    }
  });

  it('answers 401 before looking at the id: no key with a malformed or unknown id', async () => {
    assert.deepEqual(await answer(await t.request('/public/lock/not-a-uuid')), UNAUTHORIZED);
    assert.deepEqual(await answer(await t.request(`/public/lock/${UNKNOWN_LOCK}`)), UNAUTHORIZED);
  });

  it('answers 401 for the key of a deleted account', async () => {
    assert.deepEqual(await answer(await getLock(t, OTHER_LOCK, OTHER_KEY)), {
      status: 200,
      body: { locked: true, battery: 100, responsive: true },
    });
    const res = await t.request(`/_sim/accounts/${encodeURIComponent(OTHER)}`, {
      method: 'POST',
      json: { deleted: true },
    });
    assert.equal(res.status, 200);
    assert.deepEqual(await answer(await getLock(t, OTHER_LOCK, OTHER_KEY)), UNAUTHORIZED);
  });

  it('answers 404 NOT_FOUND for a path under the lock that does not exist, without checking the key', async () => {
    assert.deepEqual(await answer(await t.request(`/public/lock/${LOCK_A}/status`)), {
      status: 404,
      body: { error: 'NOT_FOUND' },
    });
    assert.deepEqual(
      await answer(await t.request(`/public/lock/${LOCK_A}`, { method: 'DELETE', key: 'nope' })),
      {
        status: 404,
        body: { error: 'NOT_FOUND' },
      },
    );
  });
});
