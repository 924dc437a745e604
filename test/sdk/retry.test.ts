/**
 * Opt-in retry through the sandbox: DEVICE_IS_BUSY n and v1 50001 (a slow lock whose running command
 * has a 600 s deadline, so n is 600, freed by moving the sandbox clock), THROTTLED (a --rate-limits
 * file of one request at once, one a second), and v1 42900.
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
import { BUSY_MAX_INTERVAL_MS } from '../../sdk/src/retry.ts';
import {
  advanceClock,
  LOCK_A,
  LOCK_B,
  OWNER,
  simLockOk,
  startServer,
  type TestServer,
} from '../support/server.ts';
import { client } from './helpers.ts';

/** A lock's command takes this long on the sandbox clock: it ends when a test moves the clock. */
const SLOW_MS = 300_000;
/** The command timeout: a running command's deadline is this far, so a busy answer says n = 600. */
const TIMEOUT_S = 600;
/**
 * Cuts a retrying call short: a retry that waited the whole n (600 s) would meet it. A deadline,
 * not a measure: the freed lock takes the command within a couple of seconds.
 */
const WATCHDOG_MS = 60_000;

describe('sdk: retry on DEVICE_IS_BUSY n and v1 LockBusy', () => {
  let t: TestServer;
  before(async () => {
    t = await startServer({ flags: ['--no-rate-limit', '--command-timeout-ms', String(TIMEOUT_S * 1000)] });
  });
  after(() => t.close());

  /** The lock busy with a slow unlock; `free()` lets that unlock end (its latency passes on the clock). */
  async function busyLock(deviceId: string): Promise<{ taskId: string; free: () => Promise<void> }> {
    await simLockOk(t, deviceId, { latency_ms: SLOW_MS });
    const { task_id } = await client(t).unlock(deviceId);
    return {
      taskId: task_id,
      free: async () => {
        await simLockOk(t, deviceId, { latency_ms: 0 }); // the next command is quick
        await advanceClock(t, SLOW_MS / 1000);
      },
    };
  }

  it('without retry a busy lock rejects at once; with it, the command goes once the lock is free, long before n', async () => {
    const { taskId, free } = await busyLock(LOCK_A);
    const plain = client(t);
    const busy = await plain.lock(LOCK_A).catch((e: unknown) => e);
    assert.ok(busy instanceof DeviceBusyError && busy.waitSeconds === TIMEOUT_S, String(busy));

    // Issue 20: the retry waited the whole n although the lock was free long before. Here the lock
    // is freed after the first busy answer; the retry must find that out, not sleep 600 s.
    const retries: RetryInfo[] = [];
    let freeing: Promise<void> | undefined;
    const retrying = client(t, {
      retry: {
        maxTotalWaitMs: 2 * TIMEOUT_S * 1000,
        onRetry: (info) => {
          retries.push(info);
          freeing ??= free();
        },
      },
    });
    const { task_id } = await retrying.lock(LOCK_A, { signal: AbortSignal.timeout(WATCHDOG_MS) });
    await freeing;
    assert.ok(retries.length >= 1);
    assert.equal(retries[0]?.attempt, 2);
    for (const r of retries) {
      assert.ok(r.error instanceof DeviceBusyError, String(r.error));
      assert.ok(r.waitMs > 0 && r.waitMs <= BUSY_MAX_INTERVAL_MS, `a wait of ${r.waitMs} ms`);
    }
    assert.deepEqual(await plain.actionResult(taskId), {
      status: 'terminated',
      task_id: taskId,
      successful: true,
    });
    await retrying.waitForTask(task_id);
    assert.equal((await plain.getLock(LOCK_A)).locked, true);
  });

  it('no attempts left, or no wait allowed: the busy answer comes back at once', async () => {
    const { free } = await busyLock(LOCK_A);
    const retries: RetryInfo[] = [];
    const onRetry = (info: RetryInfo) => retries.push(info);
    await assert.rejects(client(t, { retry: { maxAttempts: 1, onRetry } }).lock(LOCK_A), DeviceBusyError);
    await assert.rejects(client(t, { retry: { maxTotalWaitMs: 0, onRetry } }).lock(LOCK_A), DeviceBusyError);
    assert.deepEqual(retries, []);
    await free();
  });

  it('a plain DEVICE_IS_BUSY (the app holds the lock: no wait known) is not retried', async () => {
    await simLockOk(t, LOCK_B, { app_open: true });
    const retries: RetryInfo[] = [];
    const c = client(t, { retry: { onRetry: (info) => retries.push(info) } });
    const busy = await c.lock(LOCK_B).catch((e: unknown) => e);
    assert.ok(busy instanceof DeviceBusyError && busy.waitSeconds === undefined, String(busy));
    assert.deepEqual(retries, []);
    await simLockOk(t, LOCK_B, { app_open: false });
  });

  it('v1: a control while a v3 task runs is LockBusy with Retry-After, retried once the lock is free', async () => {
    const first = await busyLock(LOCK_B);
    const v1 = await LockcloudV1Client.login(t.url, OWNER, 'owner-password');
    const busy = await v1.control(LOCK_B, 'lock').catch((e: unknown) => e);
    assert.ok(busy instanceof LockBusyError, String(busy));
    assert.equal(busy.code, 50001);
    assert.equal(busy.retryAfterSeconds, TIMEOUT_S);

    const retries: RetryInfo[] = [];
    let freeing: Promise<void> | undefined;
    const retrying = new LockcloudV1Client({
      baseUrl: t.url,
      token: v1.token,
      retry: {
        maxTotalWaitMs: 2 * TIMEOUT_S * 1000,
        onRetry: (info) => {
          retries.push(info);
          freeing ??= first.free();
        },
      },
    });
    await retrying.control(LOCK_B, 'lock', { signal: AbortSignal.timeout(WATCHDOG_MS) });
    await freeing;
    assert.ok(retries.length >= 1 && retries.every((r) => r.error instanceof LockBusyError));
    assert.ok(retries.every((r) => r.waitMs <= BUSY_MAX_INTERVAL_MS));
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
