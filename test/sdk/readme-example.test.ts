/**
 * The READMEs' runnable SDK examples, run as written against a live server through the built
 * package: README.md's "## SDK" example and sdk/README.md's quick start, locks and sandbox examples. The SDK
 * is compiled (sdk/tsconfig.build.json) into a temp project's node_modules/@lockcloud/sdk with its
 * package.json, so `from '@lockcloud/sdk'` resolves through the exports map as it does for a user;
 * only the base URL and the key are substituted. (test/sdk/pack.test.ts type-checks every README
 * example against the packed and installed package.)
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { getLock, LOCK_A, OWNER_KEY, startServer, type TestServer } from '../support/server.ts';
import { tsExample } from './readme.ts';

const run = promisify(execFile);

describe('sdk: the README examples', () => {
  let t: TestServer;
  let dir: string;
  before(async () => {
    t = await startServer();
    dir = mkdtempSync(join(tmpdir(), 'lockcloud-readme-'));
    const pkg = join(dir, 'node_modules', '@lockcloud', 'sdk');
    mkdirSync(pkg, { recursive: true });
    copyFileSync('sdk/package.json', join(pkg, 'package.json'));
    await run(process.execPath, [
      'node_modules/.bin/tsc',
      '-p',
      'sdk/tsconfig.build.json',
      '--outDir',
      join(pkg, 'dist'),
    ]);
  });
  after(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Runs the example beside the server (which lives in this process): a child process, not an import. */
  async function runExample(name: string, code: string): Promise<string> {
    assert.ok(code.includes("from '@lockcloud/sdk'") && code.includes("'http://127.0.0.1:8080'"), name);
    const file = join(dir, `${name}.mts`);
    writeFileSync(file, code.replace("'http://127.0.0.1:8080'", `'${t.url}'`));
    // tsx from the repository: the example's directory has only the SDK in its node_modules.
    const { stdout, stderr } = await run(process.execPath, ['--import', import.meta.resolve('tsx'), file], {
      cwd: dir,
      env: { ...process.env, LOCKCLOUD_API_KEY: OWNER_KEY },
      encoding: 'utf8',
      timeout: 30_000,
    });
    assert.equal(stderr, '');
    return stdout;
  }

  it('README.md: lists the locks, unlocks the first and waits for it', async () => {
    const stdout = await runExample('readme', tsExample('README.md', 'SDK'));
    assert.match(stdout, /^Front door \{ locked: true, battery: 100, responsive: true \}\nunlocked\n$/);
    assert.equal(((await (await getLock(t, LOCK_A)).json()) as { locked: boolean }).locked, false);
  });

  it('sdk/README.md quick start: every lock’s state, then the first unlocked', async () => {
    const stdout = await runExample('quick-start', tsExample('sdk/README.md', 'Quick start'));
    assert.equal(
      stdout,
      'Front door: unlocked, battery 100 %\nBack door: unlocked, battery 55 %\nFront door unlocked\n',
    );
  });

  it('sdk/README.md locks: each lock with its problems; auto-lock set; a bad threshold refused with the message', async () => {
    const stdout = await runExample('locks', tsExample('sdk/README.md', 'Locks and their health'));
    assert.equal(
      stdout,
      'Front door (owner): ok\nBack door (owner): ok\nFront door relocks after 30 s\n' +
        'lockcloud answered 400 BAD_PARAMS: battery_critical: battery_critical (20) must be lower than battery_low (10)\n',
    );
  });

  it('sdk/README.md sandbox: the next command made to fail, seen as TaskFailedError; then the seed back', async () => {
    const stdout = await runExample('sandbox', tsExample('sdk/README.md', 'The sandbox'));
    assert.equal(stdout, 'the lock said JAMMED\n');
    assert.equal(((await (await getLock(t, LOCK_A)).json()) as { locked: boolean }).locked, true);
  });
});
