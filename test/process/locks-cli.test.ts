/**
 * `lockcloud locks`, run as a subprocess (stdio pipes: no TTY) against a live server in this process:
 * its commands in readable and --json modes, with their exit codes, and --retry on a busy lock.
 * watch and the terminal are locks-cli-watch.test.ts, the README's ways of running it
 * locks-cli-readme.test.ts.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { BetterSqlite3 } from '../../src/adapters/stores/sqlite/better-sqlite3.ts';
import { startCli } from '../support/cli.ts';
import { eventually } from '../support/eventually.ts';
import {
  actionResult,
  advanceClock,
  getLock,
  LOCK_A,
  LOCK_B,
  OTHER_KEY,
  OTHER_LOCK,
  OWNER_KEY,
  simLockOk,
  startServer,
  type TestServer,
} from '../support/server.ts';
import { failed, lockState, locksCli, ok, type Run } from './locks-cli-support.ts';

let t: TestServer;
const cli = (args: readonly string[], env: Record<string, string | undefined> = {}): Promise<Run> =>
  locksCli(t, args, env);

/** A port on 127.0.0.1 that nothing listens on (bound, then closed). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  assert.ok(address !== null && typeof address === 'object');
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return address.port;
}

describe('lockcloud locks (a subprocess, no TTY)', () => {
  before(async () => {
    t = await startServer();
  });
  after(() => t.close());

  it('list: a table, or the /ext/locks answer with --json', async () => {
    const [text, json] = await Promise.all([cli(['list']), cli(['list', '--json'])]);
    ok(text, /^DEVICE_ID +NICKNAME +ROLE +STATE +BATTERY +DOOR\n/);
    ok(json, /^\{/);
    const api = (await (await t.request('/ext/locks', { key: OWNER_KEY })).json()) as {
      locks: { device_id: string; locked: boolean; battery: number; door: string | null }[];
    };
    assert.deepEqual(JSON.parse(json.stdout), api);
    assert.deepEqual(
      api.locks.map((l) => l.device_id),
      [LOCK_A, LOCK_B],
    );
    const rows = text.stdout
      .trimEnd()
      .split('\n')
      .slice(1)
      .map((line) => line.split(/ {2,}/));
    assert.deepEqual(
      rows,
      api.locks.map((l, i) => [
        l.device_id,
        i === 0 ? 'Front door' : 'Back door',
        'owner',
        l.locked ? 'locked' : 'unlocked',
        `${l.battery}% ok`,
        l.door ?? '-',
      ]),
    );
    // Another account sees its own lock and the one shared with it, as a guest.
    const other = await cli(['list'], { LOCKCLOUD_API_KEY: OTHER_KEY });
    ok(other, new RegExp(`^${OTHER_LOCK} +\\S.* +owner +`, 'm'));
    ok(other, new RegExp(`^${LOCK_A} +Front door +guest +(locked|unlocked) +`, 'm'));
  });

  it("status: the lock's full picture; --json is the /ext/locks answer, as the README says", async () => {
    const [text, json] = await Promise.all([cli(['status', LOCK_B]), cli(['status', LOCK_B, '--json'])]);
    ok(text, /^lock +Back door \(SERIAL000B\), owner\nlocked +no\nbattery +55% ok\nresponsive +yes\n/);
    ok(json, /^\{/);
    const api = await (await t.request(`/ext/locks/${LOCK_B}`, { key: OWNER_KEY })).json();
    assert.deepEqual(JSON.parse(json.stdout), api);
    assert.deepEqual(
      (({ locked, battery, responsive }) => ({ locked, battery, responsive }))(
        api as Record<string, unknown>,
      ),
      await (await getLock(t, LOCK_B)).json(),
      "v3's fields, as v3 answers them",
    );
  });

  it('unlock, lock and sync wait for the task; the new state is visible after', async () => {
    await simLockOk(t, LOCK_A, { latency_ms: 300 });
    const unlocked = await cli(['unlock', LOCK_A]);
    ok(unlocked, new RegExp(`^unlocked ${LOCK_A} \\(task [0-9a-f-]+\\)\\n$`));
    assert.equal((await lockState(t, LOCK_A)).locked, false);

    const locked = await cli(['lock', LOCK_A, '--json', '--timeout', '10']);
    ok(locked, /^\{/);
    const body = JSON.parse(locked.stdout) as Record<string, unknown>;
    assert.equal(typeof body.task_id, 'string');
    assert.deepEqual(body, { task_id: body.task_id, status: 'terminated', successful: true, error: null });
    assert.equal((await lockState(t, LOCK_A)).locked, true);

    const [synced, syncedJson] = [await cli(['sync', LOCK_A]), await cli(['sync', LOCK_A, '--json'])];
    ok(synced, new RegExp(`^synced ${LOCK_A} \\(task [0-9a-f-]+\\)\\n$`));
    ok(syncedJson, /"successful": true/);
    await simLockOk(t, LOCK_A, { latency_ms: 0 });
  });

  it('a task that ends unsuccessful exits 1 with its reason (JAMMED)', async () => {
    await simLockOk(t, LOCK_A, { fail_next: 'JAMMED' });
    const text = await cli(['unlock', LOCK_A]);
    failed(
      text,
      1,
      new RegExp(`^lockcloud locks: unlock ${LOCK_A} failed: JAMMED \\(task [0-9a-f-]+\\)\\n$`),
    );
    assert.equal(text.stdout, '');

    await simLockOk(t, LOCK_A, { fail_next: 'JAMMED' });
    const json = await cli(['unlock', LOCK_A, '--json']);
    failed(json, 1, /failed: JAMMED/);
    const body = JSON.parse(json.stdout) as Record<string, unknown>;
    assert.deepEqual(body, {
      task_id: body.task_id,
      status: 'terminated',
      successful: false,
      error: 'JAMMED',
    });
    assert.equal((await lockState(t, LOCK_A)).locked, true);
  });

  it('a task still running after --timeout exits 1', async () => {
    await simLockOk(t, LOCK_B, { latency_ms: 3000 });
    try {
      const run = await cli(['sync', LOCK_B, '--timeout', '0.3']);
      failed(run, 1, /still processing after 0\.3 s/);
      // The task keeps running on the server: the lock answers 3 s later on the sandbox clock. Move it
      // there, so that the task ends and the lock is not busy for the next test.
      const taskId = /task (\S+) still processing/.exec(run.stderr)?.[1];
      assert.ok(taskId);
      await advanceClock(t, 3);
      const result = await eventually(
        'the task to end',
        async () => {
          const body = (await (await actionResult(t, taskId)).json()) as { status?: unknown };
          return body.status === 'terminated' && body;
        },
        { everyMs: 250 }, // slowly: v3 is rate limited here
      );
      assert.deepEqual(result, { status: 'terminated', task_id: taskId, successful: true });
    } finally {
      await simLockOk(t, LOCK_B, { latency_ms: 0 });
    }
  });

  it('--idempotency-key sends the key: the same command again answers the first task; --retry sends one of its own', async () => {
    const keys = (): number => {
      const db = new BetterSqlite3(join(t.dataDir, 'lockcloud.sqlite'), { readonly: true });
      try {
        return (db.prepare('SELECT count(*) AS n FROM idempotency_keys').get() as { n: number }).n;
      } finally {
        db.close();
      }
    };
    const before = keys();
    const first = await cli(['unlock', LOCK_A, '--idempotency-key', 'cli-run-1', '--json']);
    ok(first, /^\{/);
    const again = await cli(['unlock', LOCK_A, '--idempotency-key', 'cli-run-1', '--json']);
    ok(again, /^\{/);
    const { task_id } = JSON.parse(first.stdout) as { task_id: string };
    assert.equal((JSON.parse(again.stdout) as { task_id: string }).task_id, task_id, 'the first run task');
    assert.equal(keys(), before + 1);
    // The key with another command: refused, nothing sent.
    failed(await cli(['lock', LOCK_A, '--idempotency-key', 'cli-run-1']), 4, /refused: BAD_PARAMS/);
    failed(await cli(['lock', LOCK_A, '--idempotency-key', 'two words']), 4, /refused: BAD_PARAMS/);
    assert.equal((await lockState(t, LOCK_A)).locked, false);
    // --retry: a key of its own per run (two runs, two keys, two tasks); without either, none.
    const [r1, r2] = [
      await cli(['lock', LOCK_A, '--retry', '--json']),
      await cli(['lock', LOCK_A, '--retry', '--json']),
    ];
    ok(r1, /^\{/);
    ok(r2, /^\{/);
    assert.notEqual(JSON.parse(r1.stdout).task_id, JSON.parse(r2.stdout).task_id);
    assert.equal(keys(), before + 3);
    ok(await cli(['unlock', LOCK_A]), /^unlocked/);
    assert.equal(keys(), before + 3);
    ok(await cli(['lock', LOCK_A]), /^locked/);
  });

  it('a refusal before running exits 4 with the code: integration off, unknown lock', async () => {
    await simLockOk(t, LOCK_B, { integration: false });
    try {
      const [text, json] = await Promise.all([cli(['lock', LOCK_B]), cli(['lock', LOCK_B, '--json'])]);
      failed(text, 4, /^lockcloud locks: refused: CLOUD_INTEGRATION_NOT_ENABLED/);
      failed(json, 4, /CLOUD_INTEGRATION_NOT_ENABLED/);
      assert.equal(text.stdout + json.stdout, '');
    } finally {
      await simLockOk(t, LOCK_B, { integration: true });
    }
    failed(
      await cli(['status', '00000000-0000-4000-8000-0000000000ff']),
      4,
      /^lockcloud locks: refused: NOT_FOUND: no such lock\n$/,
    );
  });

  it('exit 3 for a bad key, 2 for a missing key or bad usage, 5 for an unreachable server', async () => {
    const port = await closedPort();
    const [badKey, noKey, flagsWin, unreachable, unknown, noId, badTimeout] = await Promise.all([
      cli(['list', '--json'], { LOCKCLOUD_API_KEY: 'not-a-key' }),
      cli(['list'], { LOCKCLOUD_API_KEY: undefined }),
      cli(['list', '--url', t.url, '--key', OWNER_KEY], {
        LOCKCLOUD_URL: `http://127.0.0.1:${port}`,
        LOCKCLOUD_API_KEY: 'not-a-key',
      }),
      cli(['status', LOCK_A], { LOCKCLOUD_URL: `http://127.0.0.1:${port}` }),
      cli(['frobnicate']),
      cli(['status']),
      cli(['lock', LOCK_A, '--timeout', 'soon']),
    ]);
    failed(badKey, 3, /^lockcloud locks: UNAUTHORIZED/);
    assert.equal(badKey.stdout, '');
    failed(noKey, 2, /no API key: pass --key KEY or set LOCKCLOUD_API_KEY/);
    ok(flagsWin, /Front door/);
    failed(unreachable, 5, new RegExp(`cannot reach http://127\\.0\\.0\\.1:${port}: ECONNREFUSED`));
    failed(unknown, 2, /unknown command 'frobnicate'/);
    failed(noId, 2, /missing required argument 'device_id'/);
    failed(badTimeout, 2, /--timeout must be a number of seconds/);
    assert.equal((await lockState(t, LOCK_A)).locked, true, 'a usage error sends nothing');
  });
});

describe('lockcloud locks --retry on a busy lock (a 600 s command timeout: DEVICE_IS_BUSY 600)', () => {
  before(async () => {
    t = await startServer({ flags: ['--command-timeout-ms', '600000'] });
  });
  after(() => t.close());

  it('tries again as soon as the lock is free, saying so once, and succeeds long before n', async () => {
    // An unlock that takes 300 s on the sandbox clock holds the lock; only moving the clock ends it.
    await simLockOk(t, LOCK_A, { latency_ms: 300_000 });
    const sent = await t.request(`/public/lock/${LOCK_A}`, {
      method: 'POST',
      key: OWNER_KEY,
      json: { command: 'unlock' },
    });
    assert.equal(sent.status, 200, await sent.clone().text());
    const running = startCli(['lock', LOCK_A, '--retry'], {
      env: { LOCKCLOUD_URL: t.url, LOCKCLOUD_API_KEY: OWNER_KEY },
    });
    // A deadline for the whole run, not a measure of it: issue 20's CLI slept the full n.
    const watchdog = setTimeout(() => running.kill('SIGKILL'), 60_000);
    try {
      await eventually(
        'the CLI to meet the busy lock',
        () => running.stderr().includes('DEVICE_IS_BUSY'),
        20_000,
      );
      await simLockOk(t, LOCK_A, { latency_ms: 0 });
      await advanceClock(t, 300); // the unlock ends: the lock is free
      const run = await running.done;
      assert.equal(run.code, 0, `exit code (null: the watchdog killed it); stderr: ${run.stderr}`);
      assert.match(run.stdout, new RegExp(`^locked ${LOCK_A} \\(task [0-9a-f-]+\\)\\n$`));
      // Said once, with the running unlock's remaining seconds of its 600: the sandbox clock runs
      // on in real time while the CLI starts (over a second on a loaded machine), so 600 or a little
      // less; the watchdog bounds the run to 60 s.
      const busy =
        /^lockcloud locks: DEVICE_IS_BUSY (\d+): trying again as soon as the lock is free \(for up to 30 s\)\n$/.exec(
          run.stderr,
        );
      assert.ok(busy, run.stderr);
      const seconds = Number(busy[1]);
      assert.ok(seconds > 540 && seconds <= 600, run.stderr);
      assert.equal((await lockState(t, LOCK_A)).locked, true);
    } finally {
      clearTimeout(watchdog);
    }
  });
});
