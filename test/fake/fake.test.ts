/**
 * startLockcloud() (src/index.ts), the package's export for other people's test suites, from its
 * sources: seeds (object, file, the demo), the returned credentials, the sandbox controls and their
 * errors, the options (rate limits, password cost, timeouts), two side by side sharing nothing, and
 * close() leaving nothing behind. The packed package runs docs/fake.md's examples in
 * test/package/pack.test.ts.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { BetterSqlite3 as Database } from '../../src/adapters/stores/sqlite/better-sqlite3.ts';
import {
  type LockcloudSeed,
  type RunningLockcloud,
  SandboxError,
  type StartLockcloudOptions,
  startLockcloud,
} from '../../src/index.ts';
import { eventually } from '../support/eventually.ts';

const ANN = 'ann@example.com';
const BOB = 'bob@example.com';
const KEY = 'test-key-ann-0001';
const LOCK = '00000000-0000-4000-8000-000000000001';
const OTHER_LOCK = '00000000-0000-4000-8000-000000000002';

const SEED: LockcloudSeed = {
  accounts: [
    { email: ANN, password: 'ann-password' },
    { email: BOB, password: null },
  ],
  api_keys: [{ account: ANN, key: KEY }],
  locks: [
    { device_id: LOCK, owner: ANN, nickname: 'Front door' },
    { device_id: OTHER_LOCK, owner: ANN, locked: false, battery: 50 },
  ],
};

/** Every fake of this file makes its directory under this one (os.tmpdir() follows TMPDIR). */
let scratch: string;
const leftovers = () => readdirSync(scratch).filter((name) => name.startsWith('lockcloud-fake-'));

async function call(
  lockcloud: RunningLockcloud,
  method: 'GET' | 'POST',
  path: string,
  json?: unknown,
  key = lockcloud.apiKey ?? '',
): Promise<{ status: number; body: unknown; headers: Headers }> {
  const res = await fetch(lockcloud.url + path, {
    method,
    headers: { authorization: key, ...(json === undefined ? {} : { 'content-type': 'application/json' }) },
    body: json === undefined ? undefined : JSON.stringify(json),
  });
  const text = await res.text();
  return { status: res.status, body: text === '' ? undefined : JSON.parse(text), headers: res.headers };
}

async function send(lockcloud: RunningLockcloud, deviceId: string, command: string): Promise<string> {
  const { status, body } = await call(lockcloud, 'POST', `/public/lock/${deviceId}`, { command });
  assert.equal(status, 200, JSON.stringify(body));
  return (body as { task_id: string }).task_id;
}

/** Polls the task until it ends; the server's timers end every task, so this terminates. */
async function outcome(lockcloud: RunningLockcloud, taskId: string): Promise<unknown> {
  return eventually(`task ${taskId} to end`, async () => {
    const { body } = await call(lockcloud, 'GET', `/public/action-result?task_id=${taskId}`);
    const { task_id, ...ended } = body as Record<string, unknown>;
    assert.equal(task_id, taskId, 'action-result names the task asked for');
    return ended.status !== 'processing' && ended;
  });
}

const SUCCEEDED = { status: 'terminated', successful: true };
const failed = (error: string) => ({ status: 'terminated', successful: false, error });

/** The stored password hash of an account, read from the fake's SQLite file (behind the API). */
function storedHash(email: string): string {
  const [dir] = leftovers();
  assert.ok(dir, 'a running fake has its directory under TMPDIR');
  const db = new Database(join(scratch, dir, 'data', 'lockcloud.sqlite'), { readonly: true });
  try {
    const row = db.prepare('SELECT password_hash FROM accounts WHERE email = ?').get(email) as
      | { password_hash: string }
      | undefined;
    return row?.password_hash ?? '';
  } finally {
    db.close();
  }
}

async function withFake<T>(
  options: StartLockcloudOptions,
  use: (lockcloud: RunningLockcloud) => Promise<T>,
): Promise<T> {
  const lockcloud = await startLockcloud(options);
  try {
    return await use(lockcloud);
  } finally {
    await lockcloud.close();
  }
}

