import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import {
  actionResult,
  advanceClock,
  answer,
  LOCK_A,
  LOCK_B,
  OTHER_KEY,
  OTHER_LOCK,
  OWNER_KEY,
  simLockOk,
  startServer,
  startTask,
  type TestServer,
  waitForTask,
} from '../../support/server.ts';

const FLAGS = ['--no-rate-limit'];
const HOUR = 3600;
const BAD_PARAMS = { status: 400, body: { error: 'BAD_PARAMS' } };
const UNAUTHORIZED = { status: 401, body: { error: 'UNAUTHORIZED' } };

describe('GET /public/action-result', () => {
  let t: TestServer;
  beforeEach(async () => {
    t = await startServer({ flags: FLAGS });
  });
  afterEach(() => t.close());

  it('answers exactly {"status":"processing","task_id":ID} while the task runs, with no successful key', async () => {
    await simLockOk(t, LOCK_A, { latency_ms: 60_000 });
    const taskId = await startTask(t, LOCK_A, 'unlock');
    const res = await actionResult(t, taskId);
    assert.equal(res.headers.get('content-type'), 'application/json; charset=utf-8');
    assert.equal(res.status, 200);
    // The bytes, order included: task_id right after status (issue 21), nothing else.
    assert.equal(await res.text(), `{"status":"processing","task_id":"${taskId}"}`);
  });

  it('answers exactly {"status":"terminated","task_id":ID,"successful":true} for a task that succeeded', async () => {
    const taskId = await startTask(t, LOCK_A, 'unlock');
    await waitForTask(t, taskId);
    const res = await actionResult(t, taskId);
    assert.equal(res.status, 200);
    assert.equal(await res.text(), `{"status":"terminated","task_id":"${taskId}","successful":true}`);
  });

  it('answers exactly {"status":"terminated","task_id":ID,"successful":false,"error":REASON} for a task that failed', async () => {
    await simLockOk(t, LOCK_A, { fail_next: 'JAMMED' });
    const taskId = await startTask(t, LOCK_A, 'unlock');
    await waitForTask(t, taskId);
    const res = await actionResult(t, taskId);
    assert.equal(res.status, 200);
    assert.equal(
      await res.text(),
      `{"status":"terminated","task_id":"${taskId}","successful":false,"error":"JAMMED"}`,
    );
  });

  it('reads the same result again and again, and after later commands on the lock', async () => {
    const first = await startTask(t, LOCK_A, 'unlock');
    await waitForTask(t, first);
    await simLockOk(t, LOCK_A, { fail_next: 'DEVICE_UNREACHABLE' });
    const second = await startTask(t, LOCK_A, 'lock');
    await waitForTask(t, second);
    for (let i = 0; i < 3; i++) {
      assert.deepEqual(await answer(await actionResult(t, first)), {
        status: 200,
        body: { status: 'terminated', task_id: first, successful: true },
      });
      assert.deepEqual(await answer(await actionResult(t, second)), {
        status: 200,
        body: { status: 'terminated', task_id: second, successful: false, error: 'DEVICE_UNREACHABLE' },
      });
    }
  });

  it('accepts a Bearer prefix on the key', async () => {
    const taskId = await startTask(t, LOCK_B, 'lock');
    await waitForTask(t, taskId);
    assert.deepEqual(await answer(await actionResult(t, taskId, `Bearer ${OWNER_KEY}`)), {
      status: 200,
      body: { status: 'terminated', task_id: taskId, successful: true },
    });
  });

  it('answers BAD_PARAMS without task_id, with an empty, repeated or over-long one', async () => {
    for (const query of [
      '',
      '?',
      '?task_id=',
      '?taskid=x',
      '?task_id=a&task_id=b',
      `?task_id=${'a'.repeat(129)}`,
    ]) {
      const res = await t.request(`/public/action-result${query}`, { key: OWNER_KEY });
      assert.deepEqual(await answer(res), BAD_PARAMS, query);
    }
  });

  it('answers BAD_PARAMS for an unknown task id', async () => {
    for (const id of ['00000000-0000-4000-8000-000000000000', 'nope', '1', "'; drop table tasks; --"]) {
      assert.deepEqual(await answer(await actionResult(t, id)), BAD_PARAMS, id);
    }
  });

  it("answers BAD_PARAMS for another account's task, while it runs and after it ended", async () => {
    await simLockOk(t, LOCK_A, { latency_ms: 5_000 });
    const taskId = await startTask(t, LOCK_A, 'unlock');
    // LOCK_A is shared with the other account: that gives no right to its tasks.
    assert.deepEqual(await answer(await actionResult(t, taskId, OTHER_KEY)), BAD_PARAMS);
    await advanceClock(t, 5);
    assert.deepEqual(await waitForTask(t, taskId), { status: 'terminated', successful: true });
    assert.deepEqual(await answer(await actionResult(t, taskId, OTHER_KEY)), BAD_PARAMS);

    const theirs = await startTask(t, OTHER_LOCK, 'unlock', OTHER_KEY);
    await waitForTask(t, theirs, OTHER_KEY);
    assert.deepEqual(await answer(await actionResult(t, theirs, OWNER_KEY)), BAD_PARAMS);
    assert.deepEqual(await answer(await actionResult(t, theirs, OTHER_KEY)), {
      status: 200,
      body: { status: 'terminated', task_id: theirs, successful: true },
    });
  });

  it('keeps a task readable 23 h after it ended and answers BAD_PARAMS for one that ended 49 h ago', async () => {
    const old = await startTask(t, LOCK_A, 'unlock');
    assert.deepEqual(await waitForTask(t, old), { status: 'terminated', successful: true });
    await advanceClock(t, 26 * HOUR);
    const recent = await startTask(t, LOCK_A, 'lock');
    assert.deepEqual(await waitForTask(t, recent), { status: 'terminated', successful: true });
    await advanceClock(t, 23 * HOUR);
    // `old` ended 49 h ago, `recent` 23 h ago.
    assert.deepEqual(await answer(await actionResult(t, old)), BAD_PARAMS);
    assert.deepEqual(await answer(await actionResult(t, recent)), {
      status: 200,
      body: { status: 'terminated', task_id: recent, successful: true },
    });
  });

  it('keeps a failed task readable 23 h after it ended', async () => {
    await simLockOk(t, LOCK_A, { fail_next: 'TIMEOUT' });
    const taskId = await startTask(t, LOCK_A, 'unlock');
    await advanceClock(t, 16);
    assert.deepEqual(await waitForTask(t, taskId), {
      status: 'terminated',
      successful: false,
      error: 'TIMEOUT',
    });
    await advanceClock(t, 23 * HOUR);
    assert.deepEqual(await answer(await actionResult(t, taskId)), {
      status: 200,
      body: { status: 'terminated', task_id: taskId, successful: false, error: 'TIMEOUT' },
    });
  });

  it('never leaves a task processing: read long after its deadline it reads TIMEOUT', async () => {
    await simLockOk(t, LOCK_A, { latency_ms: 600_000 });
    const taskId = await startTask(t, LOCK_A, 'unlock');
    await advanceClock(t, HOUR);
    assert.deepEqual(await answer(await actionResult(t, taskId)), {
      status: 200,
      body: { status: 'terminated', task_id: taskId, successful: false, error: 'TIMEOUT' },
    });
  });

  it('answers 401 UNAUTHORIZED without a key or with an unknown key, before looking at task_id', async () => {
    const taskId = await startTask(t, LOCK_A, 'unlock');
    await waitForTask(t, taskId);
    const path = `/public/action-result?task_id=${taskId}`;
    assert.deepEqual(await answer(await t.request(path)), UNAUTHORIZED);
    assert.deepEqual(await answer(await t.request(path, { key: 'not-a-known-key' })), UNAUTHORIZED);
    assert.deepEqual(await answer(await t.request(path, { key: '' })), UNAUTHORIZED);
    assert.deepEqual(await answer(await t.request('/public/action-result')), UNAUTHORIZED);
    assert.deepEqual(await answer(await t.request('/public/action-result?task_id=nope')), UNAUTHORIZED);
  });
});
