/**
 * waitForTask over a slow simulated lock: its polling schedule, its timeout and its abort.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { TaskTimeoutError } from '../../sdk/src/index.ts';
import { LOCK_A, LOCK_B, simLockOk, startServer, type TestServer } from '../support/server.ts';
import { client, countingFetch } from './helpers.ts';

describe('sdk: waitForTask over a slow lock', () => {
  let t: TestServer;
  before(async () => {
    t = await startServer({ flags: ['--no-rate-limit'] });
  });
  after(() => t.close());

  it('polls after 100 ms, then backs off by half each time, and resolves once the lock confirmed', async () => {
    await simLockOk(t, LOCK_A, { latency_ms: 900 });
    const counting = countingFetch();
    const c = client(t, { fetch: counting.fetch });
    const { task_id } = await c.unlock(LOCK_A);
    const started = performance.now();
    assert.deepEqual(await c.waitForTask(task_id), { status: 'terminated', task_id, successful: true });
    const elapsed = performance.now() - started;
    const polls = counting.paths.filter((p) => p === '/public/action-result').length;
    // 0, 100, 250, 475, 812, 1318 ms: five to six polls for a 900 ms lock, not 90.
    assert.ok(polls >= 4 && polls <= 7, `${polls} polls`);
    assert.ok(elapsed >= 800 && elapsed < 2500, `${elapsed} ms`);
    const gaps = counting.times.slice(2).map((time, i) => time - (counting.times[i + 1] ?? 0));
    assert.ok(gaps[0] !== undefined && gaps[0] >= 90, `first gap ${gaps[0]}`);
    // Each gap is the interval (150, 225, 337 ms ...: growing by half) plus one answer's time, so never
    // under the interval; how much over depends on the machine's load, so only the floor is checked.
    assert.ok(
      gaps.every((gap, i) => i === 0 || gap >= 100 * 1.5 ** i - 10),
      `gaps ${gaps.join(', ')}`,
    );
    assert.equal((await c.getLock(LOCK_A)).locked, false);
  });

  it('the interval never passes maxIntervalMs', async () => {
    await simLockOk(t, LOCK_A, { latency_ms: 700 });
    const counting = countingFetch();
    const c = client(t, { fetch: counting.fetch });
    const { task_id } = await c.lock(LOCK_A);
    await c.waitForTask(task_id, { intervalMs: 50, maxIntervalMs: 60 });
    const polls = counting.paths.filter((p) => p === '/public/action-result').length;
    assert.ok(polls >= 9, `${polls} polls`);
  });

  it('rejects with TaskTimeoutError after timeoutMs, and the task goes on', async () => {
    await simLockOk(t, LOCK_B, { latency_ms: 1500 });
    const c = client(t);
    const { task_id } = await c.lock(LOCK_B);
    const started = performance.now();
    const err = await c.waitForTask(task_id, { timeoutMs: 250 }).catch((e: unknown) => e);
    const elapsed = performance.now() - started;
    assert.ok(err instanceof TaskTimeoutError, String(err));
    assert.equal(err.taskId, task_id);
    assert.equal(err.timeoutMs, 250);
    assert.ok(elapsed >= 240 && elapsed < 600, `${elapsed} ms`);
    assert.deepEqual(await c.actionResult(task_id), { status: 'processing', task_id });
    await c.waitForTask(task_id);
  });

  it('rejects with the signal’s reason when aborted, at once for an aborted signal', async () => {
    await simLockOk(t, LOCK_B, { latency_ms: 1500 });
    const controller = new AbortController();
    // Aborted while it waits for its next poll: just after the first poll's answer.
    const c = client(t, {
      fetch: async (input, init) => {
        const res = await fetch(input, init);
        if (String(input).includes('/public/action-result')) setImmediate(() => controller.abort());
        return res;
      },
    });
    const { task_id } = await c.unlock(LOCK_B);
    const started = performance.now();
    const err = await c.waitForTask(task_id, { signal: controller.signal }).catch((e: unknown) => e);
    assert.ok(performance.now() - started < 500);
    assert.ok(err instanceof Error && err.name === 'AbortError', String(err));
    const reason = new Error('stop');
    await assert.rejects(c.waitForTask(task_id, { signal: AbortSignal.abort(reason) }), (e) => e === reason);
    await c.waitForTask(task_id);
    await simLockOk(t, LOCK_B, { latency_ms: 0 });
  });
});
