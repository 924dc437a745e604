/**
 * Commands with an Idempotency-Key (issue 21, point 5) against a real SQLite store, a clock that
 * moves only when told and a device gateway that counts what reaches the lock: the cases HTTP cannot
 * time (a first request held before its task is made while others come, a store that fails after
 * the task and its key were committed).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { openSqliteStore } from '../../../src/adapters/stores/sqlite/open.ts';
import { sha256Hasher } from '../../../src/adapters/system/crypto.ts';
import { LocalEventBus } from '../../../src/adapters/system/event-bus.ts';
import type { CommandBudget } from '../../../src/app/command-budget.ts';
import { Commands } from '../../../src/app/commands.ts';
import { DeviceReports } from '../../../src/app/device-reports.ts';
import { IdempotentCommands } from '../../../src/app/idempotent-commands.ts';
import { LockQueries } from '../../../src/app/locks.ts';
import type { DeviceCommand, DeviceGateway, DeviceResult, Store, TaskStore } from '../../../src/app/ports.ts';
import { DomainError } from '../../../src/domain/errors.ts';
import type { Origin } from '../../../src/domain/event.ts';
import { IDEMPOTENCY_KEY_TTL_MS } from '../../../src/domain/idempotency.ts';
import { ManualClock } from '../../support/manual-clock.ts';

class CountingGateway implements DeviceGateway {
  readonly calls: DeviceCommand[] = [];
  execute(command: DeviceCommand): Promise<DeviceResult> {
    this.calls.push(command);
    return new Promise(() => {}); // the lock never answers: the task stays processing
  }
  listen(): void {}
  configure(): void {}
  async close(): Promise<void> {}
}

const V3 = { key: 'key-1', endpoint: 'v3 POST /lock' };
/** Who sends every command here: an API key over v3 (what the event log records). */
const BY_KEY: Origin = {
  actor: { kind: 'api_key', accountId: 'acc', keyPrefix: 'lck_test' },
  method: 'api_v3',
};
const logger = { info() {}, warn() {}, error() {} };
const lock = (deviceId: string, battery = 80) => ({
  deviceId,
  serial: 'S',
  nickname: 'N',
  ownerId: 'acc',
  locked: true,
  battery,
  responsive: true,
  integration: true,
  accessPoint: true,
  appOpen: false,
  accessPointId: 'ap-1',
  createdAt: 0,
});
const account = (id: string, email: string) => ({
  id,
  email,
  passwordHash: null,
  verified: true,
  deletedAt: null,
  passwordChangedAt: null,
  createdAt: 0,
});

/** The store's tasks with createProcessing replaced. */
function wrapTasks(tasks: TaskStore, createProcessing: TaskStore['createProcessing']): TaskStore {
  return {
    createProcessing,
    get: (id) => tasks.get(id),
    processingOn: (deviceId) => tasks.processingOn(deviceId),
    terminate: (...a) => tasks.terminate(...a),
    terminateOverdue: (...a) => tasks.terminateOverdue(...a),
    terminateProcessingOf: (...a) => tasks.terminateProcessingOf(...a),
    terminateAllProcessing: (...a) => tasks.terminateAllProcessing(...a),
    purgeEndedBefore: (c) => tasks.purgeEndedBefore(c),
  };
}

async function rejectsWith(promise: Promise<unknown>, code: string): Promise<DomainError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof DomainError, String(error));
    assert.equal(error.code, code);
    return error;
  }
  assert.fail(`expected ${code}`);
}

