import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { afterEach, describe, it } from 'node:test';
import {
  advanceClock,
  cheapPasswords,
  LOCK_A,
  LOCK_B,
  OTHER,
  OTHER_KEY,
  OTHER_LOCK,
  OWNER,
  OWNER_KEY,
  sendCommand,
  simLock,
  startServer,
  type TestServer,
  waitForTask,
} from '../../support/server.ts';
import { acceptedTask, freshDataDir, json, lockStatus, simClock, snapshotOf, taskResult } from './helpers.ts';

const SEEDED_SIM_STATE = {
  [LOCK_A]: {
    device_id: LOCK_A,
    locked: true,
    battery: 100,
    responsive: true,
    integration: true,
    access_point: true,
    app_open: false,
    latency_ms: 0,
    fail_next: null,
    jammed: false,
    door: 'closed',
    firmware: 'lockcloud-sim-lock/2',
    auto_lock_seconds: 0,
    protocol_version: 2,
  },
  [LOCK_B]: {
    device_id: LOCK_B,
    locked: false,
    battery: 55,
    responsive: true,
    integration: true,
    access_point: true,
    app_open: false,
    latency_ms: 0,
    fail_next: null,
    jammed: false,
    door: 'closed',
    firmware: 'lockcloud-sim-lock/2',
    auto_lock_seconds: 0,
    protocol_version: 2,
  },
};

const reset = (t: TestServer): Promise<Response> => t.request('/_sim/reset', { method: 'POST' });

/** Moves everything the sandbox can move away from the seed; returns the ids of the tasks it made. */
async function disturb(t: TestServer): Promise<string[]> {
  const done = await acceptedTask(t, LOCK_B, 'lock');
  assert.deepEqual(await waitForTask(t, done), { status: 'terminated', successful: true });
  await simLock(t, LOCK_A, {
    locked: false,
    battery: 3,
    integration: false,
    fail_next: 'JAMMED',
    latency_ms: 900,
  });
  await simLock(t, LOCK_B, { access_point: false, app_open: true });
  await simLock(t, OTHER_LOCK, { latency_ms: 60_000 });
  const running = await acceptedTask(t, OTHER_LOCK, 'unlock', OTHER_KEY);
  await advanceClock(t, 3 * 24 * 3600);
  await t.request(`/_sim/accounts/${OWNER}`, { method: 'POST', json: { password: 'changed-password' } });
  await t.request(`/_sim/accounts/${OTHER}`, { method: 'POST', json: { deleted: true } });
  assert.equal((await t.request('/public/locks', { key: OTHER_KEY })).status, 401);
  return [done, running];
}

/** Checks that locks, simulated state, clock, tasks and accounts are as the standard seed left them. */
async function assertSeeded(t: TestServer, tasks: readonly string[]): Promise<void> {
  assert.deepEqual(await lockStatus(t, LOCK_A), { locked: true, battery: 100, responsive: true });
  assert.deepEqual(await lockStatus(t, LOCK_B), { locked: false, battery: 55, responsive: true });
  for (const [id, state] of Object.entries(SEEDED_SIM_STATE)) {
    assert.deepEqual(await json(await simLock(t, id, {})), state);
  }
  const now = await simClock(t);
  assert.ok(
    Math.abs(now - Date.now()) < 5000,
    `the clock is back on the wall clock (off by ${now - Date.now()} ms)`,
  );
  for (const id of tasks) {
    assert.deepEqual(await (await taskResult(t, id)).json(), { error: 'BAD_PARAMS' }, `task ${id} is gone`);
    assert.deepEqual(
      await (await taskResult(t, id, OTHER_KEY)).json(),
      { error: 'BAD_PARAMS' },
      `task ${id} is gone`,
    );
  }
  const store = t.server.store;
  const owner = await store.accounts.findByEmail(OWNER);
  assert.ok(owner?.passwordHash);
  assert.equal(owner.passwordChangedAt, null);
  assert.equal(await cheapPasswords.verify('owner-password', owner.passwordHash), true);
  assert.equal((await store.accounts.findByEmail(OTHER))?.deletedAt, null);
  assert.equal((await t.request('/public/locks', { key: OTHER_KEY })).status, 200);
  // Nothing left busy or refused: every lock takes a command at once.
  for (const [id, key] of [
    [LOCK_A, OWNER_KEY],
    [LOCK_B, OWNER_KEY],
    [OTHER_LOCK, OTHER_KEY],
  ] as const) {
    const taskId = await acceptedTask(t, id, 'sync', key);
    assert.deepEqual(await waitForTask(t, taskId, key), { status: 'terminated', successful: true });
  }
}

