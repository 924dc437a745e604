/**
 * The v3 client against a live server: every method, and every documented error answer mapped to
 * its class (the rare ones, 403 and 500, through a canned fetch).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  AccessDeniedError,
  BadParamsError,
  DeviceBusyError,
  IntegrationNotEnabledError,
  InternalError,
  LockcloudClient,
  LockcloudError,
  LowBatteryError,
  NotFoundError,
  ServiceUnavailableError,
  TaskFailedError,
  ThrottledError,
  UnauthorizedError,
  V3Error,
} from '../../sdk/src/index.ts';
import {
  LOCK_A,
  LOCK_B,
  OTHER_LOCK,
  OWNER_KEY,
  simLockOk,
  startServer,
  type TestServer,
} from '../support/server.ts';
import { cannedFetch, client } from './helpers.ts';

const UNKNOWN_LOCK = '00000000-0000-4000-8000-0000000000ff';

describe('sdk: LockcloudClient (v3)', () => {
  let t: TestServer;
  let c: LockcloudClient;
  before(async () => {
    t = await startServer({ flags: ['--no-rate-limit', '--command-timeout-ms', '3000'] });
    c = client(t);
  });
  after(() => t.close());

  it('listLocks answers the owned locks; getLock the stored status', async () => {
    assert.deepEqual(await c.listLocks(), [
      { device_id: LOCK_A, serial: 'SERIAL000A', nickname: 'Front door' },
      { device_id: LOCK_B, serial: 'SERIAL000B', nickname: 'Back door' },
    ]);
    assert.deepEqual(await c.getLock(LOCK_B), { locked: false, battery: 55, responsive: true });
  });

  it('a trailing slash on the base URL is fine', async () => {
    assert.equal((await client(t, { baseUrl: `${t.url}/` }).listLocks()).length, 2);
  });

  it('unlock, lock, sync and sendCommand answer a task that waitForTask sees through', async () => {
    const unlock = await c.unlock(LOCK_A);
    assert.equal(typeof unlock.task_id, 'string');
    assert.deepEqual(await c.waitForTask(unlock.task_id), {
      status: 'terminated',
      task_id: unlock.task_id,
      successful: true,
    });
    assert.equal((await c.getLock(LOCK_A)).locked, false);
    await c.waitForTask((await c.lock(LOCK_A)).task_id);
    assert.equal((await c.getLock(LOCK_A)).locked, true);
    await c.waitForTask((await c.sync(LOCK_A)).task_id);
    await c.waitForTask((await c.sendCommand(LOCK_A, 'unlock')).task_id);
    assert.equal((await c.getLock(LOCK_A)).locked, false);
    const ran = await c.run(LOCK_A, 'lock');
    assert.deepEqual(ran, { status: 'terminated', task_id: ran.task_id, successful: true });
    assert.equal(typeof ran.task_id, 'string');
    assert.equal((await c.getLock(LOCK_A)).locked, true);
  });

  it('actionResult reads the task once: processing, then terminated', async () => {
    await simLockOk(t, LOCK_B, { latency_ms: 300 });
    const { task_id } = await c.lock(LOCK_B);
    assert.deepEqual(await c.actionResult(task_id), { status: 'processing', task_id });
    await c.waitForTask(task_id);
    assert.deepEqual(await c.actionResult(task_id), { status: 'terminated', task_id, successful: true });
    await simLockOk(t, LOCK_B, { latency_ms: 0 });
  });

  it('a task that fails rejects waitForTask with TaskFailedError carrying the reason', async () => {
    await simLockOk(t, LOCK_B, { fail_next: 'JAMMED' });
    const { task_id } = await c.unlock(LOCK_B);
    const err = await c.waitForTask(task_id).catch((e: unknown) => e);
    assert.ok(err instanceof TaskFailedError);
    assert.equal(err.reason, 'JAMMED');
    assert.equal(err.taskId, task_id);
    assert.deepEqual(err.result, { status: 'terminated', task_id, successful: false, error: 'JAMMED' });
    assert.deepEqual(await c.actionResult(task_id), {
      status: 'terminated',
      task_id,
      successful: false,
      error: 'JAMMED',
    });
  });

  it('partnerAutomation sends the key in the body and answers a task', async () => {
    const { task_id } = await c.partnerAutomation({ command: 'unlock', deviceId: LOCK_A });
    await c.waitForTask(task_id);
    assert.equal((await c.getLock(LOCK_A)).locked, false);
    await c.run(LOCK_A, 'lock');
  });

  it('BAD_PARAMS: an unknown, foreign or malformed lock, an unknown task', async () => {
    for (const id of [UNKNOWN_LOCK, OTHER_LOCK, 'not-a-uuid']) {
      await assert.rejects(c.getLock(id), BadParamsError);
      await assert.rejects(c.unlock(id), BadParamsError);
    }
    const err = await c.actionResult('no-such-task').catch((e: unknown) => e);
    assert.ok(err instanceof BadParamsError && err instanceof V3Error && err instanceof LockcloudError);
    assert.equal(err.status, 400);
    assert.equal(err.code, 'BAD_PARAMS');
    assert.deepEqual(err.body, { error: 'BAD_PARAMS' });
    assert.equal(typeof err.requestId, 'string');
    await assert.rejects(c.partnerAutomation({ command: 'sync' as never, deviceId: LOCK_A }), BadParamsError);
  });

  it('UNAUTHORIZED: a wrong key, on the header and on the partner endpoint', async () => {
    const bad = client(t, { apiKey: 'wrong-key' });
    const err = await bad.listLocks().catch((e: unknown) => e);
    assert.ok(err instanceof UnauthorizedError);
    assert.equal(err.status, 401);
    await assert.rejects(bad.partnerAutomation({ command: 'lock', deviceId: LOCK_A }), UnauthorizedError);
  });

  it('CLOUD_INTEGRATION_NOT_ENABLED and LOW_BATTERY', async () => {
    await simLockOk(t, LOCK_B, { integration: false });
    await assert.rejects(c.lock(LOCK_B), IntegrationNotEnabledError);
    await simLockOk(t, LOCK_B, { integration: true, battery: 5 });
    const err = await c.lock(LOCK_B).catch((e: unknown) => e);
    assert.ok(err instanceof LowBatteryError);
    assert.equal(err.code, 'LOW_BATTERY');
    await simLockOk(t, LOCK_B, { battery: 55 });
  });

  it('DEVICE_IS_BUSY n carries waitSeconds; plain DEVICE_IS_BUSY (the app holds the lock) none', async () => {
    await simLockOk(t, LOCK_B, { latency_ms: 500 });
    const { task_id } = await c.unlock(LOCK_B);
    const busy = await c.lock(LOCK_B).catch((e: unknown) => e);
    assert.ok(busy instanceof DeviceBusyError);
    assert.equal(busy.code, 'DEVICE_IS_BUSY');
    assert.ok(
      busy.waitSeconds !== undefined && busy.waitSeconds >= 1 && busy.waitSeconds <= 3,
      `${busy.waitSeconds}`,
    );
    assert.equal(busy.retryAfterSeconds, busy.waitSeconds);
    await c.waitForTask(task_id);
    await simLockOk(t, LOCK_B, { latency_ms: 0, app_open: true });
    const appBusy = await c.lock(LOCK_B).catch((e: unknown) => e);
    assert.ok(appBusy instanceof DeviceBusyError);
    assert.equal(appBusy.waitSeconds, undefined);
    await simLockOk(t, LOCK_B, { app_open: false });
  });

  it('NOT_FOUND: a base URL that is not lockcloud’s root', async () => {
    const err = await client(t, { baseUrl: `${t.url}/nope` })
      .listLocks()
      .catch((e: unknown) => e);
    assert.ok(err instanceof NotFoundError);
    assert.equal(err.status, 404);
  });

  it('ACCESS_DENY, Forbidden, THROTTLED and INTERNAL_ERROR map to their classes (canned answers)', async () => {
    const make = (fetch: typeof globalThis.fetch) =>
      new LockcloudClient({ baseUrl: t.url, apiKey: OWNER_KEY, fetch });
    const denied = await make(cannedFetch(403, { error: 'ACCESS_DENY' }, { 'retry-after': '1800' }))
      .listLocks()
      .catch((e: unknown) => e);
    assert.ok(denied instanceof AccessDeniedError);
    assert.equal(denied.retryAfterSeconds, 1800);
    await assert.rejects(make(cannedFetch(403, { error: 'Forbidden' })).listLocks(), AccessDeniedError);
    await assert.rejects(make(cannedFetch(403, 'Forbidden')).listLocks(), AccessDeniedError);
    const date = new Date(Date.now() + 5000).toUTCString();
    const throttled = await make(cannedFetch(429, { error: 'THROTTLED' }, { 'retry-after': date }))
      .listLocks()
      .catch((e: unknown) => e);
    assert.ok(throttled instanceof ThrottledError);
    assert.ok(throttled.retryAfterSeconds !== undefined && throttled.retryAfterSeconds >= 3);
    const internal = await make(cannedFetch(500, { error: 'INTERNAL_ERROR' }))
      .listLocks()
      .catch((e: unknown) => e);
    assert.ok(internal instanceof InternalError);
    assert.equal(internal.requestId, 'req-1');
    const away = await make(cannedFetch(503, { error: 'SERVICE_UNAVAILABLE' }, { 'retry-after': '2' }))
      .listLocks()
      .catch((e: unknown) => e);
    assert.ok(away instanceof ServiceUnavailableError);
    assert.equal(away.retryAfterSeconds, 2);
    const other = await make(cannedFetch(502, '<html>bad gateway</html>'))
      .listLocks()
      .catch((e: unknown) => e);
    assert.ok(other instanceof V3Error);
    assert.equal(other.status, 502);
  });

  it('refuses to be built without a base URL or key, and calls without an id', () => {
    assert.throws(() => new LockcloudClient({ baseUrl: t.url, apiKey: '' }), TypeError);
    assert.throws(() => new LockcloudClient({ baseUrl: '', apiKey: OWNER_KEY }), TypeError);
    assert.throws(() => c.getLock(''), TypeError);
    assert.throws(() => c.actionResult(''), TypeError);
  });
});
