import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import {
  LOCK_A,
  LOCK_B,
  OTHER,
  OTHER_LOCK,
  OWNER,
  simLockOk,
  startServer,
  type TestServer,
} from '../../support/server.ts';
import { expectAnswer, FLAGS, JSON_UTF8, login, readLock, UNKNOWN_LOCK, V1, v1 } from './helpers.ts';

const FRONT = { nickname: 'Front door', is_unlocked: false, api_enabled: true, battery: 100 };
const BACK = { nickname: 'Back door', is_unlocked: true, api_enabled: true, battery: 55 };

describe('GET /v1/locks/:lockId', () => {
  let t: TestServer;
  let owner: string;
  let other: string;
  beforeEach(async () => {
    t = await startServer({ flags: FLAGS });
    owner = await login(t, OWNER);
    other = await login(t, OTHER);
  });
  afterEach(() => t.close());

  it('answers 200 with exactly nickname, is_unlocked, api_enabled, battery (no device_id)', async () => {
    const res = await readLock(t, owner, LOCK_A);
    assert.equal(res.headers.get('content-type'), JSON_UTF8);
    await expectAnswer(res, { status: 200, body: FRONT });
    await expectAnswer(await readLock(t, owner, LOCK_B), { status: 200, body: BACK });
  });

  it('takes the id in upper case', async () => {
    await expectAnswer(await readLock(t, owner, LOCK_A.toUpperCase()), { status: 200, body: FRONT });
  });

  it('follows what the lock reports: a hand turn, the battery, and the integration setting', async () => {
    await simLockOk(t, LOCK_A, { locked: false, battery: 42 });
    await expectAnswer(await readLock(t, owner, LOCK_A), {
      status: 200,
      body: { ...FRONT, is_unlocked: true, battery: 42 },
    });
    await simLockOk(t, LOCK_A, { integration: false });
    await expectAnswer(await readLock(t, owner, LOCK_A), {
      status: 200,
      body: { ...FRONT, is_unlocked: true, battery: 42, api_enabled: false },
    });
    await simLockOk(t, LOCK_A, { integration: true, access_point: false });
    assert.equal(
      ((await (await readLock(t, owner, LOCK_A)).json()) as { api_enabled: boolean }).api_enabled,
      false,
    );
  });

  it('answers 400 11002 for an unknown lock, a malformed id, and a lock of another account', async () => {
    for (const id of [UNKNOWN_LOCK, 'not-a-uuid', `${LOCK_A}0`, '1234', OTHER_LOCK]) {
      await expectAnswer(await readLock(t, owner, id), V1.LOCK_NOT_FOUND, id);
    }
    await expectAnswer(await readLock(t, other, LOCK_B), V1.LOCK_NOT_FOUND);
  });

  it('answers 403 30000 for a lock shared with the account, which it can list but not read', async () => {
    await expectAnswer(await readLock(t, other, LOCK_A), V1.NOT_OWNER);
    await expectAnswer(await readLock(t, other, LOCK_A.toUpperCase()), V1.NOT_OWNER);
    const list = (await (await v1(t, '/locks', { token: other })).json()) as {
      locks: { device_id: string }[];
    };
    assert.ok(list.locks.some((l) => l.device_id === LOCK_A));
  });

  it('checks the token before the lock', async () => {
    await expectAnswer(await v1(t, `/locks/${UNKNOWN_LOCK}`), V1.MISSING_TOKEN);
    await expectAnswer(await v1(t, `/locks/${OTHER_LOCK}`, { token: 'nope' }), V1.WRONG_TOKEN);
    await expectAnswer(await v1(t, `/locks/${LOCK_A}`, { token: 'nope' }), V1.WRONG_TOKEN);
  });
});

describe('/v1: routes that do not exist', () => {
  let t: TestServer;
  let owner: string;
  beforeEach(async () => {
    t = await startServer({ flags: FLAGS });
    owner = await login(t, OWNER);
  });
  afterEach(() => t.close());

  const cases: Array<readonly [string, string]> = [
    ['GET', '/nothing'],
    ['GET', '/'],
    ['GET', `/locks/${LOCK_A}/state`],
    ['GET', `/locks/${LOCK_A}/control/x`],
    ['GET', '/accounts/login'],
    ['PUT', '/accounts/login'],
    ['POST', '/locks'],
    ['DELETE', `/locks/${LOCK_A}`],
    ['POST', `/locks/${LOCK_A}`],
    ['GET', `/locks/${LOCK_A}/control`],
    ['PUT', `/locks/${LOCK_A}/control`],
    ['PATCH', `/locks/${LOCK_A}/control`],
    ['POST', '/accounts/logout'],
  ];

  it('answers 404 40400 for an unknown route or a wrong method, whatever credentials come with it', async () => {
    for (const [method, path] of cases) {
      for (const token of [undefined, 'not-a-token', owner]) {
        await expectAnswer(await v1(t, path, { method, token }), V1.NOT_FOUND, `${method} ${path} ${token}`);
      }
    }
  });

  it('answers 404 40400 whatever the body, malformed JSON included', async () => {
    for (const [method, path] of cases.filter(([m]) => m !== 'GET')) {
      await expectAnswer(await v1(t, path, { method, raw: '{bad' }), V1.NOT_FOUND, `${method} ${path}`);
    }
  });
});
