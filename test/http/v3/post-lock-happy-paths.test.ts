/** POST /public/lock/:device_id: the commands that are accepted and what they do to the lock. */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import {
  answer,
  getLock,
  LOCK_A,
  LOCK_B,
  OWNER_KEY,
  sendCommand,
  simLockOk,
  startServer,
  startTask,
  type TestServer,
  waitForTask,
} from '../../support/server.ts';
import { FLAGS, SUCCESS } from './post-lock-helpers.ts';

describe('POST /public/lock/:device_id: happy paths', () => {
  let t: TestServer;
  beforeEach(async () => {
    t = await startServer({ flags: FLAGS });
  });
  afterEach(() => t.close());

  it('lock answers 200 {"task_id"} at once; the task ends terminated successful and the lock reads locked', async () => {
    const res = await sendCommand(t, LOCK_B, 'lock');
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'application/json; charset=utf-8');
    const body = (await res.json()) as Record<string, unknown>;
    assert.deepEqual(Object.keys(body), ['task_id']);
    assert.equal(typeof body.task_id, 'string');
    assert.notEqual(body.task_id, '');
    assert.deepEqual(await waitForTask(t, body.task_id as string), SUCCESS);
    assert.deepEqual(await answer(await getLock(t, LOCK_B)), {
      status: 200,
      body: { locked: true, battery: 55, responsive: true },
    });
  });

  it('unlock ends terminated successful and the lock reads unlocked', async () => {
    const taskId = await startTask(t, LOCK_A, 'unlock');
    assert.deepEqual(await waitForTask(t, taskId), SUCCESS);
    assert.deepEqual(await answer(await getLock(t, LOCK_A)), {
      status: 200,
      body: { locked: false, battery: 100, responsive: true },
    });
  });

  it('lock then unlock then lock again each succeed and each move the lock', async () => {
    for (const [command, locked] of [
      ['unlock', false],
      ['lock', true],
      ['unlock', false],
    ] as const) {
      assert.deepEqual(await waitForTask(t, await startTask(t, LOCK_A, command)), SUCCESS, command);
      assert.deepEqual(await answer(await getLock(t, LOCK_A)), {
        status: 200,
        body: { locked, battery: 100, responsive: true },
      });
    }
  });

  it('lock on a lock already locked succeeds and leaves it locked', async () => {
    assert.deepEqual(await waitForTask(t, await startTask(t, LOCK_A, 'lock')), SUCCESS);
    assert.deepEqual(await answer(await getLock(t, LOCK_A)), {
      status: 200,
      body: { locked: true, battery: 100, responsive: true },
    });
  });

  it('sync ends terminated successful and leaves the status as the lock reports it', async () => {
    assert.deepEqual(await waitForTask(t, await startTask(t, LOCK_B, 'sync')), SUCCESS);
    assert.deepEqual(await answer(await getLock(t, LOCK_B)), {
      status: 200,
      body: { locked: false, battery: 55, responsive: true },
    });
  });

  it('gives every command its own task id', async () => {
    const first = await startTask(t, LOCK_A, 'unlock');
    await waitForTask(t, first);
    const second = await startTask(t, LOCK_A, 'lock');
    await waitForTask(t, second);
    const third = await startTask(t, LOCK_B, 'lock');
    assert.equal(new Set([first, second, third]).size, 3);
  });

  it('accepts a JSON content type with a charset parameter, a Bearer key and an upper-case id', async () => {
    const res = await t.request(`/public/lock/${LOCK_A.toUpperCase()}`, {
      method: 'POST',
      key: `Bearer ${OWNER_KEY}`,
      headers: { 'content-type': 'application/json; charset=utf-8' },
      body: JSON.stringify({ command: 'unlock' }),
    });
    const { status, body } = await answer(res);
    assert.equal(status, 200);
    assert.deepEqual(await waitForTask(t, (body as { task_id: string }).task_id), SUCCESS);
    assert.deepEqual(await answer(await getLock(t, LOCK_A)), {
      status: 200,
      body: { locked: false, battery: 100, responsive: true },
    });
  });

  it('accepts lock and unlock at exactly the 10 % threshold', async () => {
    await simLockOk(t, LOCK_A, { battery: 10 });
    assert.deepEqual(await waitForTask(t, await startTask(t, LOCK_A, 'unlock')), SUCCESS);
    assert.deepEqual(await answer(await getLock(t, LOCK_A)), {
      status: 200,
      body: { locked: false, battery: 10, responsive: true },
    });
  });
});
