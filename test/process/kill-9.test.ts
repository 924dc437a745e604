import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { startProcess } from '../support/process.ts';
import { LOCK_A, LOCK_B, OWNER_KEY, standardSeed } from '../support/server.ts';

const json = (key: string, body?: unknown): RequestInit => ({
  method: body === undefined ? 'GET' : 'POST',
  headers: { authorization: key, 'content-type': 'application/json' },
  body: body === undefined ? undefined : JSON.stringify(body),
});

describe('kill -9 of the server', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'lockcloud-kill9-'));
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  it('loses no accepted write and leaves no task processing after a restart', async () => {
    const seedFile = join(dataDir, 'seed.json');
    writeFileSync(seedFile, JSON.stringify(standardSeed()));
    const first = await startProcess(['--data', dataDir, '--seed', seedFile]);
    const base = first.url;

    // Completed commands: each accepted and finished before the kill.
    const finished: string[] = [];
    for (const command of ['unlock', 'lock', 'unlock']) {
      const res = await fetch(`${base}/public/lock/${LOCK_A}`, json(OWNER_KEY, { command }));
      assert.equal(res.status, 200);
      const { task_id } = (await res.json()) as { task_id: string };
      for (;;) {
        const r = await fetch(`${base}/public/action-result?task_id=${task_id}`, json(OWNER_KEY));
        if (((await r.json()) as { status: string }).status === 'terminated') break;
      }
      finished.push(task_id);
    }
    // A simulated-world change and a command still running on a slow lock when the process dies.
    await fetch(`${base}/_sim/locks/${LOCK_B}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ battery: 42, latency_ms: 60_000 }),
    });
    const slow = await fetch(`${base}/public/lock/${LOCK_B}`, json(OWNER_KEY, { command: 'lock' }));
    assert.equal(slow.status, 200);
    const { task_id: runningTask } = (await slow.json()) as { task_id: string };
    await first.kill9();

    const second = await startProcess(['--data', dataDir]);
    try {
      const b = second.url;
      for (const id of finished) {
        const r = await fetch(`${b}/public/action-result?task_id=${id}`, json(OWNER_KEY));
        assert.deepEqual(await r.json(), { status: 'terminated', task_id: id, successful: true });
      }
      const running = await fetch(`${b}/public/action-result?task_id=${runningTask}`, json(OWNER_KEY));
      assert.deepEqual(await running.json(), {
        status: 'terminated',
        task_id: runningTask,
        successful: false,
        error: 'TIMEOUT',
      });
      const a = await fetch(`${b}/public/lock/${LOCK_A}`, json(OWNER_KEY));
      assert.deepEqual(await a.json(), { locked: false, battery: 100, responsive: true });
      const lockB = await fetch(`${b}/public/lock/${LOCK_B}`, json(OWNER_KEY));
      assert.deepEqual(await lockB.json(), { locked: false, battery: 42, responsive: true });
      // The lock is free again: the task the crash left did not keep it busy.
      await fetch(`${b}/_sim/locks/${LOCK_B}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ latency_ms: 0 }),
      });
      const again = await fetch(`${b}/public/lock/${LOCK_B}`, json(OWNER_KEY, { command: 'lock' }));
      assert.equal(again.status, 200);
      assert.match(second.stdout(), /listening on/);
      assert.doesNotMatch(second.stdout(), /Demo account/);
    } finally {
      await second.stop();
    }
  });
});
