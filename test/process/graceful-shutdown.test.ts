/**
 * SIGTERM on a real server process: readiness fails and the listener closes at once, the v1 control
 * waiting for its lock still gets its 204, a request arriving on a connection still open gets 503
 * with its X-Request-Id, and the process exits 0 once drained.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import {
  openConnection,
  untilCommandInFlight,
  untilRefused,
  untilServerHasRead,
} from '../http/ops/support.ts';
import { startProcess } from '../support/process.ts';
import { LOCK_A, OWNER, standardSeed } from '../support/server.ts';

function exitOf(child: ChildProcess): Promise<{ code: number | null; signal: string | null }> {
  if (child.exitCode !== null || child.signalCode !== null)
    return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
}

const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });

describe('SIGTERM', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'lockcloud-sigterm-'));
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  it('drains: the v1 control waiting for a slow lock gets its 204, /readyz answers 503 meanwhile, and the process exits 0', async () => {
    const seedFile = join(dataDir, 'seed.json');
    writeFileSync(seedFile, JSON.stringify(standardSeed()));
    const server = await startProcess(['--data', dataDir, '--seed', seedFile, '--no-rate-limit']);
    const base = server.url;
    try {
      assert.equal((await post(`${base}/_sim/locks/${LOCK_A}`, { latency_ms: 1500 })).status, 200);
      const login = await post(`${base}/v1/accounts/login`, { email: OWNER, password: 'owner-password' });
      const { authorization } = (await login.json()) as { authorization: string };
      const started = performance.now();
      const control = post(
        `${base}/v1/locks/${LOCK_A}/control`,
        { type: 'unlock' },
        { 'x-authorization': authorization },
      );
      const readyz = await openConnection(base, 'GET /readyz HTTP/1.1\r\nhost: x\r\n');
      const late = await openConnection(base, 'GET /public/locks HTTP/1.1\r\nhost: x\r\n');
      await untilCommandInFlight(dataDir);
      await untilServerHasRead(base);

      server.child.kill('SIGTERM');
      const exited = exitOf(server.child);
      await untilRefused(base);
      const ready = await readyz.finish('x-request-id: lb-probe\r\n\r\n');
      assert.equal(ready.status, 503);
      assert.equal(ready.headers['x-request-id'], 'lb-probe');
      assert.deepEqual(JSON.parse(ready.text), { status: 'shutting down' });
      const refused = await late.finish('x-request-id: late-1\r\n\r\n');
      assert.deepEqual(
        { status: refused.status, id: refused.headers['x-request-id'], body: JSON.parse(refused.text) },
        { status: 503, id: 'late-1', body: { error: 'SHUTTING_DOWN' } },
      );
      assert.equal(server.child.exitCode, null, 'still draining while the control waits');

      const res = await control;
      assert.equal(res.status, 204);
      assert.ok(performance.now() - started >= 1400, 'the answer came from the lock, after its latency');
      assert.deepEqual(await exited, { code: 0, signal: null });
      assert.ok(performance.now() - started < 10_000, 'exited soon after the drain, not at the grace');
    } finally {
      await server.kill9();
    }
  });
});
