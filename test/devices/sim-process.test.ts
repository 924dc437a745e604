/**
 * `lockcloud sim` as a process of its own with 1,000 locks: the access points are registered with the
 * admin CLI (the operator's provisioning path), the simulator announces their locks over the broker,
 * the locks appear in the account, and commands to them are carried out.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { eventually } from '../support/eventually.ts';
import { OWNER, OWNER_KEY, startServer, startTask, type TestServer, waitForTask } from '../support/server.ts';

const run = promisify(execFile);
const LOCKS = 1000;
const ACCESS_POINTS = 100;

interface Listed {
  lock_id?: string;
  device_id?: string;
  nickname?: string;
}

async function simulatedLocks(t: TestServer): Promise<Listed[]> {
  const res = await t.request('/public/locks', { key: OWNER_KEY });
  assert.equal(res.status, 200);
  const body = (await res.json()) as Listed[] | { locks?: Listed[] };
  const list = Array.isArray(body) ? body : (body.locks ?? []);
  return list.filter((lock) => lock.nickname?.startsWith('Simulated lock'));
}

function idOf(lock: Listed): string {
  const id = lock.device_id ?? lock.lock_id;
  assert.ok(id, JSON.stringify(lock));
  return id;
}

/** A thousand locks take a while to announce themselves: polled every 100 ms, for up to a minute. */
const SLOW = { timeoutMs: 60_000, everyMs: 100 };

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

describe('lockcloud sim, a separate process with 1,000 locks', () => {
  let t: TestServer;
  let sim: ChildProcess | undefined;
  let simOut = '';

  before(async () => {
    t = await startServer({ flags: ['--no-rate-limit'] });
  });

  after(async () => {
    if (sim) {
      sim.kill('SIGKILL');
      await exited(sim);
    }
    await t.close();
  });

  it('registers access points, connects, announces its locks, and carries out commands', async (ctx) => {
    const { stdout } = await run(
      process.execPath,
      [
        '--import',
        'tsx',
        'src/bin/admin.ts',
        'register-ap',
        OWNER,
        '--count',
        String(ACCESS_POINTS),
        '--json',
        '--data',
        t.dataDir,
      ],
      { env: { ...process.env, LOG_LEVEL: 'warn' } },
    );
    const credentials = JSON.parse(stdout) as { id: string; username: string; password: string }[];
    assert.equal(credentials.length, ACCESS_POINTS);
    const file = join(t.dataDir, 'access-points.json');
    writeFileSync(file, JSON.stringify(credentials), { mode: 0o600 });

    const started = Date.now();
    sim = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        'src/bin/sim.ts',
        '--mqtt-url',
        t.server.devices.brokerUrl,
        '--access-points',
        file,
        '--locks',
        String(LOCKS),
        '--latency-ms',
        '0',
        '--log-level',
        'warn',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    sim.stdout?.on('data', (chunk: Buffer) => {
      simOut += chunk.toString();
    });
    sim.stderr?.on('data', (chunk: Buffer) => {
      simOut += chunk.toString();
    });
    await eventually(
      'the simulator to connect',
      async () => {
        assert.equal(sim?.exitCode, null, `the simulator exited: ${simOut}`);
        return /connected to/.test(simOut);
      },
      SLOW,
    );
    const listed = await eventually(
      '1,000 locks in the account, all responsive',
      async () => {
        const locks = await simulatedLocks(t);
        if (locks.length < LOCKS) return undefined;
        const states = await Promise.all(
          locks
            .slice(0, 20)
            .map(async (lock) => (await t.request(`/public/lock/${idOf(lock)}`, { key: OWNER_KEY })).json()),
        );
        return states.every((s) => (s as { responsive?: boolean }).responsive === true) && locks;
      },
      SLOW,
    );
    ctx.diagnostic(
      `${LOCKS} locks on ${ACCESS_POINTS} access points announced and listed in ${Date.now() - started} ms`,
    );
    assert.equal(listed.length, LOCKS);

    // Commands to 100 locks spread over every access point, all at once.
    const targets = listed.filter((_, i) => i % 10 === 0).map(idOf);
    const sent = Date.now();
    const tasks = await Promise.all(targets.map((id) => startTask(t, id, 'unlock')));
    const results = await Promise.all(tasks.map((task) => waitForTask(t, task)));
    ctx.diagnostic(`${targets.length} concurrent unlocks ended in ${Date.now() - sent} ms`);
    for (const result of results) assert.deepEqual(result, { status: 'terminated', successful: true });
    const after = (await (await t.request(`/public/lock/${targets[0]}`, { key: OWNER_KEY })).json()) as {
      locked?: boolean;
    };
    assert.equal(after.locked, false);

    // Stopped properly, each access point says it is going: its locks turn unresponsive.
    sim?.kill('SIGTERM');
    if (sim) await exited(sim);
    await eventually(
      'the locks to turn unresponsive',
      async () => {
        const state = (await (await t.request(`/public/lock/${targets[0]}`, { key: OWNER_KEY })).json()) as {
          responsive?: boolean;
        };
        return state.responsive === false;
      },
      { timeoutMs: 15_000, everyMs: 100 },
    );
  });
});
