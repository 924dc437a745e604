import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import {
  actionResult,
  answer,
  getLock,
  LOCK_A,
  LOCK_B,
  sendCommand,
  simLockOk,
  startServer,
  startTask,
  type TestServer,
  waitForTask,
} from '../../support/server.ts';

const FLAGS = ['--no-rate-limit'];
const TIMEOUT = { status: 'terminated', successful: false, error: 'TIMEOUT' };
const SUCCESS = { status: 'terminated', successful: true };

describe('restart: tasks left processing by an earlier run', () => {
  let dataDir: string;
  let running: TestServer | undefined;
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'lockcloud-restart-'));
  });
  afterEach(async () => {
    await running?.close();
    running = undefined;
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** Closes the running server, then starts a new one on the same data directory without a seed. */
  async function restart(): Promise<TestServer> {
    await running?.close();
    running = await startServer({ dataDir, seed: null, flags: FLAGS });
    return running;
  }

  it('a task processing when the server closed reads terminated TIMEOUT after the restart', async () => {
    const first = await startServer({ dataDir, flags: FLAGS });
    running = first;
    await simLockOk(first, LOCK_A, { latency_ms: 60_000 });
    const taskId = await startTask(first, LOCK_A, 'unlock');
    assert.deepEqual(await answer(await actionResult(first, taskId)), {
      status: 200,
      body: { status: 'processing', task_id: taskId },
    });

    const second = await restart();
    assert.deepEqual(await answer(await actionResult(second, taskId)), {
      status: 200,
      body: { task_id: taskId, ...TIMEOUT },
    });
    // The lock never confirmed: its stored status is as it was.
    assert.deepEqual(await answer(await getLock(second, LOCK_A)), {
      status: 200,
      body: { locked: true, battery: 100, responsive: true },
    });
  });

  it('the lock accepts a new command after the restart, at once and without waiting out the old task', async () => {
    const first = await startServer({ dataDir, flags: FLAGS });
    running = first;
    await simLockOk(first, LOCK_A, { latency_ms: 60_000 });
    const old = await startTask(first, LOCK_A, 'unlock');
    assert.equal((await sendCommand(first, LOCK_A, 'unlock')).status, 400, 'busy before the restart');

    const second = await restart();
    // The simulated lock keeps its latency across the restart; the new command is accepted all the same.
    const accepted = await startTask(second, LOCK_A, 'unlock');
    assert.notEqual(accepted, old);
    assert.deepEqual(await answer(await actionResult(second, accepted)), {
      status: 200,
      body: { status: 'processing', task_id: accepted },
    });
    assert.deepEqual(await answer(await actionResult(second, old)), {
      status: 200,
      body: { task_id: old, ...TIMEOUT },
    });
  });

  it('after the restart a new command runs to success and moves the lock', async () => {
    const first = await startServer({ dataDir, flags: FLAGS });
    running = first;
    await simLockOk(first, LOCK_A, { latency_ms: 60_000 });
    const old = await startTask(first, LOCK_A, 'unlock');

    const second = await restart();
    await simLockOk(second, LOCK_A, { latency_ms: 0 });
    assert.deepEqual(await waitForTask(second, await startTask(second, LOCK_A, 'unlock')), SUCCESS);
    assert.deepEqual(await answer(await getLock(second, LOCK_A)), {
      status: 200,
      body: { locked: false, battery: 100, responsive: true },
    });
    assert.deepEqual(await answer(await actionResult(second, old)), {
      status: 200,
      body: { task_id: old, ...TIMEOUT },
    });
  });

  it('tasks that had ended before the restart keep their outcome, and stored statuses survive', async () => {
    const first = await startServer({ dataDir, flags: FLAGS });
    running = first;
    const done = await startTask(first, LOCK_B, 'lock');
    assert.deepEqual(await waitForTask(first, done), SUCCESS);
    await simLockOk(first, LOCK_A, { fail_next: 'JAMMED' });
    const jammed = await startTask(first, LOCK_A, 'unlock');
    assert.deepEqual(await waitForTask(first, jammed), {
      status: 'terminated',
      successful: false,
      error: 'JAMMED',
    });

    const second = await restart();
    assert.deepEqual(await answer(await actionResult(second, done)), {
      status: 200,
      body: { task_id: done, ...SUCCESS },
    });
    assert.deepEqual(await answer(await actionResult(second, jammed)), {
      status: 200,
      body: { status: 'terminated', task_id: jammed, successful: false, error: 'JAMMED' },
    });
    assert.deepEqual(await answer(await getLock(second, LOCK_B)), {
      status: 200,
      body: { locked: true, battery: 55, responsive: true },
    });
  });

  it('tasks on several locks left processing all end TIMEOUT, and a second restart changes nothing', async () => {
    const first = await startServer({ dataDir, flags: FLAGS });
    running = first;
    await simLockOk(first, LOCK_A, { latency_ms: 60_000 });
    await simLockOk(first, LOCK_B, { fail_next: 'TIMEOUT' });
    const a = await startTask(first, LOCK_A, 'unlock');
    const b = await startTask(first, LOCK_B, 'lock');

    let server = await restart();
    assert.deepEqual(await answer(await actionResult(server, a)), {
      status: 200,
      body: { task_id: a, ...TIMEOUT },
    });
    assert.deepEqual(await answer(await actionResult(server, b)), {
      status: 200,
      body: { task_id: b, ...TIMEOUT },
    });
    server = await restart();
    assert.deepEqual(await answer(await actionResult(server, a)), {
      status: 200,
      body: { task_id: a, ...TIMEOUT },
    });
    assert.deepEqual(await answer(await actionResult(server, b)), {
      status: 200,
      body: { task_id: b, ...TIMEOUT },
    });
  });
});
