/**
 * The command use case against a real SQLite store, a clock that moves only when told, and a device
 * gateway scripted by each test: the cases the simulator cannot produce (a gateway that throws, an
 * answer that comes after the deadline).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, beforeEach, describe, it } from 'node:test';
import { openSqliteStore } from '../../src/adapters/stores/sqlite/open.ts';
import { LocalEventBus } from '../../src/adapters/system/event-bus.ts';
import { Commands } from '../../src/app/commands.ts';
import { DeviceReports } from '../../src/app/device-reports.ts';
import { HourlyPurges } from '../../src/app/hourly-purges.ts';
import { LockQueries } from '../../src/app/locks.ts';
import type {
  DeviceCommand,
  DeviceGateway,
  DeviceResult,
  LockStateChanged,
  Store,
} from '../../src/app/ports.ts';
import { DomainError } from '../../src/domain/errors.ts';
import type { Origin } from '../../src/domain/event.ts';
import type { Task } from '../../src/domain/task.ts';
import { ManualClock } from '../support/manual-clock.ts';

const ORIGIN: Origin = {
  actor: { kind: 'api_key', accountId: 'acc', keyPrefix: 'lck_test' },
  method: 'api_v3',
};

class ScriptedGateway implements DeviceGateway {
  readonly calls: { command: DeviceCommand; answer: (r: DeviceResult) => void; fail: (e: Error) => void }[] =
    [];
  execute(command: DeviceCommand): Promise<DeviceResult> {
    return new Promise((answer, fail) => this.calls.push({ command, answer, fail }));
  }
  listen(): void {}
  configure(): void {}
  async close(): Promise<void> {}
}

const settle = () => new Promise((r) => setImmediate(r));

/** A real SQLite store with one account owning one lock, and Commands built over it on demand. */
async function fixture() {
  const dir = mkdtempSync(join(tmpdir(), 'lockcloud-unit-'));
  const store = await openSqliteStore(dir);
  const clock = new ManualClock();
  const ended: Task[] = [];
  const changes: LockStateChanged[] = [];
  const events = new LocalEventBus((e) => {
    throw e;
  });
  events.onTaskEnded((t) => ended.push(t));
  events.onLockStateChanged((c) => changes.push(c));
  await store.accounts.insert({
    id: 'acc',
    email: 'a@example.com',
    passwordHash: null,
    verified: true,
    deletedAt: null,
    passwordChangedAt: null,
    createdAt: 0,
  });
  await store.locks.insert({
    deviceId: 'dev',
    serial: 'S',
    nickname: 'N',
    ownerId: 'acc',
    locked: true,
    battery: 80,
    responsive: true,
    integration: true,
    accessPoint: true,
    appOpen: false,
    accessPointId: 'ap-1',
    createdAt: 0,
  });
  let n = 0;
  const build = (gateway: DeviceGateway) =>
    new Commands({
      tasks: store.tasks,
      locks: new LockQueries(store.locks),
      reports: new DeviceReports(store.locks, events, clock),
      gateway,
      clock,
      random: { uuid: () => `task-${++n}`, secret: () => 'x' },
      events,
      logger: { info() {}, warn() {}, error() {} },
      policy: { commandTimeoutMs: 15_000, lowBatteryThreshold: 10 },
    });
  const cleanup = async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  };
  return { store, clock, ended, changes, build, cleanup };
}

