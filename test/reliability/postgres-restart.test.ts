/**
 * Issue 11, faults: PostgreSQL restarted under a running lockcloud (a server process of its own on
 * a PostgreSQL of the test's own), once with a fast stop and once with kill -9 of the postmaster,
 * while v3 reads, commands and result polls, v1 reads and controls and sandbox changes run. Every
 * answer must be documented (a 503 SERVICE_UNAVAILABLE with Retry-After during the outage, never a
 * 500, a hang or a dropped connection), /readyz must say the database is failing and then ok, the
 * same process must serve again without a restart, and no accepted write may be lost: every
 * accepted command ends, none stays processing, and every accepted change is there.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import type { Seed } from '../../src/app/seed/schema.ts';
import { eventually } from '../support/eventually.ts';
import { MixedLoad } from '../support/mixed-load.ts';
import { OwnPostgres } from '../support/own-postgres.ts';
import { reportUnexpectedExit, type ServerProcess, startProcess } from '../support/process.ts';

const EMAIL = 'restart@example.com';
const PASSWORD = 'restart-password';
const KEY = 'restart-api-key-0001';
const LOCKS = Array.from({ length: 6 }, (_, i) => `d0000000-0000-4000-8000-00000000000${i}`);
/** A lock that answers long after the command timeout: its command's deadline falls in the outage. */
const SLOW_LOCK = 'd0000000-0000-4000-8000-0000000000ff';
const COMMAND_TIMEOUT_MS = 3000;

const seed: Seed = {
  accounts: [{ email: EMAIL, password: PASSWORD, verified: true }],
  api_keys: [{ account: EMAIL, key: KEY }],
  locks: [
    ...LOCKS.map((device_id, i) => ({
      device_id,
      serial: `RESTART${i}`,
      nickname: `Door ${i}`,
      owner: EMAIL,
      // Some locks take a while: their commands are in flight when the database goes.
      latency_ms: i % 2 === 0 ? 0 : 300,
    })),
    { device_id: SLOW_LOCK, serial: 'RESTARTFF', nickname: 'Slow door', owner: EMAIL, latency_ms: 60_000 },
  ],
};

const json = { authorization: KEY, 'content-type': 'application/json' };

/** A command to the slow lock, accepted (the lock may still be busy with the last one for a while). */
function slowCommand(url: string): Promise<{ taskId: string; acceptedAt: number }> {
  return eventually(
    'the slow lock to take a command',
    async () => {
      const res = await fetch(`${url}/public/lock/${SLOW_LOCK}`, {
        method: 'POST',
        headers: json,
        body: JSON.stringify({ command: 'unlock' }),
      });
      const body = (await res.json()) as { task_id?: string; error?: string };
      if (res.status === 200 && body.task_id) return { taskId: body.task_id, acceptedAt: Date.now() };
      assert.match(
        body.error ?? '',
        /^DEVICE_IS_BUSY/,
        `a busy lock, not ${res.status} ${JSON.stringify(body)}`,
      );
      return undefined;
    },
    { timeoutMs: 30_000, everyMs: 200 },
  );
}

/** Outages take seconds: a longer wait, polled less often. */
const until = (what: string, probe: () => boolean | Promise<boolean>): Promise<true> =>
  eventually(what, probe, { timeoutMs: 30_000, everyMs: 50 });

async function readiness(url: string): Promise<{ status: number; failing: string[] }> {
  const res = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(10_000) });
  const body = (await res.json()) as { failing?: string[] };
  return { status: res.status, failing: body.failing ?? [] };
}

/**
 * Each surface the load does not cover, once, while the database is away: its documented 503 in
 * its own shape, with Retry-After (docs/errors.md).
 */
async function probeSurfaces(url: string): Promise<void> {
  const probes: [string, RequestInit, unknown][] = [
    ['/ext/webhook', { headers: json }, 'SERVICE_UNAVAILABLE'],
    ['/_sim/reset', { method: 'POST', headers: json, body: '{}' }, 'SERVICE_UNAVAILABLE'],
    ['/dashboard/api/locks', { headers: { cookie: 'lc_session=x' } }, 'SERVICE_UNAVAILABLE'],
    [
      '/v1/accounts/login',
      { method: 'POST', headers: json, body: JSON.stringify({ email: EMAIL, password: PASSWORD }) },
      50300,
    ],
  ];
  for (const [path, init, expected] of probes) {
    const res = await fetch(`${url}${path}`, init);
    const body = (await res.json()) as { error?: string; code?: number; message?: string };
    assert.equal(res.status, 503, `${path}: ${res.status} ${JSON.stringify(body)}`);
    assert.match(res.headers.get('retry-after') ?? '', /^\d+$/, path);
    assert.equal(body.error ?? body.code, expected, path);
    if (!path.startsWith('/v1')) assert.equal(typeof body.message, 'string', path);
  }
}

