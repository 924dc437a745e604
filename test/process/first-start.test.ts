import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
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
      assert.deepEqual(result, { status: 'terminated', successful: true });
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