describe('POST /_sim/reset', () => {
  let t: TestServer | undefined;
  let dataDir: string | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
    if (dataDir !== undefined) rmSync(dataDir, { recursive: true, force: true });
    dataDir = undefined;
  });

  it('answers 204 and puts locks, simulated state, clock, tasks and accounts back as the seed left them', async () => {
    t = await startServer();
    const tasks = await disturb(t);
    const res = await reset(t);
    assert.equal(res.status, 204);
    assert.equal(await res.text(), '');
    await assertSeeded(t, tasks);
  });

  it('restores the stored data exactly as it was after the seed', async () => {
    t = await startServer();
    const seeded = await snapshotOf(t);
    await disturb(t);
    assert.notDeepEqual(await snapshotOf(t), seeded);
    assert.equal((await reset(t)).status, 204);
    assert.deepEqual(await snapshotOf(t), seeded);
  });

  it('a task that was running when reset came never ends later and never moves the lock', async () => {
    t = await startServer();
    await simLock(t, LOCK_A, { latency_ms: 5000 });
    const running = await acceptedTask(t, LOCK_A, 'unlock');
    assert.equal((await reset(t)).status, 204);
    // Past the lock's 5 s: the answer comes once anything due on the way has fired and settled.
    await advanceClock(t, 60);
    assert.deepEqual(await lockStatus(t, LOCK_A), { locked: true, battery: 100, responsive: true });
    assert.deepEqual(await (await taskResult(t, running)).json(), { error: 'BAD_PARAMS' });
    const next = await acceptedTask(t, LOCK_A, 'unlock');
    assert.deepEqual(await waitForTask(t, next), { status: 'terminated', successful: true });
  });

  it('can be repeated, and the sandbox works as before after it', async () => {
    t = await startServer();
    assert.equal((await reset(t)).status, 204);
    assert.equal((await reset(t)).status, 204);
    await assertSeeded(t, []);
    const busy = await simLock(t, LOCK_A, { fail_next: 'JAMMED' });
    assert.equal(busy.status, 200);
    const taskId = await acceptedTask(t, LOCK_A, 'unlock');
    assert.deepEqual(await waitForTask(t, taskId), {
      status: 'terminated',
      successful: false,
      error: 'JAMMED',
    });
    await advanceClock(t, 15);
    assert.equal((await sendCommand(t, LOCK_A, 'unlock')).status, 200);
  });

  it('still returns to the seed after a restart on the same data directory', async () => {
    dataDir = freshDataDir();
    t = await startServer({ dataDir });
    const seeded = await snapshotOf(t);
    const before = await disturb(t);
    await t.close();

    // Restarted with a different seed file: the data directory holds data, so the seed is ignored.
    t = await startServer({ dataDir, seed: { accounts: [{ email: 'someone@example.com' }] } });
    assert.deepEqual(t.server.report, { kind: 'existing', seedIgnored: true, demoData: false });
    assert.equal((await lockStatus(t, LOCK_A)).battery, 3, 'the disturbed state survived the restart');
    const refused = await sendCommand(t, LOCK_A, 'sync');
    assert.deepEqual(
      await refused.json(),
      { error: 'CLOUD_INTEGRATION_NOT_ENABLED' },
      'the setting survived too',
    );

    assert.equal((await reset(t)).status, 204);
    assert.deepEqual(await snapshotOf(t), seeded);
    await assertSeeded(t, before);
    assert.equal(await t.server.store.accounts.findByEmail('someone@example.com'), undefined);
  });

  it('returns the demo to its first state when there was no seed', async () => {
    t = await startServer({ seed: null });
    assert.equal(t.server.report.kind, 'demo');
    const seeded = await snapshotOf(t);
    const report = t.server.report;
    if (report.kind !== 'demo') throw new Error('unreachable');
    const key = report.demo.apiKey;
    const locks = (await (await t.request('/public/locks', { key })).json()) as { device_id: string }[];
    const first = locks[0]?.device_id;
    assert.ok(first);
    await simLock(t, first, { battery: 1, locked: false });
    assert.equal((await reset(t)).status, 204);
    assert.deepEqual(await snapshotOf(t), seeded);
    assert.equal((await lockStatus(t, first, key)).battery, 87);
  });
});
