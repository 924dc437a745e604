/**
 * The README's "## SDK" example, run as written against a live server: only the package name, the
 * base URL and the key are substituted.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { getLock, LOCK_A, OWNER_KEY, startServer, type TestServer } from '../support/server.ts';

function sdkExample(): string {
  const readme = readFileSync('README.md', 'utf8');
  const section = readme.slice(readme.indexOf('\n## SDK\n'));
  const match = /```ts\n([\s\S]*?)```/.exec(section);
  assert.ok(match?.[1], 'no ```ts block under ## SDK');
  return match[1];
}

describe('sdk: the README example', () => {
  let t: TestServer;
  let dir: string;
  before(async () => {
    t = await startServer();
    dir = mkdtempSync(join(tmpdir(), 'lockcloud-readme-'));
  });
  after(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('lists the locks, unlocks the first and waits for it', async () => {
    const code = sdkExample();
    assert.ok(code.includes("from '@lockcloud/sdk'") && code.includes("'http://127.0.0.1:8080'"));
    const file = join(dir, 'example.mts');
    writeFileSync(
      file,
      code
        .replace("'@lockcloud/sdk'", `'${pathToFileURL(resolve('sdk/src/index.ts')).href}'`)
        .replace("'http://127.0.0.1:8080'", `'${t.url}'`),
    );
    // The server runs in this process: the example must run beside it, not block it.
    const run = await promisify(execFile)(process.execPath, ['--import', 'tsx', file], {
      env: { ...process.env, LOCKCLOUD_API_KEY: OWNER_KEY },
      encoding: 'utf8',
      timeout: 30_000,
    });
    assert.equal(run.stderr, '');
    assert.match(run.stdout, /^Front door \{ locked: true, battery: 100, responsive: true \}\nunlocked\n$/);
    assert.equal(((await (await getLock(t, LOCK_A)).json()) as { locked: boolean }).locked, false);
  });
});
