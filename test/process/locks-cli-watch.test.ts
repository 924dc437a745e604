/**
 * `lockcloud locks watch` as a subprocess against a live server in this process: the state, then a
 * line per change, --count, --once and SIGINT; and the progress line of a command on a terminal
 * (script(1)).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { startCli } from '../support/cli.ts';
import { eventually } from '../support/eventually.ts';
import { LOCK_A, LOCK_B, OWNER_KEY, simLockOk, startServer, type TestServer } from '../support/server.ts';
import { lockState, locksCli, ok, type Run } from './locks-cli-support.ts';

let t: TestServer;
const cli = (args: readonly string[], env: Record<string, string | undefined> = {}): Promise<Run> =>
  locksCli(t, args, env);

describe('lockcloud locks watch, and on a terminal', () => {
  before(async () => {
    t = await startServer();
  });
  after(() => t.close());

  it('watch prints the state, then a line per change (a hand turn), and stops after --count', async () => {
    assert.equal((await lockState(t, LOCK_A)).locked, true);
    const env = { LOCKCLOUD_URL: t.url, LOCKCLOUD_API_KEY: OWNER_KEY };
    const text = startCli(['watch', '--interval', '0.1', '--count', '1'], { env });
    const json = startCli(['watch', '--interval', '0.1', '--count', '1', '--json'], { env });
    await eventually(
      'watch to print the initial state',
      () => text.stdout().split('\n').length >= 3 && json.stdout().split('\n').length >= 3,
      20_000,
    );
    await simLockOk(t, LOCK_A, { locked: false }); // turned by hand
    const [textRun, jsonRun] = await Promise.all([text.done, json.done]);

    ok(textRun, new RegExp(`^\\S+Z  ${LOCK_A}  Front door  locked, battery 100%, responsive\\n`));
    const lines = textRun.stdout.trimEnd().split('\n');
    assert.equal(lines.length, 3);
    assert.match(lines[1] ?? '', new RegExp(`  ${LOCK_B}  Back door  unlocked, battery 55%, responsive$`));
    assert.match(lines[2] ?? '', new RegExp(`  ${LOCK_A}  Front door  unlocked \\(was locked\\)$`));

    assert.equal(jsonRun.code, 0, jsonRun.stderr);
    assert.equal(jsonRun.stderr, '');
    const events = jsonRun.stdout
      .trimEnd()
      .split('\n')
      .map((l) => {
        const { time, ...rest } = JSON.parse(l) as Record<string, unknown>;
        assert.match(String(time), /^\d{4}-\d\d-\d\dT/);
        return rest;
      });
    assert.deepEqual(events, [
      {
        device_id: LOCK_A,
        nickname: 'Front door',
        locked: true,
        battery: 100,
        responsive: true,
        changed: [],
      },
      { device_id: LOCK_B, nickname: 'Back door', locked: false, battery: 55, responsive: true, changed: [] },
      {
        device_id: LOCK_A,
        nickname: 'Front door',
        locked: false,
        battery: 100,
        responsive: true,
        changed: ['locked'],
      },
    ]);
    await simLockOk(t, LOCK_A, { locked: true });
  });

  it('watch --once prints the state and stops; SIGINT ends a watch with 0', async () => {
    ok(await cli(['watch', '--once', '--json']), /"changed":\[\]/);
    const running = startCli(['watch', '--interval', '0.1'], {
      env: { LOCKCLOUD_URL: t.url, LOCKCLOUD_API_KEY: OWNER_KEY },
    });
    await eventually('watch to print the locks', () => running.stdout().includes(LOCK_B), 20_000);
    running.kill('SIGINT');
    const run = await running.done;
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stderr, '');
  });

  const hasScript = spawnSync('script', ['--version']).status === 0;
  it('shows a progress line on stderr when it is a terminal', { skip: !hasScript }, async () => {
    await simLockOk(t, LOCK_B, { latency_ms: 400 });
    try {
      // script(1) gives the CLI a pseudo-terminal; its output is the terminal's.
      const command = `${process.execPath} --import tsx src/bin/locks.ts unlock ${LOCK_B}`;
      const run = await startCli(['-qec', command, '/dev/null'], {
        program: 'script',
        entry: [],
        env: { LOCKCLOUD_URL: t.url, LOCKCLOUD_API_KEY: OWNER_KEY },
      }).done;
      assert.equal(run.code, 0, run.stdout);
      assert.match(
        run.stdout,
        new RegExp(`\\r\\x1b\\[K[|/\\\\-] unlock ${LOCK_B}: waiting for the lock \\(\\d+\\.\\d s\\)`),
      );
      assert.match(
        run.stdout,
        new RegExp(`\\r\\x1b\\[Kunlocked ${LOCK_B} \\(task `),
        'the line is cleared first',
      );
    } finally {
      await simLockOk(t, LOCK_B, { latency_ms: 0 });
    }
  });
});