describe('PostgreSQL restarted under a running lockcloud', () => {
  let db: OwnPostgres;
  let server: ServerProcess;
  let markStopping = (): void => undefined;
  const dir = mkdtempSync(join(tmpdir(), 'lockcloud-pg-restart-'));

  before(async () => {
    db = await OwnPostgres.create();
    writeFileSync(join(dir, 'seed.json'), JSON.stringify(seed));
    const flags = ['--data', dir, '--seed', join(dir, 'seed.json'), '--no-rate-limit'];
    server = await startProcess([...flags, '--command-timeout-ms', String(COMMAND_TIMEOUT_MS)], {
      DATABASE_URL: db.url(),
    });
    // A crash is told with what the process wrote.
    markStopping = reportUnexpectedExit(server);
  });
  after(async () => {
    markStopping();
    await server?.stop();
    await db?.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers 503 while it is away, loses no accepted write and recovers by itself', async () => {
    const load = new MixedLoad({
      url: server.url,
      apiKey: KEY,
      locks: LOCKS,
      email: EMAIL,
      password: PASSWORD,
      simNoAnswerIsRefusal: true,
    });
    const slowTasks: string[] = [];
    await load.start(8);
    try {
      await until('traffic answered', () => load.verdicts.ok >= 50);
      for (const outage of ['fast stop', 'kill -9'] as const) {
        // A command in flight whose deadline passes while the database is away: ending it at its
        // deadline fails, which once ended the whole process (an unhandled rejection).
        const slow = await slowCommand(server.url);
        slowTasks.push(slow.taskId);
        const unavailableBefore = load.verdicts.unavailable;
        if (outage === 'fast stop') await db.stop();
        else await db.kill9();
        await until(`${outage}: /readyz reports the database`, async () => {
          const ready = await readiness(server.url);
          return ready.status === 503 && ready.failing.includes('database');
        });
        if (outage === 'fast stop') await probeSurfaces(server.url);
        // The clients meet the outage for a while: each of their requests needs the database.
        await until(`${outage}: 503s answered`, () => load.verdicts.unavailable >= unavailableBefore + 20);
        await until(
          `${outage}: the slow command's deadline passed`,
          () => Date.now() > slow.acceptedAt + COMMAND_TIMEOUT_MS + 1500,
        );
        await db.start();
        await until(`${outage}: /readyz ok again`, async () => (await readiness(server.url)).status === 200);
        const okBefore = load.verdicts.ok;
        await until(`${outage}: traffic served again`, () => load.verdicts.ok >= okBefore + 100);
      }
    } finally {
      // A failure above must not leave the clients running: the test would never end.
      await load.stop();
    }

    const report = `${load.table()}\nfailures: ${JSON.stringify(load.failures.slice(0, 5))}`;
    assert.equal(load.faults, 0, `every answer is documented:\n${report}`);
    // The outage reached every API: reads, commands and v1 were each told 503, not 500.
    for (const op of ['v3-read', 'v3-command', 'v1-read'])
      assert.ok(
        [...load.counts.keys()].some((k) => k.startsWith(`${op} 503 unavailable`)),
        `${op} met the outage:\n${report}`,
      );

    // The commands whose deadline fell in an outage ended TIMEOUT once the database was back.
    for (const taskId of slowTasks)
      await until(`slow task ${taskId} ended TIMEOUT`, async () => {
        const res = await fetch(`${server.url}/public/action-result?task_id=${taskId}`, { headers: json });
        const body = JSON.stringify(await res.json());
        return body === `{"status":"terminated","task_id":"${taskId}","successful":false,"error":"TIMEOUT"}`;
      });

    // Every accepted command ends, as a documented outcome, and none stays processing.
    const left = await load.settle(20_000);
    assert.deepEqual(
      left.map((t) => t.taskId),
      [],
      'every accepted command ends',
    );
    assert.ok(load.accepted.length >= 5, `commands were accepted: ${load.accepted.length}`);
    assert.deepEqual(load.badOutcomes, [], 'no task ends INTERNAL_ERROR');
    const client = new pg.Client({ connectionString: db.url() });
    await client.connect();
    try {
      const { rows } = await client.query("SELECT count(*)::int AS n FROM tasks WHERE status = 'processing'");
      assert.equal(rows[0]?.n, 0, 'no task stays processing');
      const { rows: stored } = await client.query('SELECT id FROM tasks');
      const ids = new Set(stored.map((r: { id: string }) => r.id));
      assert.deepEqual(
        load.accepted.filter((t) => !ids.has(t.taskId)).map((t) => t.taskId),
        [],
        'every accepted task is stored',
      );
    } finally {
      await client.end();
    }

    // Every accepted sandbox change is the device's, and the cloud's view of each lock is the device's.
    for (const lock of LOCKS) {
      const device = (await (
        await fetch(`${server.url}/_sim/locks/${lock}`, { method: 'POST', headers: json, body: '{}' })
      ).json()) as { locked: boolean; battery: number };
      const change = load.simChanges.get(lock);
      if (change?.settled) assert.equal(device.battery, change.battery, `the last change of ${lock} holds`);
      await until(`the cloud's view of ${lock} matches its device`, async () => {
        const res = await fetch(`${server.url}/public/lock/${lock}`, { headers: json });
        const cloud = (await res.json()) as { locked: boolean; battery: number };
        return cloud.locked === device.locked && cloud.battery === device.battery;
      });
    }

    // The same process served throughout: no restart, no crash.
    assert.equal(server.child.exitCode, null);
    assert.equal(server.child.signalCode, null);
  });
});
