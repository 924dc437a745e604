/**
 * `lockcloud locks` as the README runs it: through the `lockcloud` command (src/bin/cli.ts), and the
 * "## Command-line client" examples as written, in a shell.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { startCli } from '../support/cli.ts';
import { LOCK_A, OWNER_KEY, startServer, type TestServer } from '../support/server.ts';
import { ok } from './locks-cli-support.ts';

let t: TestServer;

/** The first ```sh block under "## Command-line client". */
function readmeExample(): string {
  const readme = readFileSync('README.md', 'utf8');
  const start = readme.indexOf('\n## Command-line client\n');
  assert.ok(start >= 0, 'no "## Command-line client" section in README.md');
  const section = readme.slice(start, readme.indexOf('\n## ', start + 1));
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1];
  assert.ok(block, 'no ```sh block under ## Command-line client');
  return block;
}

describe('lockcloud locks as the README runs it', () => {
  before(async () => {
    t = await startServer();
  });
  after(() => t.close());

  it('runs as `lockcloud locks` through the lockcloud command (src/bin/cli.ts)', async () => {
    const run = await startCli(['locks', 'list', '--json'], {
      entry: ['--import', 'tsx', 'src/bin/cli.ts'],
      env: { LOCKCLOUD_URL: t.url, LOCKCLOUD_API_KEY: OWNER_KEY },
    }).done;
    ok(run, /Front door/);
  });

  it('runs the example block in a shell, every command succeeding', async () => {
    const block = readmeExample();
    for (const [text, what] of [
      ['http://127.0.0.1:8080', 'the URL'],
      ['lck_...', 'the key'],
      ['6f1c...', 'a device id'],
      ['lockcloud locks list', 'list'],
      ['lockcloud locks status', 'status'],
      ['lockcloud locks set', 'set'],
    ] as const)
      assert.ok(block.includes(text), `the example has no ${what} (${text})`);
    // Only the URL, the key and the device id are substituted; `lockcloud` is the package's command.
    const script = [
      'set -e',
      `lockcloud() { ${process.execPath} --import tsx src/bin/cli.ts "$@"; }`,
      block
        .replaceAll('http://127.0.0.1:8080', t.url)
        .replaceAll('lck_...', OWNER_KEY)
        .replaceAll('6f1c...', LOCK_A),
    ].join('\n');
    const run = await startCli(['-c', script], {
      program: 'sh',
      entry: [],
      env: { LOCKCLOUD_URL: undefined, LOCKCLOUD_API_KEY: undefined },
    }).done;
    assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
    assert.equal(run.stderr, '');
    assert.match(
      run.stdout,
      new RegExp(
        `^DEVICE_ID +NICKNAME +ROLE +STATE +BATTERY +DOOR\\n${LOCK_A} +Front door +owner +(locked|unlocked) +100% ok +closed\\n`,
      ),
    );
    assert.match(run.stdout, /^locked +(yes|no)\nbattery +100% ok\nresponsive +yes\njammed +no$/m);
    assert.match(run.stdout, /^auto-lock +30 s\nthresholds +low under 25%, critical under 10%$/m);
  });
});
