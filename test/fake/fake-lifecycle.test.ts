/**
 * startLockcloud()'s life: two at once share nothing, close() leaves nothing behind, and a process
 * that uses fakes ends by itself.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { describe, it } from 'node:test';
import { startLockcloud } from '../../src/index.ts';
import {
  call,
  failed,
  LOCK,
  leftovers,
  OTHER_LOCK,
  outcome,
  SEED,
  SUCCEEDED,
  scratch,
  send,
  useScratch,
} from './support.ts';

describe('startLockcloud: side by side, and closed', () => {
  useScratch();

  it('two at once share nothing: ports, brokers, data, clocks, locks', async () => {
    const [a, b] = await Promise.all([startLockcloud({ seed: SEED }), startLockcloud({ seed: SEED })]);
    try {
      assert.notEqual(a.url, b.url);
      assert.notEqual(a.mqttUrl, b.mqttUrl);
      assert.equal(leftovers().length, 2, 'a directory each');
      const [clockA, clockB] = [await a.sandbox.getClock(), await b.sandbox.getClock()];
      await a.sandbox.advanceClock(24 * 3600);
      assert.ok((await a.sandbox.getClock()).epoch_ms - clockA.epoch_ms >= 24 * 3600 * 1000);
      assert.ok(
        (await b.sandbox.getClock()).epoch_ms - clockB.epoch_ms < 3600 * 1000,
        'b’s clock did not move',
      );

      await a.sandbox.failNext(LOCK, 'JAMMED');
      await a.sandbox.setLock(OTHER_LOCK, { battery: 3 });
      const [inA, inB] = [await send(a, LOCK, 'unlock'), await send(b, LOCK, 'unlock')];
      assert.deepEqual(await outcome(a, inA), failed('JAMMED'));
      assert.deepEqual(await outcome(b, inB), SUCCEEDED);
      assert.equal(
        ((await call(b, 'GET', `/public/lock/${OTHER_LOCK}`)).body as { battery: number }).battery,
        50,
      );
      assert.equal(((await call(a, 'GET', `/public/lock/${LOCK}`)).body as { locked: boolean }).locked, true);

      await a.close();
      assert.equal(leftovers().length, 1);
      assert.deepEqual(await outcome(b, await send(b, LOCK, 'lock')), SUCCEEDED, 'b runs on after a closed');
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('close(): the ports refuse, the directory is gone, the controls say so, a second close() resolves', async () => {
    const lockcloud = await startLockcloud({ seed: SEED });
    assert.equal(leftovers().length, 1);
    await Promise.all([lockcloud.close(), lockcloud.close()]);
    await lockcloud.close();
    assert.deepEqual(leftovers(), []);
    await assert.rejects(lockcloud.sandbox.getClock(), /this lockcloud has been closed/);
    await assert.rejects(fetch(`${lockcloud.url}/public/locks`), TypeError);
    const broker = new URL(lockcloud.mqttUrl);
    const { createConnection } = await import('node:net');
    await new Promise<void>((resolve, reject) => {
      const socket = createConnection(Number(broker.port), broker.hostname);
      socket.once('connect', () => reject(new Error('the broker still accepts connections')));
      socket.once('error', (error: NodeJS.ErrnoException) => {
        if (error.code === 'ECONNREFUSED') resolve();
        else reject(error);
      });
    });
  });

  it('leaves nothing running: a process that starts two, uses and closes them ends by itself, silent', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'test/fake/start-two-and-exit.ts'], {
      env: { ...process.env, TMPDIR: scratch },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    // Nothing but its own end stops it: a handle left open would keep it running until this kill.
    const hung = setTimeout(() => child.kill('SIGKILL'), 60_000);
    const [code, signal] = await new Promise<[number | null, string | null]>((resolve) =>
      child.once('close', (c, s) => resolve([c, s])),
    );
    clearTimeout(hung);
    assert.equal(signal, null, `it did not end by itself (killed); stdout: ${stdout}; stderr: ${stderr}`);
    assert.equal(code, 0, stderr);
    assert.equal(stderr, '');
    const lines = stdout.trimEnd().split('\n');
    assert.equal(lines.length, 1, `one line (no log lines): ${stdout}`);
    const report = JSON.parse(lines[0] ?? '') as Record<string, string[]>;
    assert.equal(new Set(report.urls).size, 2);
    assert.equal(new Set(report.mqttUrls).size, 2);
    // Its stdio pipes only: no server, socket, timer or file request.
    assert.deepEqual(
      (report.resourcesAfter ?? []).filter((r) => r !== 'PipeWrap'),
      [],
      JSON.stringify(report.resourcesAfter),
    );
    assert.deepEqual(leftovers(), []);
  });
});