describe('Commands (use case)', () => {
  let f: Awaited<ReturnType<typeof fixture>>;
  let store: Store;
  let clock: ManualClock;
  let gateway: ScriptedGateway;
  let commands: Commands;
  let ended: Task[];
  let changes: LockStateChanged[];

  beforeEach(async () => {
    f = await fixture();
    ({ store, clock, ended, changes } = f);
    gateway = new ScriptedGateway();
    commands = f.build(gateway);
  });
  afterEach(async () => {
    commands.stop();
    await f.cleanup();
  });

  it("hands the device the task id, its access point and deadline, and ends the task with the device's answer", async () => {
    const task = await commands.send('acc', 'dev', 'unlock', ORIGIN);
    assert.deepEqual(gateway.calls[0]?.command, {
      taskId: 'task-1',
      deviceId: 'dev',
      accessPointId: 'ap-1',
      responsive: true,
      command: 'unlock',
      deadline: task.deadline,
    });
    assert.equal(task.deadline - task.createdAt, 15_000);
    gateway.calls[0]?.answer({ ok: true, report: { locked: false } });
    await settle();
    await settle();
    const result = await commands.result('acc', task.id);
    assert.deepEqual(result.status === 'terminated' && result.outcome, { successful: true });
    assert.equal((await store.locks.get('dev'))?.locked, false);
    assert.deepEqual(
      changes.map((c) => c.locked),
      [false],
    );
    assert.deepEqual(
      ended.map((t) => t.id),
      ['task-1'],
    );
  });

  it('ends the task as TIMEOUT at the deadline; a later answer updates the lock but not the outcome', async () => {
    const task = await commands.send('acc', 'dev', 'unlock', ORIGIN);
    clock.advance(15_000);
    await settle();
    const timedOut = await commands.result('acc', task.id);
    assert.deepEqual(timedOut.status === 'terminated' && timedOut.outcome, {
      successful: false,
      error: 'TIMEOUT',
    });
    gateway.calls[0]?.answer({ ok: true, report: { locked: false } });
    await settle();
    await settle();
    const still = await commands.result('acc', task.id);
    assert.deepEqual(still.status === 'terminated' && still.outcome, { successful: false, error: 'TIMEOUT' });
    assert.equal((await store.locks.get('dev'))?.locked, false, 'the device is the truth about the lock');
    assert.equal(ended.length, 1, 'a task ends exactly once');
  });

  it("writes a marked answer's state with the task's end; a stale one only ends the task", async () => {
    const first = await commands.send('acc', 'dev', 'unlock', ORIGIN);
    gateway.calls[0]?.answer({
      ok: true,
      report: { locked: false },
      mark: { apId: 'ap-1', epoch: 'e', seq: 5 },
    });
    await settle();
    await settle();
    assert.equal((await commands.result('acc', first.id)).status, 'terminated');
    assert.deepEqual((await store.locks.readStatus('dev'))?.mark, { apId: 'ap-1', epoch: 'e', seq: 5 });
    // An answer older than the report applied last: the lock keeps what it has, the task still ends.
    const second = await commands.send('acc', 'dev', 'lock', ORIGIN);
    gateway.calls[1]?.answer({
      ok: true,
      report: { locked: true },
      mark: { apId: 'ap-1', epoch: 'e', seq: 4 },
    });
    await settle();
    await settle();
    const ended2 = await commands.result('acc', second.id);
    assert.deepEqual(ended2.status === 'terminated' && ended2.outcome, { successful: true });
    assert.equal((await store.locks.get('dev'))?.locked, false);
    assert.deepEqual(
      ended.map((t) => t.id),
      [first.id, second.id],
    );
    assert.deepEqual(
      changes.map((c) => c.locked),
      [false],
    );
  });

  it('drops the state an access point the lock is not paired with answers, and still ends the task', async () => {
    const task = await commands.send('acc', 'dev', 'unlock', ORIGIN);
    gateway.calls[0]?.answer({
      ok: true,
      report: { locked: false },
      mark: { apId: 'ap-2', epoch: 'e', seq: 1 },
    });
    await settle();
    await settle();
    const result = await commands.result('acc', task.id);
    assert.deepEqual(result.status === 'terminated' && result.outcome, { successful: true });
    assert.equal((await store.locks.get('dev'))?.locked, true);
    assert.equal((await store.locks.readStatus('dev'))?.mark, null);
    assert.deepEqual(changes, []);
  });

  it('ends the task as INTERNAL_ERROR when the gateway itself fails', async () => {
    const task = await commands.send('acc', 'dev', 'lock', ORIGIN);
    gateway.calls[0]?.fail(new Error('link down'));
    await settle();
    await settle();
    const result = await commands.result('acc', task.id);
    assert.deepEqual(result.status === 'terminated' && result.outcome, {
      successful: false,
      error: 'INTERNAL_ERROR',
    });
  });

  it('ends an overdue task when it is read, even if no timer fired (a timer lost with a process)', async () => {
    const task = await commands.send('acc', 'dev', 'lock', ORIGIN);
    commands.stop(); // the timers are gone, as after a crash of the process that owned them
    clock.advance(20_000);
    const result = await commands.result('acc', task.id);
    assert.deepEqual(result.status === 'terminated' && result.outcome, {
      successful: false,
      error: 'TIMEOUT',
    });
  });

  it('refuses a second command while one runs, with the whole seconds left until its deadline', async () => {
    await commands.send('acc', 'dev', 'lock', ORIGIN);
    clock.advance(4_500);
    await assert.rejects(commands.send('acc', 'dev', 'unlock', ORIGIN), (e: unknown) => {
      assert.ok(e instanceof DomainError);
      assert.equal(e.code, 'BUSY');
      assert.equal(e.details.retryAfterSeconds, 11);
      return true;
    });
  });

  it('recover() ends every task left processing as TIMEOUT', async () => {
    const task = await commands.send('acc', 'dev', 'lock', ORIGIN);
    commands.stop();
    assert.equal(await commands.recover(), 1);
    const result = await commands.result('acc', task.id);
    assert.deepEqual(result.status === 'terminated' && result.outcome, {
      successful: false,
      error: 'TIMEOUT',
    });
  });

  it('purges tasks ended more than 48 h ago, hourly', async () => {
    commands.start();
    const purges = new HourlyPurges(clock, { info() {}, warn() {}, error() {} }, [
      { what: 'ended tasks', run: (now) => commands.purge(now) },
    ]);
    purges.start();
    after(() => purges.stop());
    const task = await commands.send('acc', 'dev', 'lock', ORIGIN);
    gateway.calls[0]?.answer({ ok: true, report: { locked: true } });
    await settle();
    await settle();
    clock.advance(47 * 3600_000);
    await settle();
    assert.equal((await store.tasks.get(task.id))?.status, 'terminated');
    clock.advance(2 * 3600_000);
    await settle();
    await settle();
    assert.equal(await store.tasks.get(task.id), undefined);
    await assert.rejects(commands.result('acc', task.id), /TASK_NOT_FOUND/);
  });
});

describe('Commands (use case) with a task whose timer was lost', () => {
  it('ends an overdue running task when a new command arrives, instead of answering busy', async () => {
    const f = await fixture();
    try {
      const dead = f.build(new ScriptedGateway());
      const orphan = await dead.send('acc', 'dev', 'lock', ORIGIN);
      dead.stop(); // the process that owned the timer is gone
      f.clock.advance(16_000);
      const alive = f.build(new ScriptedGateway());
      const next = await alive.send('acc', 'dev', 'unlock', ORIGIN);
      assert.notEqual(next.id, orphan.id);
      const ended = await f.store.tasks.get(orphan.id);
      assert.deepEqual(ended?.status === 'terminated' && ended.outcome, {
        successful: false,
        error: 'TIMEOUT',
      });
      alive.stop();
    } finally {
      await f.cleanup();
    }
  });
});
