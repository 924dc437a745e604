/**
 * The read cache on a command's path: the lock's status and the task are kept as the store answered
 * its writes (RETURNING), so a command, its device's reports and the client's polls read neither
 * again (issue 25, point 2); and what is kept is what a fresh read of the file gives, whatever
 * another process, a lost compare-and-set or a failed write did.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { withReadCache } from '../../../src/adapters/stores/read-cache.ts';
import { openSqliteStore } from '../../../src/adapters/stores/sqlite/open.ts';
import type { LockStore, Store, TaskStore } from '../../../src/app/ports.ts';
import type { Task } from '../../../src/domain/task.ts';
import { elsewhere } from '../../support/elsewhere.ts';
import { aLock, aLockEvent, anAccount, aStatus } from '../../support/fixtures.ts';

const LOCK = '00000000-0000-4000-8000-0000000000f1';
const ORIGIN = {
  actor: { kind: 'api_key', accountId: 'acc-1', keyPrefix: 'lck_a' },
  method: 'api_v3',
} as const;

const processing = (id: string): Task & { status: 'processing' } => ({
  id,
  accountId: 'acc-1',
  deviceId: LOCK,
  command: 'unlock',
  status: 'processing',
  createdAt: 1_000,
  deadline: 16_000,
  origin: ORIGIN,
});

describe('withReadCache on the command path', () => {
  let dir: string;
  let raw: Store;
  let cached: Store;
  let version: number;
  /** Reads that reached the store, by method. */
  let reads: Map<string, number>;
  /** When set, the next writeStatusIf answers as a lost compare-and-set would. */
  let loseNextWrite: boolean;

  const counted = (name: string): void => {
    reads.set(name, (reads.get(name) ?? 0) + 1);
  };

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'lockcloud-cache-cmd-'));
    raw = await openSqliteStore(dir);
    await raw.accounts.insert(anAccount('acc-1', { email: 'one@example.com' }));
    await raw.locks.insert(aLock(LOCK, 'acc-1'));
    reads = new Map();
    loseNextWrite = false;
    version = 1;
    const locks: LockStore = Object.assign(Object.create(raw.locks) as LockStore, {
      readStatus: (deviceId: string) => {
        counted('readStatus');
        return raw.locks.readStatus(deviceId);
      },
      writeStatusIf: (...args: Parameters<LockStore['writeStatusIf']>) => {
        if (loseNextWrite) {
          loseNextWrite = false;
          return Promise.resolve(undefined);
        }
        return raw.locks.writeStatusIf(...args);
      },
    });
    const tasks: TaskStore = Object.assign(Object.create(raw.tasks) as TaskStore, {
      get: (id: string) => {
        counted('task');
        return raw.tasks.get(id);
      },
    });
    cached = withReadCache({ ...raw, locks, tasks }, { writesElsewhere: () => version, maxEntries: 100 });
  });

  afterEach(async () => {
    await raw.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("reads neither the lock nor the task again after a command's writes, and keeps what the file holds", async () => {
    const seen = await cached.locks.readStatus(LOCK);
    assert.ok(seen);
    const created = await cached.tasks.createProcessing(processing('t1'));
    assert.ok(created.created);
    assert.deepEqual(await cached.tasks.get('t1'), await raw.tasks.get('t1'));
    // The acknowledgement: the status (a battery trend the store keeps in tenths) and the task's end.
    const next = { ...aStatus({ locked: false, battery: 77, responsive: true, appOpen: false }) };
    const answered = await cached.locks.writeStatusIfAndEnd(
      LOCK,
      seen.version,
      { ...next, batteryPerDay: 1.234, batteryRef: { level: 77, at: 2_000 } },
      { apId: 'ap-1', epoch: 'e1', seq: 4 },
      [],
      { taskId: 't1', outcome: { successful: true }, at: 2_000 },
    );
    assert.ok(answered.written);
    // The report after it: only the mark moves.
    const again = await cached.locks.readStatus(LOCK);
    assert.ok(again);
    assert.ok(
      await cached.locks.writeStatusIf(LOCK, again.version, again.lock, {
        apId: 'ap-1',
        epoch: 'e1',
        seq: 5,
      }),
    );
    // The client's polls and the next command's read of the lock.
    const polled = await cached.tasks.get('t1');
    const lock = await cached.locks.get(LOCK);
    assert.deepEqual(Object.fromEntries(reads), { readStatus: 1 }, 'one read of the lock, none of the task');
    assert.deepEqual(await cached.locks.readStatus(LOCK), await raw.locks.readStatus(LOCK));
    assert.equal((await raw.locks.readStatus(LOCK))?.lock.batteryPerDay, 1.2);
    assert.deepEqual(lock, (await raw.locks.readStatus(LOCK))?.lock);
    assert.deepEqual(polled, await raw.tasks.get('t1'));
    assert.equal(polled?.status, 'terminated');
  });

  it('keeps the task each way it ends: by itself, overdue, with its access point, at start-up', async () => {
    await cached.tasks.createProcessing(processing('t1'));
    await cached.tasks.terminate('t1', { successful: false, error: 'JAMMED' }, 3_000);
    assert.deepEqual(await cached.tasks.get('t1'), await raw.tasks.get('t1'));
    await cached.tasks.createProcessing({ ...processing('t2'), deadline: 4_000 });
    await cached.tasks.terminateOverdue(5_000, 'TIMEOUT');
    assert.equal((await cached.tasks.get('t2'))?.status, 'terminated');
    await cached.tasks.createProcessing(processing('t3'));
    await cached.tasks.terminateProcessingOf([LOCK], 6_000, 'DEVICE_UNREACHABLE');
    await cached.tasks.createProcessing(processing('t4'));
    await cached.tasks.terminateAllProcessing(7_000, 'TIMEOUT');
    for (const id of ['t1', 't2', 't3', 't4'])
      assert.deepEqual(await cached.tasks.get(id), await raw.tasks.get(id));
    assert.equal(reads.get('task'), undefined, 'every end was kept as written');
    // A purge forgets every kept task: the next poll asks the store, which has none.
    await cached.tasks.purgeEndedBefore(Number.MAX_SAFE_INTEGER);
    assert.equal(await cached.tasks.get('t1'), undefined);
    assert.equal(reads.get('task'), 1);
  });

  it("sees another process's end of a task at the next poll", async () => {
    await cached.tasks.createProcessing(processing('t1'));
    assert.equal((await cached.tasks.get('t1'))?.status, 'processing');
    await elsewhere(raw.tasks.terminate('t1', { successful: true }, 2_000));
    version = 2;
    assert.equal((await cached.tasks.get('t1'))?.status, 'terminated');
  });

  it('drops the lock after a lost compare-and-set, so the retry reads the store', async () => {
    const seen = await cached.locks.readStatus(LOCK);
    assert.ok(seen);
    await elsewhere(raw.locks.update(LOCK, { battery: 12 }));
    // This process has not looked yet (the same data version): its kept lock is behind.
    loseNextWrite = true;
    const next = aStatus({ locked: false, battery: 80, responsive: true, appOpen: false });
    assert.equal(await cached.locks.writeStatusIf(LOCK, seen.version, next, null), undefined);
    assert.equal((await cached.locks.readStatus(LOCK))?.lock.battery, 12);
    assert.equal(reads.get('readStatus'), 2);
  });

  it('keeps nothing of a write that failed', async () => {
    const seen = await cached.locks.readStatus(LOCK);
    assert.ok(seen);
    await cached.tasks.createProcessing(processing('t1'));
    // The end's events cannot be written (a duplicate id): the whole transaction is rolled back.
    const event = aLockEvent('acc-1', LOCK);
    await raw.events.append([event]);
    await assert.rejects(
      cached.locks.writeStatusIfAndEnd(
        LOCK,
        seen.version,
        aStatus({ locked: false, battery: 80, responsive: true, appOpen: false }),
        null,
        [event],
        { taskId: 't1', outcome: { successful: true }, at: 2_000 },
      ),
    );
    assert.deepEqual(await cached.locks.readStatus(LOCK), await raw.locks.readStatus(LOCK));
    assert.deepEqual(await cached.tasks.get('t1'), await raw.tasks.get('t1'));
    assert.equal((await cached.tasks.get('t1'))?.status, 'processing');
  });
});
