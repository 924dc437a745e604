import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createNetServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { openSqliteStore } from '../../src/adapters/stores/sqlite/open.ts';
import { DEMO_EMAIL, DEMO_META_KEY } from '../../src/app/demo.ts';
import { runAdmin } from '../support/admin-cli.ts';
import { eventually } from '../support/eventually.ts';
import { startProcess } from '../support/process.ts';

describe('first start without flags (the README demo)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'lockcloud-demo-'));
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  it('creates the demo once, prints its login and key, and the key moves a lock', async () => {
    const server = await startProcess(['--data', dataDir], { LOG_LEVEL: 'info' });
    let key = '';
    let password = '';
    try {
      const out = server.stdout();
      key = /API key:\s+(\S+)/.exec(out)?.[1] ?? '';
      password = /login:\s+\S+ \/ (\S+)/.exec(out)?.[1] ?? '';
      assert.match(out, /listening on http:\/\/127\.0\.0\.1:\d+/);
      assert.ok(key.length >= 20 && password.length >= 12, out);

      const headers = { authorization: key, 'content-type': 'application/json' };
      const locks = (await (await fetch(`${server.url}/public/locks`, { headers })).json()) as {
        device_id: string;
      }[];
      assert.equal(locks.length, 2);
      const id = locks[0]?.device_id ?? '';
      const before = (await (await fetch(`${server.url}/public/lock/${id}`, { headers })).json()) as {
        locked: boolean;
      };
      const command = before.locked ? 'unlock' : 'lock';
      const sent = await fetch(`${server.url}/public/lock/${id}`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ command }),
      });
      const { task_id } = (await sent.json()) as { task_id: string };
      const result = await eventually('the demo command to end', async () => {
        const body = (await (
          await fetch(`${server.url}/public/action-result?task_id=${task_id}`, { headers })
        ).json()) as Record<string, unknown>;
        return body.status === 'terminated' && body;
      });
      assert.deepEqual(result, { status: 'terminated', task_id, successful: true });
      const after = (await (await fetch(`${server.url}/public/lock/${id}`, { headers })).json()) as {
        locked: boolean;
      };
      assert.equal(after.locked, !before.locked);
    } finally {
      await server.stop();
    }

    // Secrets are stored hashed only: neither the key nor the password is in the database files.
    for (const file of readdirSync(dataDir)) {
      const bytes = readFileSync(join(dataDir, file));
      assert.equal(bytes.includes(key), false, `API key found in ${file}`);
      assert.equal(bytes.includes(password), false, `password found in ${file}`);
    }
    // The log lines (JSON) never carry them either; only the one-time banner shows them.
    const logLines = server
      .stdout()
      .split('\n')
      .filter((l) => l.startsWith('{'));
    assert.ok(logLines.length > 0);
    for (const line of logLines) {
      assert.equal(line.includes(key), false, `API key logged: ${line}`);
      assert.equal(line.includes(password), false, `password logged: ${line}`);
    }

    const again = await startProcess(['--data', dataDir]);
    try {
      assert.doesNotMatch(again.stdout(), /Demo account created/);
      const res = await fetch(`${again.url}/public/locks`, { headers: { authorization: key } });
      assert.equal(res.status, 200);
    } finally {
      await again.stop();
    }
  });
});

/** `lockcloud serve` until it exits by itself (a start that fails); killed and failed after 60 s. */
function serveUntilExit(
  args: readonly string[],
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/bin/serve.ts', ...args], {
    env: { ...process.env, LOG_LEVEL: 'warn' },
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
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`serve did not exit by itself:\n${stdout}\n${stderr}`));
    }, 60_000);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

async function listLocks(url: string, key: string): Promise<{ status: number; count: number }> {
  const res = await fetch(`${url}/public/locks`, { headers: { authorization: key } });
  const body = (await res.json()) as unknown;
  return { status: res.status, count: Array.isArray(body) ? body.length : -1 };
}

