/**
 * The v1 client against a live server: login, every method, and the v1 error codes mapped to
 * their classes (the few the sandbox cannot provoke through a canned fetch).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { V1_ERROR_CLASSES } from '../../sdk/src/errors-v1.ts';
import {
  AccountDeletedError,
  AccountLockedError,
  AuthTokenExpiredByPasswordChangeError,
  AuthTokenExpiredError,
  CloudApiNotEnabledError,
  EmailNotVerifiedError,
  InvalidEmailError,
  LockCommandTimeoutError,
  LockcloudError,
  LockcloudV1Client,
  LockJammedError,
  LockLowBatteryError,
  LockNotFoundError,
  LockUnreachableError,
  MissingAuthTokenError,
  OwnerPermissionRequiredError,
  RequiredFieldEmptyError,
  V1Error,
  V1InternalError,
  V1NotFoundError,
  V1ServiceUnavailableError,
  WrongAuthTokenError,
  WrongControlTypeError,
  WrongEmailOrPasswordError,
} from '../../sdk/src/index.ts';
import {
  advanceClock,
  LOCK_A,
  LOCK_B,
  OTHER,
  OWNER,
  simLockOk,
  standardSeed,
  startServer,
  type TestServer,
} from '../support/server.ts';
import { cannedFetch } from './helpers.ts';

const UNVERIFIED = 'unverified@example.com';
const SOCIAL = 'social@example.com';

describe('sdk: LockcloudV1Client', () => {
  let t: TestServer;
  let v1: LockcloudV1Client;
  before(async () => {
    const seed = standardSeed();
    t = await startServer({
      seed: {
        ...seed,
        accounts: [
          ...(seed.accounts ?? []),
          { email: UNVERIFIED, password: 'pw-unverified', verified: false },
          { email: SOCIAL, password: null, verified: true },
        ],
      },
      flags: ['--no-rate-limit', '--command-timeout-ms', '500'],
    });
    v1 = await LockcloudV1Client.login(t.url, OWNER, 'owner-password');
  });
  after(() => t.close());

  it('login gives a client with a token; listLocks unwraps {locks}; getLock answers the status', async () => {
    assert.equal(typeof v1.token, 'string');
    const locks = await v1.listLocks();
    assert.deepEqual(
      locks.map((l) => l.device_id),
      [LOCK_A, LOCK_B],
    );
    assert.deepEqual(locks[1], {
      device_id: LOCK_B,
      nickname: 'Back door',
      is_unlocked: true,
      api_enabled: true,
      battery: 55,
    });
    assert.deepEqual(await v1.getLock(LOCK_A), {
      nickname: 'Front door',
      is_unlocked: false,
      api_enabled: true,
      battery: 100,
    });
  });

  it('control resolves once the lock confirmed', async () => {
    assert.equal(await v1.control(LOCK_A, 'unlock'), undefined);
    assert.equal((await v1.getLock(LOCK_A)).is_unlocked, true);
    await v1.control(LOCK_A, 'lock');
    assert.equal((await v1.getLock(LOCK_A)).is_unlocked, false);
  });

  it('login errors: 10000, 10001, 10002, 31000, 31001', async () => {
    const err = await LockcloudV1Client.login(t.url, '', 'x').catch((e: unknown) => e);
    assert.ok(
      err instanceof RequiredFieldEmptyError && err instanceof V1Error && err instanceof LockcloudError,
    );
    assert.equal(err.code, 10000);
    assert.equal(err.status, 400);
    assert.equal(err.message, 'RequiredFieldEmpty (10000)');
    await assert.rejects(LockcloudV1Client.login(t.url, 'not-an-email', 'x'), InvalidEmailError);
    await assert.rejects(LockcloudV1Client.login(t.url, OWNER, 'wrong'), WrongEmailOrPasswordError);
    await assert.rejects(LockcloudV1Client.login(t.url, UNVERIFIED, 'pw-unverified'), EmailNotVerifiedError);
    await assert.rejects(LockcloudV1Client.login(t.url, SOCIAL, 'anything'), AccountLockedError);
  });

  it('lock errors: 10005, 11002, 30000, 32000', async () => {
    await assert.rejects(v1.control(LOCK_A, 'open' as never), WrongControlTypeError);
    await assert.rejects(v1.getLock('no-such-lock'), LockNotFoundError);
    await assert.rejects(v1.control('no-such-lock', 'lock'), LockNotFoundError);
    const other = await LockcloudV1Client.login(t.url, OTHER, 'other-password');
    const err = await other.control(LOCK_A, 'unlock').catch((e: unknown) => e);
    assert.ok(err instanceof OwnerPermissionRequiredError);
    assert.equal(err.status, 403);
    await simLockOk(t, LOCK_B, { integration: false });
    await assert.rejects(v1.control(LOCK_B, 'lock'), CloudApiNotEnabledError);
    await simLockOk(t, LOCK_B, { integration: true });
  });

  it('execution errors: 50002 unreachable, 50003 timeout, 50004 low battery, 50005 jammed', async () => {
    await simLockOk(t, LOCK_B, { fail_next: 'DEVICE_UNREACHABLE' });
    await assert.rejects(v1.control(LOCK_B, 'lock'), LockUnreachableError);
    await simLockOk(t, LOCK_B, { fail_next: 'TIMEOUT' });
    await assert.rejects(v1.control(LOCK_B, 'lock'), LockCommandTimeoutError);
    await simLockOk(t, LOCK_B, { fail_next: 'JAMMED' });
    const jammed = await v1.control(LOCK_B, 'lock').catch((e: unknown) => e);
    assert.ok(jammed instanceof LockJammedError);
    assert.deepEqual([jammed.status, jammed.code], [500, 50005]);
    await simLockOk(t, LOCK_B, { battery: 5 });
    await assert.rejects(v1.control(LOCK_B, 'lock'), LockLowBatteryError);
    await simLockOk(t, LOCK_B, { battery: 55 });
  });

  it('token errors: 20000, 20001, 20003, 20004, 20002', async () => {
    await assert.rejects(
      new LockcloudV1Client({
        baseUrl: t.url,
        token: 'x',
        fetch: cannedFetch(401, { code: 20000 }),
      }).listLocks(),
      MissingAuthTokenError,
    );
    await assert.rejects(
      new LockcloudV1Client({ baseUrl: t.url, token: 'nope' }).listLocks(),
      WrongAuthTokenError,
    );
    const other = await LockcloudV1Client.login(t.url, OTHER, 'other-password');
    const res = await t.request(`/_sim/accounts/${OTHER}`, {
      method: 'POST',
      json: { password: 'changed-pw' },
    });
    assert.equal(res.status, 200);
    await assert.rejects(other.listLocks(), AuthTokenExpiredByPasswordChangeError);
    const again = await LockcloudV1Client.login(t.url, OTHER, 'changed-pw');
    await advanceClock(t, 31 * 24 * 3600);
    await assert.rejects(again.listLocks(), AuthTokenExpiredError);
    await t.request(`/_sim/accounts/${OTHER}`, { method: 'POST', json: { deleted: true } });
    await assert.rejects(again.listLocks(), AccountDeletedError);
  });

  it('40400 for a wrong base URL; 50000 and unknown 5xxxx codes are V1InternalError', async () => {
    const err = await new LockcloudV1Client({ baseUrl: `${t.url}/nope`, token: v1.token })
      .listLocks()
      .catch((e: unknown) => e);
    assert.ok(err instanceof V1NotFoundError);
    assert.equal(err.code, 40400);
    const make = (status: number, body: unknown) =>
      new LockcloudV1Client({ baseUrl: t.url, token: 'x', fetch: cannedFetch(status, body) });
    await assert.rejects(make(500, { code: 50000, message: 'InternalError' }).listLocks(), V1InternalError);
    await assert.rejects(make(500, { code: 50099, message: 'Other' }).listLocks(), V1InternalError);
    await assert.rejects(
      make(503, { code: 50300, message: 'ServiceUnavailable' }).listLocks(),
      V1ServiceUnavailableError,
    );
    const plain = await make(418, 'teapot')
      .listLocks()
      .catch((e: unknown) => e);
    assert.ok(plain instanceof V1Error && !(plain instanceof V1InternalError));
    assert.equal(plain.status, 418);
  });

  it('every v1 code has its own class', () => {
    const classes = Object.values(V1_ERROR_CLASSES);
    assert.equal(new Set(classes).size, classes.length);
  });
});