describe('IdempotentCommands (use case)', () => {
  let dir: string;
  let store: Store;
  let clock: ManualClock;
  let gateway: CountingGateway;
  let commands: Commands;
  let n: number;
  /** Builds the use case over `tasks` (the store's own, or one wrapped by a test). */
  let build: (tasks?: TaskStore, budget?: CommandBudget) => IdempotentCommands;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'lockcloud-unit-'));
    store = await openSqliteStore(dir);
    clock = new ManualClock();
    gateway = new CountingGateway();
    n = 0;
    await store.accounts.insert(account('acc', 'a@example.com'));
    await store.accounts.insert(account('other', 'b@example.com'));
    await store.locks.insert(lock('dev'));
    await store.locks.insert(lock('dev-2'));
    await store.locks.insert({ ...lock('dev-other'), ownerId: 'other' });
    const events = new LocalEventBus((e) => {
      throw e;
    });
    const random = { uuid: () => `task-${++n}`, secret: () => 'x' };
    build = (tasks = store.tasks, budget = undefined) => {
      commands = new Commands({
        tasks,
        budget,
        locks: new LockQueries(store.locks),
        reports: new DeviceReports(store.locks, events, clock),
        gateway,
        clock,
        random,
        events,
        logger,
        policy: { commandTimeoutMs: 15_000, lowBatteryThreshold: 10 },
      });
      return new IdempotentCommands({ keys: store.idempotencyKeys, commands, clock, hasher: sha256Hasher });
    };
  });
  afterEach(async () => {
    commands.stop();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('makes one task per key: the same request again answers its id and reaches no lock', async () => {
    const idem = build();
    const first = await idem.send('acc', 'dev', 'unlock', BY_KEY, V3);
    assert.equal(await idem.send('acc', 'dev', 'unlock', BY_KEY, V3), first);
    assert.equal(await idem.send('acc', 'dev', 'unlock', BY_KEY, V3), first);
    assert.equal(gateway.calls.length, 1);
    assert.equal(gateway.calls[0]?.taskId, first);
    assert.equal((await store.tasks.get(first))?.status, 'processing');
    const record = await store.idempotencyKeys.get('acc', sha256Hasher.hash('key-1'));
    assert.equal(record?.taskId, first);
    assert.equal(
      await store.idempotencyKeys.get('acc', 'key-1'),
      undefined,
      'the key is kept only as its hash',
    );
  });

  it('answers every concurrent request with one key the one task, the first held before its insert', async () => {
    // The first request is held just before its task and key are written: the others come meanwhile.
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let calls = 0;
    const tasks = wrapTasks(store.tasks, async (task, made) => {
      if (calls++ === 0) await held;
      return store.tasks.createProcessing(task, made);
    });
    const idem = build(tasks);
    const first = idem.send('acc', 'dev', 'unlock', BY_KEY, V3);
    const others = Array.from({ length: 4 }, () => idem.send('acc', 'dev', 'unlock', BY_KEY, V3));
    const answered = await Promise.all(others);
    assert.equal(new Set(answered).size, 1);
    release();
    const ids = [await first, ...answered];
    assert.equal(new Set(ids).size, 1, `one task id for all: ${ids.join(', ')}`);
    assert.equal(gateway.calls.length, 1, 'exactly one command reached the lock');
    assert.equal(
      (await store.idempotencyKeys.get('acc', sha256Hasher.hash('key-1')))?.taskId,
      ids[0],
      'the key names the one task',
    );
  });

  it('answers the task of a same-key request made meanwhile, not its own refusal (budget spent)', async () => {
    // The first request is held before its insert; the second is refused by the lock's budget just
    // as the first commits: the first's task is the answer to both.
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let committed: Promise<unknown> = Promise.resolve();
    let calls = 0;
    const tasks = wrapTasks(store.tasks, (task, key) => {
      const made = (async () => {
        if (calls++ === 0) await held;
        return store.tasks.createProcessing(task, key);
      })();
      committed = made;
      return made;
    });
    let spent = 0;
    const budget = {
      async spend() {
        if (spent++ === 0) return;
        release();
        await committed;
        throw new DomainError('TOO_MANY_COMMANDS', 'the lock budget is spent', { retryAfterSeconds: 1 });
      },
    } as unknown as CommandBudget;
    const idem = build(tasks, budget);
    const [a, b] = await Promise.all([
      idem.send('acc', 'dev', 'unlock', BY_KEY, V3),
      idem.send('acc', 'dev', 'unlock', BY_KEY, V3),
    ]);
    assert.equal(a, b);
    assert.equal(gateway.calls.length, 1);
    // Without a request with the key behind it, the refusal is the answer.
    await rejectsWith(
      idem.send('acc', 'dev-2', 'unlock', BY_KEY, { key: 'key-2', endpoint: V3.endpoint }),
      'TOO_MANY_COMMANDS',
    );
  });

  it('refuses the key for another lock, command or endpoint, and sends nothing', async () => {
    const idem = build();
    await idem.send('acc', 'dev', 'unlock', BY_KEY, V3);
    await rejectsWith(idem.send('acc', 'dev', 'lock', BY_KEY, V3), 'IDEMPOTENCY_KEY_REUSED');
    await rejectsWith(idem.send('acc', 'dev-2', 'unlock', BY_KEY, V3), 'IDEMPOTENCY_KEY_REUSED');
    await rejectsWith(
      idem.send('acc', 'dev', 'unlock', BY_KEY, { key: 'key-1', endpoint: 'v3 POST /partners/automation' }),
      'IDEMPOTENCY_KEY_REUSED',
    );
    assert.equal(gateway.calls.length, 1);
  });

  it("scopes keys per account: another account's same key is its own", async () => {
    const idem = build();
    const mine = await idem.send('acc', 'dev', 'unlock', BY_KEY, V3);
    // Not even the same request is shared: another account cannot learn my task id through my key.
    await rejectsWith(idem.send('other', 'dev', 'unlock', BY_KEY, V3), 'LOCK_NOT_FOUND');
    const theirs = await idem.send('other', 'dev-other', 'lock', BY_KEY, V3);
    assert.notEqual(mine, theirs);
    assert.equal(gateway.calls.length, 2);
  });

  it('forgets a first request that was refused before it made a task, so a retry can succeed', async () => {
    const idem = build();
    // Busy: another command runs on the lock.
    const running = await commands.send('acc', 'dev', 'sync', BY_KEY);
    await rejectsWith(idem.send('acc', 'dev', 'unlock', BY_KEY, V3), 'BUSY');
    assert.equal(await store.idempotencyKeys.get('acc', sha256Hasher.hash('key-1')), undefined);
    await store.tasks.terminate(running.id, { successful: true }, clock.now());
    const retried = await idem.send('acc', 'dev', 'unlock', BY_KEY, V3);
    assert.equal((await store.tasks.get(retried))?.command, 'unlock');

    // Low battery, then the batteries replaced.
    await store.locks.insert(lock('dev-low', 5));
    const low = { key: 'key-low', endpoint: V3.endpoint };
    await rejectsWith(idem.send('acc', 'dev-low', 'unlock', BY_KEY, low), 'LOW_BATTERY');
    await store.locks.update('dev-low', { battery: 90 });
    assert.ok(await idem.send('acc', 'dev-low', 'unlock', BY_KEY, low));

    // An unknown lock: the key is free again, for this request or another one.
    const unknown = { key: 'key-unknown', endpoint: V3.endpoint };
    await rejectsWith(idem.send('acc', 'no-such-lock', 'unlock', BY_KEY, unknown), 'LOCK_NOT_FOUND');
    assert.ok(await idem.send('acc', 'dev-2', 'unlock', BY_KEY, unknown));
  });

  it('answers the task of a request that failed after its task and key were committed', async () => {
    const failing = wrapTasks(store.tasks, async (task, key) => {
      await store.tasks.createProcessing(task, key);
      throw new Error('connection lost after the commit');
    });
    await assert.rejects(build(failing).send('acc', 'dev', 'unlock', BY_KEY, V3), /connection lost/);
    const kept = await store.idempotencyKeys.get('acc', sha256Hasher.hash('key-1'));
    assert.ok(kept && (await store.tasks.get(kept.taskId)), 'the task was made with its key');
    const again = await build().send('acc', 'dev', 'unlock', BY_KEY, V3);
    assert.equal(again, kept?.taskId, 'the retry answers the task made, and makes no second one');
    assert.equal(gateway.calls.length, 0, 'the failed request dispatched nothing; the retry neither');
  });

  it('forgets a key after 24 h: then it makes a new task; the purge removes expired keys', async () => {
    const idem = build();
    const first = await idem.send('acc', 'dev', 'unlock', BY_KEY, V3);
    await store.tasks.terminate(first, { successful: true }, clock.now());
    clock.advance(IDEMPOTENCY_KEY_TTL_MS - 1);
    assert.equal(
      await idem.send('acc', 'dev', 'unlock', BY_KEY, V3),
      first,
      'still the same a moment before',
    );
    clock.advance(1);
    const second = await idem.send('acc', 'dev', 'unlock', BY_KEY, V3);
    assert.notEqual(second, first);
    assert.equal(gateway.calls.length, 2);
    await idem.send('acc', 'dev-2', 'lock', BY_KEY, { key: 'key-2', endpoint: V3.endpoint });
    clock.advance(IDEMPOTENCY_KEY_TTL_MS);
    assert.equal(await idem.purge(clock.now()), 2);
    assert.equal(await store.idempotencyKeys.get('acc', sha256Hasher.hash('key-1')), undefined);
  });
});