function v1Login(url: string, password: string): Promise<Response> {
  return fetch(`${url}/v1/accounts/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: DEMO_EMAIL, password }),
  });
}

describe('issue 20: the first start whose port is taken, and the starts after it', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'lockcloud-demo-port-'));
  let taken: Server | undefined;
  after(async () => {
    if (taken) await new Promise((resolve) => taken?.close(resolve));
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('a taken port: one line naming --port, exit 2, no demo written; the next start shows the demo, later ones how to renew it', async () => {
    taken = createNetServer();
    await new Promise<void>((resolve) => taken?.listen(0, '127.0.0.1', resolve));
    const address = taken.address();
    assert.ok(address !== null && typeof address === 'object');
    const port = address.port;

    const failed = await serveUntilExit(['--data', dataDir, '--port', String(port), '--mqtt-port', '0']);
    assert.equal(failed.code, 2, failed.stderr);
    assert.match(
      failed.stderr,
      new RegExp(
        `^lockcloud: cannot listen on 127\\.0\\.0\\.1:${port}: listen EADDRINUSE[^\\n]*; another program \\(another lockcloud\\?\\) has the port: give another with --port N, or --port 0 for any free one\\n$`,
      ),
    );
    assert.doesNotMatch(failed.stdout, /Demo account/);
    // Nothing of the demo was written: its credentials were never shown.
    const store = await openSqliteStore(dataDir);
    try {
      assert.equal(await store.isEmpty(), true);
      assert.notEqual(await store.getMeta(DEMO_META_KEY), 'true');
    } finally {
      await store.close();
    }

    // The same data directory on a free port: this start makes the demo and shows it.
    const first = await startProcess(['--data', dataDir]);
    let key = '';
    let password = '';
    try {
      const out = first.stdout();
      key = /API key:\s+(\S+)/.exec(out)?.[1] ?? '';
      password = /login:\s+\S+ \/ (\S+)/.exec(out)?.[1] ?? '';
      assert.match(out, /Demo account created \(shown once, stored only hashed\)/);
      // With --mqtt-port 0 the broker's port is known only once it listens: the banner says it.
      assert.match(out, /^ {2}devices: {2}mqtt:\/\/127\.0\.0\.1:[1-9]\d* {2}\(the embedded MQTT broker\)$/m);
      assert.deepEqual(await listLocks(first.url, key), { status: 200, count: 2 });
    } finally {
      await first.stop();
    }

    // A later start: the demo exists, and the banner says how to get a new password and key.
    const later = await startProcess(['--data', dataDir]);
    try {
      const out = later.stdout();
      assert.doesNotMatch(out, /Demo account created/);
      assert.match(
        out,
        /^ {2}Demo account: demo@lockcloud\.example \(its password and API key were shown at its first start only\)$/m,
      );
      const renew = /^ {4}new ones: lockcloud admin (demo-credentials --data \S+)$/m.exec(out)?.[1];
      assert.equal(renew, `demo-credentials --data ${dataDir}`);

      // The command the banner names, run beside the server: new credentials, printed once.
      const run = await runAdmin(renew.split(' '));
      assert.equal(run.code, 0, run.stderr);
      const newPassword = /login:\s+demo@lockcloud\.example \/ (\S+)/.exec(run.stdout)?.[1] ?? '';
      const newKey = /API key:\s+(\S+)/.exec(run.stdout)?.[1] ?? '';
      assert.ok(newPassword.length >= 12 && newKey.startsWith('lck_'), run.stdout);
      assert.deepEqual(await listLocks(later.url, newKey), { status: 200, count: 2 });
      assert.equal((await v1Login(later.url, newPassword)).status, 200);
      assert.equal((await v1Login(later.url, password)).status, 400, 'the first password no longer works');
      assert.deepEqual(await listLocks(later.url, key), { status: 200, count: 2 }, 'earlier keys still do');

      // A sandbox reset returns the demo to its first state, but keeps the credentials made since.
      assert.equal((await fetch(`${later.url}/_sim/reset`, { method: 'POST' })).status, 204);
      assert.deepEqual(await listLocks(later.url, newKey), { status: 200, count: 2 });
      assert.equal((await v1Login(later.url, newPassword)).status, 200);
      assert.equal((await v1Login(later.url, password)).status, 400);
    } finally {
      await later.stop();
    }
  });
});
