/**
 * Opt-in retry through the sandbox: DEVICE_IS_BUSY n (a slow lock, a 1 s command timeout so n is 1),
 * THROTTLED (a --rate-limits file of one request at once, one a second), and v1 50001 and 42900.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  DeviceBusyError,
  LockBusyError,
  LockcloudV1Client,
  type RetryInfo,
  ThrottledError,
  TooManyRequestsError,
  WrongEmailOrPasswordError,
} from '../../sdk/src/index.ts';
import { LOCK_A, LOCK_B, OWNER, simLockOk, startServer, type TestServer } from '../support/server.ts';
import { client } from './helpers.ts';

describe('sdk: retry on DEVICE_IS_BUSY n and v1 LockBusy', () => {
  let t: TestServer;
  before(async () => {
    t = await startServer({ flags: ['--no-rate-limit', '--command-timeout-ms', '1000'] });
  });
  after(() => t.close());

  it('without retry a busy lock rejects at once; with it, the command is sent again after n seconds', async () => {
    await simLockOk(t, LOCK_A, { latency_ms: 300 });
    const plain = client(t);
    const first = await plain.unlock(LOCK_A);
    const busy = await plain.lock(LOCK_A).catch((e: unknown) => e);
    assert.ok(busy instanceof DeviceBusyError && busy.waitSeconds === 1, String(busy));
    await plain.waitForTask(first.task_id);

    await plain.unlock(LOCK_A); // busy again for 300 ms: the retry's wait (1 s) outlasts it
    const retries: RetryInfo[] = [];
    const retrying = client(t, { retry: { onRetry: (info) => retries.push(info) } });
    const started = performance.now();
    const { task_id } = await retrying.lock(LOCK_A);
    const elapsed = performance.now() - started;
    assert.ok(elapsed >= 950 && elapsed < 2000, `${elapsed} ms`);
    assert.equal(retries.length, 1);
    assert.equal(retries[0]?.attempt, 2);
    assert.equal(retries[0]?.waitMs, 1000);
    assert.ok(retries[0]?.error instanceof DeviceBusyError);
    await retrying.waitForTask(task_id);
    assert.equal((await plain.getLock(LOCK_A)).locked, true);
  });

  it('a wait that would pass maxTotalWaitMs, or no attempts left, is not made', async () => {
    await simLockOk(t, LOCK_A, { latency_ms: 300 });
    const c = client(t, { retry: { maxTotalWaitMs: 500 } });
    const { task_id } = await c.unlock(LOCK_A);
    const started = performance.now();
    await assert.rejects(c.lock(LOCK_A), DeviceBusyError);
    await assert.rejects(client(t, { retry: { maxAttempts: 1 } }).lock(LOCK_A), DeviceBusyError);
    assert.ok(performance.now() - started < 300);
    await c.waitForTask(task_id);
  });

  it('a plain DEVICE_IS_BUSY (the app holds the lock: no wait known) is not retried', async () => {
    await simLockOk(t, LOCK_B, { app_open: true });
    const started = performance.now();
    await assert.rejects(client(t, { retry: true }).lock(LOCK_B), DeviceBusyError);
    assert.ok(performance.now() - started < 300);
    await simLockOk(t, LOCK_B, { app_open: false });
  });

  it('v1: a control while a v3 task runs is LockBusy with Retry-After, retried when asked', async () => {
    await simLockOk(t, LOCK_B, { latency_ms: 300 });
    const v3 = client(t);
    const first = await v3.unlock(LOCK_B);
    const v1 = await LockcloudV1Client.login(t.url, OWNER, 'owner-password');
    const busy = await v1.control(LOCK_B, 'lock').catch((e: unknown) => e);
    assert.ok(busy instanceof LockBusyError, String(busy));
    assert.equal(busy.code, 50001);
    assert.equal(busy.retryAfterSeconds, 1);

    await v3.waitForTask(first.task_id);
    await v3.unlock(LOCK_B); // busy again for 300 ms
    const retrying = new LockcloudV1Client({ baseUrl: t.url, token: v1.token, retry: true });
    const started = performance.now();
    await retrying.control(LOCK_B, 'lock');
    assert.ok(performance.now() - started >= 950);
    assert.equal((await retrying.getLock(LOCK_B)).is_unlocked, false);
  });
});

describe('sdk: retry on THROTTLED and 42900 (rate limits on)', () => {
  let t: TestServer;
  let dir: string;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'lockcloud-sdk-limits-'));
    const file = join(dir, 'limits.json');
    writeFileSync(
      file,
      JSON.stringify({ endpoints: { 'GET /public/locks': { account: { burst: 1, per_second: 1 } } } }),
    );
    t = await startServer({ flags: ['--rate-limits', file] });
  });
  after(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('THROTTLED carries Retry-After; with retry the call waits it and succeeds', async () => {
    const plain = client(t);
    await plain.listLocks();
    const throttled = await plain.listLocks().catch((e: unknown) => e);
    assert.ok(throttled instanceof ThrottledError, String(throttled));
    assert.equal(throttled.status, 429);
    assert.equal(throttled.retryAfterSeconds, 1);

    const retries: RetryInfo[] = [];
    const retrying = client(t, { retry: { onRetry: (info) => retries.push(info) } });
    assert.equal((await retrying.listLocks()).length, 2);
    assert.ok(
      retries.length >= 1 && retries.every((r) => r.error instanceof ThrottledError && r.waitMs === 1000),
    );
  });

  it('v1 login over its e-mail limit is TooManyRequests with Retry-After; a 60 s wait is not made under a 1 s budget', async () => {
    for (let i = 0; i < 10; i++) {
      await assert.rejects(LockcloudV1Client.login(t.url, OWNER, 'wrong'), WrongEmailOrPasswordError);
    }
    const err = await LockcloudV1Client.login(t.url, OWNER, 'wrong').catch((e: unknown) => e);
    assert.ok(err instanceof TooManyRequestsError, String(err));
    assert.equal(err.code, 42900);
    assert.ok(err.retryAfterSeconds !== undefined && err.retryAfterSeconds >= 1);
    const started = performance.now();
    await assert.rejects(
      LockcloudV1Client.login(t.url, OWNER, 'owner-password', { retry: { maxTotalWaitMs: 1000 } }),
      TooManyRequestsError,
    );
    assert.ok(performance.now() - started < 300);
  });
});

describe('sdk: v1 control over the lock’s command budget (a --rate-limits file: 2 at once, then 1/s)', () => {
  let t: TestServer;
  let dir: string;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'lockcloud-sdk-budget-'));
    const file = join(dir, 'limits.json');
    writeFileSync(file, JSON.stringify({ commands: { burst: 2, per_second: 1 } }));
    t = await startServer({ flags: ['--rate-limits', file] });
  });
  after(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('is TooManyRequests (42900) with Retry-After; with retry the control waits it and succeeds', async () => {
    const v1 = await LockcloudV1Client.login(t.url, OWNER, 'owner-password');
    await v1.control(LOCK_A, 'unlock');
    await v1.control(LOCK_A, 'lock');
    const err = await v1.control(LOCK_A, 'unlock').catch((e: unknown) => e);
    assert.ok(err instanceof TooManyRequestsError, String(err));
    assert.equal(err.status, 429);
    assert.equal(err.code, 42900);
    assert.equal(err.retryAfterSeconds, 1);

    const retries: RetryInfo[] = [];
    const retrying = await LockcloudV1Client.login(t.url, OWNER, 'owner-password', {
      retry: { onRetry: (info) => retries.push(info) },
    });
    await retrying.control(LOCK_A, 'unlock');
    assert.ok(retries.length >= 1, 'the control was refused first, then retried');
    assert.ok(retries.every((r) => r.error instanceof TooManyRequestsError && r.waitMs === 1000));
    assert.equal((await retrying.getLock(LOCK_A)).is_unlocked, true);
  });
});