describe('startLockcloud: a lockcloud sandbox in the test process', () => {
  const tmpdirBefore = process.env.TMPDIR;
  before(() => {
    scratch = mkdtempSync(join(tmpdir(), 'lockcloud-fake-test-'));
    process.env.TMPDIR = scratch;
  });
  after(() => {
    if (tmpdirBefore === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = tmpdirBefore;
    rmSync(scratch, { recursive: true, force: true });
  });

  it('a seed object: its credentials come back, its key answers, a command goes through the simulated lock', async () => {
    await withFake({ seed: SEED }, async (lockcloud) => {
      assert.match(lockcloud.url, /^http:\/\/127\.0\.0\.1:\d+$/);
      assert.match(lockcloud.mqttUrl, /^mqtt:\/\/127\.0\.0\.1:\d+$/);
      assert.deepEqual(lockcloud.accounts, [
        { email: ANN, password: 'ann-password' },
        { email: BOB, password: null },
      ]);
      assert.deepEqual(lockcloud.apiKeys, [{ account: ANN, key: KEY }]);
      assert.equal(lockcloud.apiKey, KEY);
      assert.deepEqual(lockcloud.locks, [
        { device_id: LOCK, owner: ANN, nickname: 'Front door' },
        { device_id: OTHER_LOCK, owner: ANN, nickname: undefined },
      ]);
      const { status, body } = await call(lockcloud, 'GET', `/public/lock/${OTHER_LOCK}`);
      assert.deepEqual(
        { status, body },
        { status: 200, body: { locked: false, battery: 50, responsive: true } },
      );
      assert.deepEqual(await outcome(lockcloud, await send(lockcloud, LOCK, 'unlock')), SUCCEEDED);
      assert.equal(
        ((await call(lockcloud, 'GET', `/public/lock/${LOCK}`)).body as { locked: boolean }).locked,
        false,
      );
    });
  });

  it('a seed file, by its path (the format of `lockcloud serve --seed`)', async () => {
    const file = join(scratch, 'seed.json');
    writeFileSync(file, JSON.stringify(SEED));
    await withFake({ seed: file }, async (lockcloud) => {
      assert.equal(lockcloud.apiKey, KEY);
      const { status, body } = await call(lockcloud, 'GET', '/public/locks');
      assert.equal(status, 200);
      assert.deepEqual((body as { device_id: string }[]).map((l) => l.device_id).sort(), [LOCK, OTHER_LOCK]);
    });
  });

  it('no seed: the demo, whose returned key and password work (v3 and v1)', async () => {
    await withFake({}, async (lockcloud) => {
      assert.equal(lockcloud.accounts.length, 1);
      const [account] = lockcloud.accounts;
      assert.match(lockcloud.apiKey ?? '', /^lck_/);
      assert.equal(lockcloud.locks.length, 2);
      const { body } = await call(lockcloud, 'GET', '/public/locks');
      assert.deepEqual(
        (body as { device_id: string }[]).map((l) => l.device_id).sort(),
        lockcloud.locks.map((l) => l.device_id).sort(),
      );
      const login = await call(lockcloud, 'POST', '/v1/accounts/login', {
        email: account?.email,
        password: account?.password,
      });
      assert.equal(login.status, 200, JSON.stringify(login.body));
    });
  });

  it('the controls: addLock, a simulated lock of the account, listed and moved at once; reset removes it', async () => {
    await withFake({ seed: SEED }, async (lockcloud) => {
      const added = await lockcloud.sandbox.addLock({ owner: ANN, nickname: 'Shed', locked: false });
      assert.deepEqual(
        { owner: added.owner, nickname: added.nickname, locked: added.locked, battery: added.battery },
        { owner: ANN, nickname: 'Shed', locked: false, battery: 100 },
      );
      const listed = await call(lockcloud, 'GET', '/public/locks');
      assert.ok(
        (listed.body as { device_id: string }[]).some((l) => l.device_id === added.device_id),
        JSON.stringify(listed.body),
      );
      assert.deepEqual(await outcome(lockcloud, await send(lockcloud, added.device_id, 'lock')), SUCCEEDED);
      await assert.rejects(lockcloud.sandbox.addLock({ owner: 'nobody@example.com' }), {
        name: 'SandboxError',
        status: 404,
        error: 'NOT_FOUND',
      });
      await lockcloud.sandbox.reset();
      const after = await call(lockcloud, 'GET', '/public/locks');
      assert.ok(!(after.body as { device_id: string }[]).some((l) => l.device_id === added.device_id));
    });
  });

  it('the controls: failNext, setLock, advanceClock, changeAccount, mailbox and reset', async () => {
    await withFake({ seed: SEED }, async (lockcloud) => {
      const { sandbox } = lockcloud;
      const jammed = await sandbox.failNext(LOCK, 'JAMMED');
      assert.equal(jammed.fail_next, 'JAMMED');
      assert.deepEqual(await outcome(lockcloud, await send(lockcloud, LOCK, 'unlock')), failed('JAMMED'));

      const flat = await sandbox.setLock(LOCK, { battery: 5 });
      assert.deepEqual(
        { battery: flat.battery, locked: flat.locked, device_id: flat.device_id },
        { battery: 5, locked: true, device_id: LOCK },
      );
      const refused = await call(lockcloud, 'POST', `/public/lock/${LOCK}`, { command: 'unlock' });
      assert.deepEqual(
        { status: refused.status, body: refused.body },
        { status: 400, body: { error: 'LOW_BATTERY' } },
      );

      // A lock that takes ten minutes: the 15-second command timeout ends the task once the clock passes it.
      await sandbox.setLock(OTHER_LOCK, { latency_ms: 600_000 });
      const slow = await send(lockcloud, OTHER_LOCK, 'lock');
      const before = await sandbox.getClock();
      const moved = await sandbox.advanceClock(16);
      assert.ok(moved.epoch_ms - before.epoch_ms >= 16_000, `${before.now} -> ${moved.now}`);
      assert.equal(new Date(moved.now).getTime(), moved.epoch_ms);
      assert.deepEqual(await outcome(lockcloud, slow), failed('TIMEOUT'));

      const changed = await sandbox.changeAccount(ANN, { password: 'a-new-password' });
      assert.deepEqual(changed, { email: ANN, password_changed: true, deleted: false });
      const oldLogin = await call(lockcloud, 'POST', '/v1/accounts/login', {
        email: ANN,
        password: 'ann-password',
      });
      assert.notEqual(oldLogin.status, 200);

      const forgot = await fetch(`${lockcloud.url}/dashboard/forgot`, { method: 'GET' });
      assert.equal(forgot.status, 200, 'the dashboard is served');
      assert.deepEqual(await sandbox.mailbox(ANN), []);

      await sandbox.reset();
      const back = await call(lockcloud, 'GET', `/public/lock/${LOCK}`);
      assert.deepEqual(back.body, { locked: true, battery: 100, responsive: true });
      const login = await call(lockcloud, 'POST', '/v1/accounts/login', {
        email: ANN,
        password: 'ann-password',
      });
      assert.equal(login.status, 200, 'the seed password again after reset');
      assert.deepEqual(await outcome(lockcloud, await send(lockcloud, LOCK, 'unlock')), SUCCEEDED);
    });
  });

  it('a refused control rejects with SandboxError: the status, the code and the reason of /_sim', async () => {
    await withFake({ seed: SEED }, async ({ sandbox }) => {
      const unknown = '00000000-0000-4000-8000-0000000000ff';
      await assert.rejects(sandbox.setLock(unknown, { battery: 5 }), (error: unknown) => {
        assert.ok(error instanceof SandboxError);
        assert.deepEqual([error.status, error.error, error.name], [404, 'NOT_FOUND', 'SandboxError']);
        return true;
      });
      await assert.rejects(sandbox.setLock(LOCK, { battery: 101 }), (error: unknown) => {
        assert.ok(error instanceof SandboxError);
        assert.deepEqual([error.status, error.error], [400, 'BAD_PARAMS']);
        assert.match(error.message, /battery/);
        return true;
      });
      await assert.rejects(sandbox.advanceClock(-1), {
        name: 'SandboxError',
        status: 400,
        error: 'BAD_PARAMS',
      });
      await assert.rejects(sandbox.changeAccount('nobody@example.com', { deleted: true }), {
        status: 404,
        error: 'NOT_FOUND',
      });
      await assert.rejects(sandbox.failNext(LOCK, 'ON_FIRE' as 'JAMMED'), {
        status: 400,
        error: 'BAD_PARAMS',
      });
    });
  });

  it('a bad seed or option rejects with the reason, leaving no directory and nothing listening', async () => {
    const cases: [StartLockcloudOptions, RegExp][] = [
      [{ seed: { locks: [{ device_id: LOCK, owner: ANN, battery: 101 }] } }, /seed\.locks\[0\]\.battery/],
      [{ seed: { accounts: [{ email: ANN }], api_keys: [{ account: BOB, key: KEY }] } }, /no account bob@/],
      [{ seed: join(scratch, 'no-such-seed.json') }, /cannot read the seed file/],
      [{ commandTimeoutMs: -5 }, /command-timeout-ms|commandTimeoutMs/i],
      [
        { rateLimits: { endpoints: { 'GET /nowhere': { ip: { burst: 1, per_second: 1 } } } } },
        /GET \/nowhere/,
      ],
      [{ logLevel: 'loud' as 'info' }, /log/i],
      // What TypeScript would refuse, from JavaScript:
      [{ rateLimit: false } as StartLockcloudOptions, /unknown option rateLimit \(options: seed, rateLimits/],
      [{ passwordHashing: 'cheap' as 'fast' }, /passwordHashing: 'fast' or 'production'/],
      [{ rateLimits: 'off' as unknown as boolean }, /rateLimits: true, false or an object/],
      [{ seed: 42 as unknown as string }, /seed: a seed object or the path of a seed file/],
      [{ seed: null as unknown as string }, /seed: a seed object/],
    ];
    for (const [options, reason] of cases) {
      await assert.rejects(startLockcloud(options), reason, JSON.stringify(options));
      assert.deepEqual(leftovers(), [], `after ${JSON.stringify(options)}`);
    }
  });

  it('rate limits: off by default; an object lays limits over the defaults; true is the server’s own', async () => {
    await withFake({ seed: SEED }, async (lockcloud) => {
      // Over the account's burst of 10 on GET /public/locks, and no RateLimit fields at all.
      for (let i = 0; i < 15; i++) {
        const { status, headers } = await call(lockcloud, 'GET', '/public/locks');
        assert.equal(status, 200, `request ${i + 1}`);
        assert.equal(headers.get('ratelimit-policy'), null);
      }
    });
    const tight = { endpoints: { 'GET /public/locks': { account: { burst: 1, per_second: 1 } } } };
    await withFake({ seed: SEED, rateLimits: tight }, async (lockcloud) => {
      assert.equal((await call(lockcloud, 'GET', '/public/locks')).status, 200);
      const second = await call(lockcloud, 'GET', '/public/locks');
      assert.deepEqual(
        { status: second.status, body: second.body },
        { status: 429, body: { error: 'THROTTLED' } },
      );
      // The limits follow the sandbox clock, and reset empties the buckets.
      await lockcloud.sandbox.advanceClock(1);
      assert.equal((await call(lockcloud, 'GET', '/public/locks')).status, 200);
    });
    await withFake({ seed: SEED, rateLimits: true }, async (lockcloud) => {
      const { headers } = await call(lockcloud, 'GET', '/public/locks');
      assert.equal(headers.get('ratelimit-policy'), '"endpoint";q=10;w=5');
    });
  });

  it('passwords are hashed at a test cost by default, at the server’s with passwordHashing: production', async () => {
    await withFake({ seed: SEED }, async () => {
      assert.match(storedHash(ANN), /^scrypt\$1024\$8\$1\$/);
    });
    await withFake({ seed: SEED, passwordHashing: 'production' }, async () => {
      assert.match(storedHash(ANN), /^scrypt\$131072\$8\$1\$/);
    });
  });

  it('commandTimeoutMs and lowBatteryThreshold reach the server', async () => {
    await withFake({ seed: SEED, commandTimeoutMs: 2000, lowBatteryThreshold: 60 }, async (lockcloud) => {
      const refused = await call(lockcloud, 'POST', `/public/lock/${OTHER_LOCK}`, { command: 'lock' });
      assert.deepEqual(refused.body, { error: 'LOW_BATTERY' }, 'battery 50 is under 60');
      await lockcloud.sandbox.setLock(LOCK, { latency_ms: 600_000 });
      const task = await send(lockcloud, LOCK, 'unlock');
      await lockcloud.sandbox.advanceClock(3);
      assert.deepEqual(await outcome(lockcloud, task), failed('TIMEOUT'));
    });
  });

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

  it('logLevel: the server’s log lines on stdout when asked for', async () => {
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        '--input-type=module',
        '-e',
        `import { startLockcloud } from './src/index.ts';
         const lockcloud = await startLockcloud({ logLevel: 'info' });
         await fetch(lockcloud.url + '/healthz');
         await lockcloud.close();`,
      ],
      { env: { ...process.env, TMPDIR: scratch }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    const code = await new Promise((resolve) => child.once('close', resolve));
    assert.equal(code, 0);
    const messages = stdout
      .trimEnd()
      .split('\n')
      .map((line) => (JSON.parse(line) as { msg: string }).msg);
    assert.ok(messages.includes('device link up'), messages.join(' | '));
  });
});
