/**
 * The event log's contract for a command's answer, for every SQL backend: the lock's new status, its
 * movement, the task's end and the end's event are written in one transaction, in that order, and
 * only by the one writer that ends the task.
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { EventQuery, Store } from '../../src/app/ports.ts';
import type { LockEvent } from '../../src/domain/event.ts';
import type { Task } from '../../src/domain/task.ts';
import { event, openEventWorld, processing, query } from './event-fixtures.ts';
import type { StoreFactory } from './store-contract.ts';

export function commandEventStoreContract(backend: string, factory: StoreFactory): void {
  describe(`Event log contract, a command's answer: the status and the task's end in one transaction: ${backend}`, () => {
    let store: Store;
    beforeEach(async () => {
      store = await openEventWorld(factory);
    });
    afterEach(() => factory.cleanup(store));

    const ids = async (q: EventQuery): Promise<string[]> => (await store.events.list(q)).map((e) => e.id);

    const succeeded =
      (made: LockEvent[]) =>
      (ended: Task): LockEvent[] => {
        const e = event('command.succeeded', ended.accountId, ended.deviceId, 10_000, { taskId: ended.id });
        made.push(e);
        return [e];
      };

    it('writes the status, the movement, the end and its event together, in that order', async () => {
      await store.tasks.createProcessing(processing('t1', 'dev-a'));
      const read = await store.locks.readStatus('dev-a');
      assert.ok(read);
      assert.equal((await store.locks.get('dev-a'))?.locked, true, 'read before: a cache holds it');
      const start = await store.events.head();
      const moved = event('lock.unlocked', 'owner', 'dev-a', 10_000, { taskId: 't1' });
      const made: LockEvent[] = [];
      const mark = { apId: 'ap-1', epoch: 'e', seq: 7 };
      const written = await store.locks.writeStatusIfAndEnd(
        'dev-a',
        read.version,
        { ...read.lock, locked: false },
        mark,
        [moved],
        { taskId: 't1', outcome: { successful: true }, at: 9_000, events: succeeded(made) },
      );
      assert.ok(written.written);
      assert.equal(written.ended?.id, 't1');
      assert.equal(written.ended?.status, 'terminated');
      assert.deepEqual(await store.tasks.get('t1'), written.ended);
      assert.deepEqual(
        written.ended?.status === 'terminated' && [written.ended.outcome, written.ended.endedAt],
        [{ successful: true }, 9_000],
      );
      assert.equal((await store.locks.get('dev-a'))?.locked, false);
      const after = await store.locks.readStatus('dev-a');
      assert.deepEqual(after?.mark, mark);
      assert.equal(after?.version, read.version + 1);
      assert.deepEqual(
        (await store.events.since(start, 10)).map((r) => [r.seq, r.event.id]),
        [
          [start + 1, moved.id],
          [start + 2, made[0]?.id],
        ],
      );
      assert.equal(await store.tasks.processingOn('dev-a'), undefined, 'the lock takes a new command');
    });

    it('writes nothing when the compare-and-set loses: the task keeps running', async () => {
      await store.tasks.createProcessing(processing('t1', 'dev-a'));
      const read = await store.locks.readStatus('dev-a');
      assert.ok(read);
      // Another report came first.
      assert.ok(await store.locks.writeStatusIf('dev-a', read.version, { ...read.lock, battery: 50 }, null));
      const start = await store.events.head();
      const made: LockEvent[] = [];
      const written = await store.locks.writeStatusIfAndEnd(
        'dev-a',
        read.version,
        { ...read.lock, locked: false },
        null,
        [event('lock.unlocked', 'owner', 'dev-a')],
        { taskId: 't1', outcome: { successful: true }, at: 9_000, events: succeeded(made) },
      );
      assert.deepEqual(written, { written: false });
      assert.equal((await store.tasks.get('t1'))?.status, 'processing');
      assert.equal((await store.locks.get('dev-a'))?.locked, true);
      assert.equal(await store.events.head(), start);
      assert.deepEqual(made, [], "no end, no end's events");
    });

    it('writes the status but not a second end when the task had ended (its deadline)', async () => {
      await store.tasks.createProcessing(processing('t1', 'dev-a'));
      const timedOut = await store.tasks.terminate('t1', { successful: false, error: 'TIMEOUT' }, 8_000);
      assert.equal(timedOut?.status, 'terminated');
      const read = await store.locks.readStatus('dev-a');
      assert.ok(read);
      const moved = event('lock.unlocked', 'owner', 'dev-a', 10_000, { taskId: 't1' });
      const made: LockEvent[] = [];
      const written = await store.locks.writeStatusIfAndEnd(
        'dev-a',
        read.version,
        { ...read.lock, locked: false },
        null,
        [moved],
        { taskId: 't1', outcome: { successful: true }, at: 9_000, events: succeeded(made) },
      );
      assert.deepEqual(written, {
        written: true,
        status: await store.locks.readStatus('dev-a'),
        ended: undefined,
      });
      assert.deepEqual(await store.tasks.get('t1'), timedOut, 'the first end stands');
      assert.equal((await store.locks.get('dev-a'))?.locked, false, 'the device is the truth');
      assert.deepEqual(made, []);
      assert.deepEqual(await ids(query('owner', { deviceId: 'dev-a' })), [moved.id]);
    });

    it('leaves the status and the task as they were when the events cannot be written', async () => {
      await store.tasks.createProcessing(processing('t1', 'dev-a'));
      const first = event('lock.unlocked', 'owner', 'dev-a');
      await store.events.append([first]);
      const read = await store.locks.readStatus('dev-a');
      assert.ok(read);
      const start = await store.events.head();
      await assert.rejects(
        store.locks.writeStatusIfAndEnd('dev-a', read.version, { ...read.lock, locked: false }, null, [], {
          taskId: 't1',
          outcome: { successful: true },
          at: 9_000,
          // The same id again: the insert fails, and the status write and the end with it.
          events: () => [first],
        }),
      );
      assert.equal((await store.locks.get('dev-a'))?.locked, true);
      assert.equal((await store.locks.readStatus('dev-a'))?.version, read.version);
      assert.equal((await store.tasks.get('t1'))?.status, 'processing');
      assert.equal(await store.events.head(), start);
    });

    it('ends the task once when a deadline ends it at the same time', async () => {
      for (let round = 0; round < 5; round++) {
        const id = `t-race-${round}`;
        await store.tasks.createProcessing(processing(id, 'dev-b'));
        const read = await store.locks.readStatus('dev-b');
        assert.ok(read);
        const made: LockEvent[] = [];
        const [answered, timedOut] = await Promise.all([
          store.locks.writeStatusIfAndEnd(
            'dev-b',
            read.version,
            { ...read.lock, locked: !read.lock.locked },
            null,
            [],
            { taskId: id, outcome: { successful: true }, at: 9_000, events: succeeded(made) },
          ),
          store.tasks.terminate(id, { successful: false, error: 'TIMEOUT' }, 9_000, succeeded(made)),
        ]);
        assert.ok(answered.written, 'nothing else wrote the status');
        assert.equal(
          [answered.ended, timedOut].filter((t) => t !== undefined).length,
          1,
          'exactly one of them ended it',
        );
        assert.equal(made.length, 1, 'and wrote its end once');
        assert.deepEqual(
          (await store.events.list(query('owner', { deviceId: 'dev-b' }))).filter((e) => e.taskId === id)
            .length,
          1,
        );
      }
    });
  });
}
