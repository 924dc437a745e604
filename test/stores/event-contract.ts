/**
 * The event log's contract, for every SQL backend: each change writes its events in its own
 * transaction (none when the change did not happen, and no change when its events cannot be
 * written), and the log reads back as each account may see it.
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { EventQuery, Store } from '../../src/app/ports.ts';
import {
  type EventType,
  eventIdFloor,
  formatEventId,
  type LockEvent,
  oauthAppActor,
} from '../../src/domain/event.ts';
import type { Task } from '../../src/domain/task.ts';
import { event, openEventWorld, processing, query } from './event-fixtures.ts';
import type { StoreFactory } from './store-contract.ts';

export function eventStoreContract(backend: string, factory: StoreFactory): void {
  describe(`Event log contract: ${backend}`, () => {
    let store: Store;
    beforeEach(async () => {
      store = await openEventWorld(factory);
    });
    afterEach(() => factory.cleanup(store));

    const ids = async (q: EventQuery): Promise<string[]> => (await store.events.list(q)).map((e) => e.id);

    it('reads back what was written, field for field', async () => {
      const e = event('lock.unlocked', 'owner', 'dev-a', 1_767_225_600_123, {
        taskId: 'task-1',
        data: { nested: { a: [1, 'two'] } },
      });
      await store.events.append([e]);
      assert.deepEqual(await store.events.list(query('owner')), [e]);
    });

    it('reads back an OAuth app as actor: its id, its name as it was, the user; a task origin too', async () => {
      const app = oauthAppActor('app_0123456789abcdef', "Home «Helper» 'n' Co", 'owner');
      const e = event('lock.unlocked', 'owner', 'dev-a', 1_767_225_600_456, {
        actor: app,
        method: 'api_ext',
      });
      const others = event('lock.locked', 'owner', 'dev-a', 1_767_225_600_457);
      await store.events.append([e, others]);
      assert.deepEqual(await store.events.list(query('owner')), [e, others]);
      assert.deepEqual(
        (await store.events.since(0, 10)).map((r) => r.event.actor),
        [app, others.actor],
      );
      // A guest of the lock reads the kind only (redactFor, above the store): the row keeps it all.
      const task = { ...processing('t-app', 'dev-a'), origin: { actor: app, method: 'api_ext' as const } };
      await store.tasks.createProcessing(task);
      assert.deepEqual((await store.tasks.processingOn('dev-a'))?.origin, task.origin);
      assert.deepEqual((await store.tasks.get('t-app'))?.origin, task.origin);
    });

    it('reads only the events of the locks given (a key limited to them): not the account own', async () => {
      const a = event('lock.unlocked', 'owner', 'dev-a', 1_000);
      const b = event('lock.unlocked', 'owner', 'dev-b', 2_000);
      const own = event('api_key.created', 'owner', null, 3_000);
      await store.events.append([a, b, own]);
      assert.deepEqual(await ids(query('owner', { deviceIds: ['dev-a'] })), [a.id]);
      assert.deepEqual(await ids(query('owner', { deviceIds: ['dev-a', 'dev-b'] })), [a.id, b.id]);
      assert.deepEqual(await ids(query('owner')), [a.id, b.id, own.id]);
    });

    it('writes a status change and its events together, and neither when the compare-and-set loses', async () => {
      const read = await store.locks.readStatus('dev-a');
      assert.ok(read);
      const status = { ...read.lock, locked: false };
      const moved = event('lock.unlocked', 'owner', 'dev-a');
      assert.ok(await store.locks.writeStatusIf('dev-a', read.version, status, null, [moved]));
      const stale = event('lock.locked', 'owner', 'dev-a');
      assert.equal(
        await store.locks.writeStatusIf('dev-a', read.version, read.lock, null, [stale]),
        undefined,
      );
      assert.deepEqual(await ids(query('owner')), [moved.id]);
    });

    it('leaves the change undone when its events cannot be written (one transaction)', async () => {
      const first = event('lock.unlocked', 'owner', 'dev-a');
      await store.events.append([first]);
      const read = await store.locks.readStatus('dev-a');
      assert.ok(read);
      // The same id again: the insert fails, and so must the status write it goes with.
      await assert.rejects(
        store.locks.writeStatusIf('dev-a', read.version, { ...read.lock, locked: false }, null, [first]),
      );
      assert.equal((await store.locks.get('dev-a'))?.locked, true);
      await assert.rejects(store.tasks.createProcessing(processing('t-dup', 'dev-a'), { events: [first] }));
      assert.equal(await store.tasks.get('t-dup'), undefined);
      await assert.rejects(
        store.webhooks.set({ accountId: 'owner', url: 'http://a/', method: 'GET', retries: false }, [first]),
      );
      assert.equal(await store.webhooks.get('owner'), undefined);
    });

    it("records a task's request only when it was created, and its end once, from the task as ended", async () => {
      const requested = event('command.requested', 'owner', 'dev-a');
      assert.deepEqual(
        await store.tasks.createProcessing(processing('t1', 'dev-a'), { events: [requested] }),
        { created: true, task: processing('t1', 'dev-a') },
      );
      const busy = event('command.requested', 'owner', 'dev-a');
      const second = await store.tasks.createProcessing(processing('t2', 'dev-a'), { events: [busy] });
      assert.equal(second.created, false);
      const running = await store.tasks.processingOn('dev-a');
      assert.deepEqual(running?.origin, processing('t1', 'dev-a').origin, 'the origin is kept on the task');
      assert.equal(await store.tasks.processingOn('dev-b'), undefined);
      const made: string[] = [];
      const ending = (ended: Task): LockEvent[] => {
        const e = event('command.failed', ended.accountId, ended.deviceId, 10_000, { taskId: ended.id });
        made.push(e.id);
        return [e];
      };
      assert.equal(
        (await store.tasks.terminate('t1', { successful: false, error: 'JAMMED' }, 9, ending))?.id,
        't1',
      );
      assert.equal(await store.tasks.terminate('t1', { successful: true }, 10, ending), undefined);
      await store.tasks.createProcessing(processing('t3', 'dev-b'));
      assert.equal((await store.tasks.terminateOverdue(30_000, 'TIMEOUT', ending)).length, 1);
      assert.deepEqual(await store.tasks.terminateAllProcessing(30_000, 'TIMEOUT', ending), []);
      const events = await store.events.list(query('owner'));
      assert.deepEqual(
        events.map((e) => [e.type, e.taskId]),
        [
          ['command.requested', null],
          ['command.failed', 't1'],
          ['command.failed', 't3'],
        ],
      );
      assert.equal(made.length, 2);
    });

    it('records shares, keys, the webhook and the account only when they changed', async () => {
      const shared = event('share.created', 'owner', 'dev-a');
      await store.locks.share('dev-a', 'guest', [shared]);
      await store.locks.share('dev-a', 'guest', [event('share.created', 'owner', 'dev-a')]);
      const unshared = event('share.removed', 'owner', 'dev-a');
      assert.equal(await store.locks.unshare('dev-a', 'guest', [unshared]), true);
      assert.equal(
        await store.locks.unshare('dev-a', 'guest', [event('share.removed', 'owner', 'dev-a')]),
        false,
      );
      const created = event('api_key.created', 'owner', null);
      await store.apiKeys.insert(
        { id: 'k1', accountId: 'owner', hash: 'h1', prefix: 'lck_k1', createdAt: 1 },
        [created],
      );
      const deleted: { event?: LockEvent } = {};
      const onDelete = (key: { prefix: string }) => {
        deleted.event = event('api_key.deleted', 'owner', null, 10_000, { data: { key_prefix: key.prefix } });
        return [deleted.event];
      };
      assert.equal(await store.apiKeys.remove('stranger', 'k1', onDelete), false, "another account's key");
      assert.equal(deleted.event as LockEvent | undefined, undefined);
      assert.equal(await store.apiKeys.remove('owner', 'k1', onDelete), true);
      const hook = event('webhook.updated', 'owner', null);
      await store.webhooks.set({ accountId: 'owner', url: 'http://a/', method: 'GET', retries: false }, [
        hook,
      ]);
      const gone = event('webhook.removed', 'owner', null);
      assert.equal(await store.webhooks.remove('owner', [gone]), true);
      assert.equal(await store.webhooks.remove('owner', [event('webhook.removed', 'owner', null)]), false);
      const password = event('account.password_changed', 'owner', null);
      await store.accounts.update('owner', { passwordHash: 'x', passwordChangedAt: 5 }, [password]);
      assert.equal((await store.accounts.findById('owner'))?.passwordHash, 'x');
      assert.deepEqual(await ids(query('owner')), [
        shared.id,
        unshared.id,
        created.id,
        deleted.event?.id,
        hook.id,
        gone.id,
        password.id,
      ]);
      assert.deepEqual(
        (await store.events.list(query('owner', { typePrefix: 'api_key.deleted' })))[0]?.data,
        {
          key_prefix: 'lck_k1',
        },
      );
    });

    it('records an access point going online or offline only on a change', async () => {
      await store.accessPoints.insert({
        id: 'ap-1',
        accountId: 'owner',
        name: 'Hall',
        secretHash: 'h',
        createdAt: 1,
        online: false,
        lastSeenAt: null,
      });
      const made = (type: EventType) => (ap: { accountId: string; id: string }) => [
        event(type, ap.accountId, null, 10_000, { data: { access_point_id: ap.id } }),
      ];
      await store.accessPoints.setOnline('ap-1', true, 5, made('access_point.online'));
      await store.accessPoints.setOnline('ap-1', true, 6, made('access_point.online'));
      await store.accessPoints.setOnline('ap-1', false, 7, made('access_point.offline'));
      await store.accessPoints.setOnline('ap-missing', false, 7, made('access_point.offline'));
      assert.deepEqual(
        (await store.events.list(query('owner'))).map((e) => [e.type, e.data]),
        [
          ['access_point.online', { access_point_id: 'ap-1' }],
          ['access_point.offline', { access_point_id: 'ap-1' }],
        ],
      );
      assert.equal((await store.accessPoints.get('ap-1'))?.lastSeenAt, 7);
    });

    it("shows the owner its log, a guest only the shared lock's lock events, a stranger nothing", async () => {
      await store.locks.share('dev-a', 'guest');
      const movedA = event('lock.unlocked', 'owner', 'dev-a');
      const commandA = event('command.succeeded', 'owner', 'dev-a');
      const shareA = event('share.created', 'owner', 'dev-a');
      const movedB = event('lock.locked', 'owner', 'dev-b');
      const key = event('api_key.created', 'owner', null);
      const theirs = event('lock.locked', 'stranger', 'dev-s');
      await store.events.append([movedA, commandA, shareA, movedB, key, theirs]);
      assert.deepEqual(await ids(query('owner')), [movedA.id, commandA.id, shareA.id, movedB.id, key.id]);
      assert.deepEqual(await ids(query('guest')), [movedA.id, commandA.id]);
      assert.deepEqual(await ids(query('guest', { deviceId: 'dev-a' })), [movedA.id, commandA.id]);
      assert.deepEqual(await ids(query('guest', { deviceId: 'dev-b' })), []);
      assert.deepEqual(await ids(query('stranger')), [theirs.id]);
      assert.deepEqual(await ids(query('stranger', { deviceId: 'dev-a' })), []);
      // The share ends: so does the guest's view of the lock.
      await store.locks.unshare('dev-a', 'guest');
      assert.deepEqual(await ids(query('guest')), []);
    });

    it('filters by device, type prefix, after and before, and orders and limits', async () => {
      const made = [
        event('lock.unlocked', 'owner', 'dev-a', 1_000),
        event('command.failed', 'owner', 'dev-a', 2_000),
        event('lock.locked', 'owner', 'dev-b', 3_000),
        event('lock.locked', 'owner', 'dev-a', 4_000),
        event('lock.online', 'owner', 'dev-a', 5_000),
      ];
      await store.events.append(made);
      const id = (i: number) => made[i]?.id ?? '';
      assert.deepEqual(await ids(query('owner', { deviceId: 'dev-a' })), [id(0), id(1), id(3), id(4)]);
      assert.deepEqual(await ids(query('owner', { typePrefix: 'lock.' })), [id(0), id(2), id(3), id(4)]);
      assert.deepEqual(await ids(query('owner', { typePrefix: 'lock.locked' })), [id(2), id(3)]);
      assert.deepEqual(await ids(query('owner', { typePrefix: 'lock_' })), [], 'no wildcard in a prefix');
      assert.deepEqual(await ids(query('owner', { typePrefix: 'lock%' })), []);
      assert.deepEqual(await ids(query('owner', { after: id(1), before: id(4) })), [id(2), id(3)]);
      assert.deepEqual(await ids(query('owner', { order: 'newest-first', limit: 2 })), [id(4), id(3)]);
      assert.deepEqual(
        await ids(query('owner', { deviceId: 'dev-a', order: 'newest-first', before: id(3), limit: 1 })),
        [id(1)],
      );
    });

    it('forgets events that occurred before the cutoff, and only those', async () => {
      const old = event('lock.locked', 'owner', 'dev-a', 1_000);
      const edge = event('lock.locked', 'owner', 'dev-a', 2_000);
      const recent = event('lock.locked', 'owner', 'dev-a', 3_000);
      await store.events.append([old, edge, recent]);
      assert.equal(await store.events.purgeBefore(2_000), 1);
      assert.deepEqual(await ids(query('owner')), [edge.id, recent.id]);
      assert.ok(eventIdFloor(2_000) <= edge.id);
    });

    it('is copied and restored by the sandbox snapshot', async () => {
      const e = event('lock.locked', 'owner', 'dev-a');
      await store.events.append([e]);
      const snapshot = await store.snapshot();
      await store.events.purgeBefore(Number.MAX_SAFE_INTEGER);
      assert.deepEqual(await ids(query('owner')), []);
      await store.restore(snapshot);
      assert.deepEqual(await store.events.list(query('owner')), [e]);
    });

    it('gives each event a position in commit order, read back by since, positionOf and head', async () => {
      const start = await store.events.head();
      const a = event('lock.locked', 'owner', 'dev-a');
      const b = event('lock.unlocked', 'owner', 'dev-a');
      const c = event('api_key.created', 'stranger', null);
      await store.events.append([a, b]);
      await store.events.append([c]);
      assert.equal(await store.events.head(), start + 3);
      const read = await store.events.since(start, 10);
      assert.deepEqual(
        read.map((r) => [r.seq, r.event.id]),
        [
          [start + 1, a.id],
          [start + 2, b.id],
          [start + 3, c.id],
        ],
      );
      assert.deepEqual(read[0]?.event, a);
      assert.deepEqual(
        (await store.events.since(start + 1, 1)).map((r) => r.event.id),
        [b.id],
      );
      assert.equal(await store.events.positionOf(b.id), start + 2);
      assert.equal(await store.events.positionOf(formatEventId(1, 0, '0'.repeat(10))), undefined);
      assert.deepEqual(await store.events.since(start + 3, 10), []);
    });

    it('never hands out a position twice, also after a purge or a sandbox restore', async () => {
      await store.events.append([event('lock.locked', 'owner', 'dev-a')]);
      const snapshot = await store.snapshot();
      const before = await store.events.head();
      await store.events.purgeBefore(Number.MAX_SAFE_INTEGER);
      await store.restore(snapshot);
      const later = event('lock.unlocked', 'owner', 'dev-a');
      await store.events.append([later]);
      assert.equal(await store.events.positionOf(later.id), before + 1);
    });

    it('takes no position for a change that did not happen or was rolled back', async () => {
      const read = await store.locks.readStatus('dev-a');
      assert.ok(read);
      const start = await store.events.head();
      const moved = event('lock.unlocked', 'owner', 'dev-a');
      const status = { ...read.lock, locked: false };
      assert.ok(await store.locks.writeStatusIf('dev-a', read.version, status, null, [moved]));
      const stale = event('lock.locked', 'owner', 'dev-a');
      assert.equal(
        await store.locks.writeStatusIf('dev-a', read.version, read.lock, null, [stale]),
        undefined,
      );
      // The same id again fails the insert: the transaction, and the position it took, roll back.
      await assert.rejects(store.events.append([event('lock.locked', 'owner', 'dev-a'), moved]));
      assert.equal(await store.events.head(), start + 1);
      assert.equal(await store.events.positionOf(moved.id), start + 1);
    });
  });
}
