import assert from 'node:assert/strict';
import { after, afterEach, before, beforeEach, describe, it } from 'node:test';
import {
  LOCK_A,
  LOCK_B,
  OTHER,
  OTHER_KEY,
  OTHER_LOCK,
  OWNER,
  simLockOk,
  startServer,
  type TestServer,
} from '../../support/server.ts';
import { expectAnswer, FLAGS, JSON_UTF8, listLocks, login, V1, v1 } from './helpers.ts';

const FRONT = {
  device_id: LOCK_A,
  nickname: 'Front door',
  is_unlocked: false,
  api_enabled: true,
  battery: 100,
};
const BACK = { device_id: LOCK_B, nickname: 'Back door', is_unlocked: true, api_enabled: true, battery: 55 };
const THEIRS = {
  device_id: OTHER_LOCK,
  nickname: 'Their door',
  is_unlocked: false,
  api_enabled: true,
  battery: 100,
};

describe('GET /v1/locks', () => {
  let t: TestServer;
  let owner: string;
  let other: string;
  beforeEach(async () => {
    t = await startServer({ flags: FLAGS });
    owner = await login(t, OWNER);
    other = await login(t, OTHER);
  });
  afterEach(() => t.close());

  it('answers 200 {"locks":[...]} with exactly the five fields of each lock the account owns', async () => {
    const res = await listLocks(t, owner);
    assert.equal(res.headers.get('content-type'), JSON_UTF8);
    await expectAnswer(res, { status: 200, body: { locks: [FRONT, BACK] } });
  });

  it('lists the locks shared with the account beside its own', async () => {
    await expectAnswer(await listLocks(t, other), { status: 200, body: { locks: [FRONT, THEIRS] } });
  });

  it('answers {"locks":[]} for an account with no lock', async () => {
    const lonely = await startServer({
      flags: FLAGS,
      seed: { accounts: [{ email: 'lonely@example.com', password: 'lonely-password' }] },
    });
    try {
      const token = await login(lonely, 'lonely@example.com', 'lonely-password');
      await expectAnswer(await listLocks(lonely, token), { status: 200, body: { locks: [] } });
    } finally {
      await lonely.close();
    }
  });

  it('shows api_enabled false for integration off or no access point, and the lock as the devices report it', async () => {
    await simLockOk(t, LOCK_A, { integration: false });
    await simLockOk(t, LOCK_B, { access_point: false });
    await simLockOk(t, OTHER_LOCK, { locked: false, battery: 7 });
    await expectAnswer(await listLocks(t, owner), {
      status: 200,
      body: {
        locks: [
          { ...FRONT, api_enabled: false },
          { ...BACK, api_enabled: false },
        ],
      },
    });
    await expectAnswer(await listLocks(t, other), {
      status: 200,
      body: {
        locks: [
          { ...FRONT, api_enabled: false },
          { ...THEIRS, is_unlocked: true, battery: 7 },
        ],
      },
    });
  });

  it('accepts a JSON content type on the GET', async () => {
    const res = await v1(t, '/locks', { token: owner, headers: { 'content-type': 'application/json' } });
    await expectAnswer(res, { status: 200, body: { locks: [FRONT, BACK] } });
  });

  it('answers 401 20000 without X-Authorization or with an empty one', async () => {
    await expectAnswer(await v1(t, '/locks'), V1.MISSING_TOKEN);
    await expectAnswer(await v1(t, '/locks', { token: '' }), V1.MISSING_TOKEN);
    await expectAnswer(await v1(t, '/locks', { token: '   ' }), V1.MISSING_TOKEN);
    // The token in the v3 header is not a v1 token.
    await expectAnswer(await v1(t, '/locks', { headers: { authorization: owner } }), V1.MISSING_TOKEN);
  });

  it('answers 401 20001 for a token it does not know, a v3 API key among them', async () => {
    for (const token of ['not-a-token', `${owner}x`, owner.slice(1), OTHER_KEY, `Bearer ${owner}`]) {
      await expectAnswer(await v1(t, '/locks', { token }), V1.WRONG_TOKEN, token);
    }
  });
});

describe('GET /v1/locks: order', () => {
  let t: TestServer;
  before(async () => {
    t = await startServer({ flags: FLAGS });
  });
  after(() => t.close());

  it('lists in the same order every time', async () => {
    const token = await login(t, OWNER);
    const first = await (await listLocks(t, token)).json();
    for (let i = 0; i < 3; i++) assert.deepEqual(await (await listLocks(t, token)).json(), first);
  });
});
