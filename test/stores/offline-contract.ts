/**
 * The offline debounce's store contract (issue 22, docs/events.md "lock.offline"): the locks whose
 * outage is due are listed, and each is announced once, with its event in the same transaction,
 * whichever process (or how many at once) tries; a report bringing the lock back first wins.
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { Store } from '../../src/app/ports.ts';
import { formatEventId, type LockEvent, offlineEvent } from '../../src/domain/event.ts';
import { aLock, anAccount } from '../support/fixtures.ts';
import type { SharedStoreFactory } from './freshness-contract.ts';

let counter = 0;
const offline = (deviceId: string, ms = 100_000): LockEvent => {
  counter++;
  return {
    ...offlineEvent('owner', deviceId),
    id: formatEventId(ms, counter, counter.toString(16).padStart(10, '0')),
    occurredAt: ms,
  };
};

const lost = (since: number) => ({ responsive: false, offlineSince: since, offlineAnnounced: false });

export function offlineStoreContract(
  backend: string,
  factory: SharedStoreFactory,
  /** As freshnessStoreContract's: SQLite's other connection in a test shares the thread, so they take turns. */
  { concurrentWriters = false }: { concurrentWriters?: boolean } = {},
): void {
  describe(`Offline announcements: ${backend}`, () => {
    let store: Store;
    beforeEach(async () => {
      store = await factory.open();
      await store.accounts.insert(anAccount('owner', { createdAt: 1_000 }));
      await store.locks.insert(aLock('dev-in-reach', 'owner', { createdAt: 1 }));
      await store.locks.insert(aLock('dev-lost-early', 'owner', { createdAt: 2, ...lost(1_000) }));
      await store.locks.insert(aLock('dev-lost-late', 'owner', { createdAt: 3, ...lost(50_000) }));
      await store.locks.insert(
        aLock('dev-announced', 'owner', { createdAt: 4, ...lost(500), offlineAnnounced: true }),
      );
    });
    afterEach(() => factory.cleanup(store));

    const offlineEvents = async () =>
      (await store.events.list({ readerId: 'owner', limit: 100, order: 'oldest-first' }))
        .filter((e) => e.type === 'lock.offline')
        .map((e) => e.deviceId);

    it('lists the locks out of reach since the cutoff or before, not yet announced, oldest outage first', async () => {
      const ids = async (cutoff: number) =>
        (await store.locks.listOfflineDue(cutoff, 10)).map((l) => l.deviceId);
      assert.deepEqual(await ids(999), []);
      assert.deepEqual(await ids(1_000), ['dev-lost-early']);
      assert.deepEqual(await ids(60_000), ['dev-lost-early', 'dev-lost-late']);
      assert.deepEqual(
        (await store.locks.listOfflineDue(60_000, 1)).map((l) => l.deviceId),
        ['dev-lost-early'],
        'at most the limit',
      );
      const [due] = await store.locks.listOfflineDue(1_000, 10);
      assert.equal(due?.offlineSince, 1_000);
      assert.equal(due?.ownerId, 'owner');
    });

    it('announces an outage once, with its event in the same transaction', async () => {
      assert.equal(
        await store.locks.announceOffline('dev-lost-early', 1_000, [offline('dev-lost-early')]),
        true,
      );
      assert.equal(
        await store.locks.announceOffline('dev-lost-early', 1_000, [offline('dev-lost-early')]),
        false,
      );
      assert.deepEqual(await offlineEvents(), ['dev-lost-early']);
      const lock = await store.locks.get('dev-lost-early');
      assert.deepEqual(lock && [lock.responsive, lock.offlineSince, lock.offlineAnnounced], [
        false,
        1_000,
        true,
      ]);
      assert.deepEqual(
        (await store.locks.listOfflineDue(60_000, 10)).map((l) => l.deviceId),
        ['dev-lost-late'],
      );
    });

    it('announces nothing for a lock back in reach, or lost again since', async () => {
      assert.equal(await store.locks.announceOffline('dev-in-reach', 0, [offline('dev-in-reach')]), false);
      assert.equal(
        await store.locks.announceOffline('dev-announced', 500, [offline('dev-announced')]),
        false,
      );
      assert.equal(
        await store.locks.announceOffline('dev-lost-late', 1_000, [offline('dev-lost-late')]),
        false,
      );
      assert.equal(
        await store.locks.announceOffline('no-such-lock', 1_000, [offline('no-such-lock')]),
        false,
      );
      assert.deepEqual(await offlineEvents(), []);
    });

    it('makes a report read before the announcement read again (its compare-and-set loses)', async () => {
      const read = await store.locks.readStatus('dev-lost-early');
      assert.ok(read);
      assert.equal(
        await store.locks.announceOffline('dev-lost-early', 1_000, [offline('dev-lost-early')]),
        true,
      );
      const back = { ...read.lock, responsive: true, offlineSince: null, offlineAnnounced: false };
      assert.equal(await store.locks.writeStatusIf('dev-lost-early', read.version, back, null), undefined);
      const again = await store.locks.readStatus('dev-lost-early');
      assert.equal(again?.lock.offlineAnnounced, true, 'the report now sees the outage announced');
    });

    it('loses to a report that brought the lock back first', async () => {
      const read = await store.locks.readStatus('dev-lost-early');
      assert.ok(read);
      const back = { ...read.lock, responsive: true, offlineSince: null, offlineAnnounced: false };
      assert.ok(await store.locks.writeStatusIf('dev-lost-early', read.version, back, null));
      assert.equal(
        await store.locks.announceOffline('dev-lost-early', 1_000, [offline('dev-lost-early')]),
        false,
      );
      assert.deepEqual(await offlineEvents(), []);
    });

    it('writes neither the mark nor the event when the event cannot be written', async () => {
      const event = offline('dev-lost-early');
      await store.events.append([event]);
      await assert.rejects(store.locks.announceOffline('dev-lost-early', 1_000, [event]));
      assert.equal((await store.locks.get('dev-lost-early'))?.offlineAnnounced, false);
    });

    it('announces once when two processes try', async () => {
      const other = await factory.another(store);
      try {
        const tries = [store, other].map(
          (s) => () => s.locks.announceOffline('dev-lost-early', 1_000, [offline('dev-lost-early')]),
        );
        const results = concurrentWriters
          ? await Promise.all(tries.map((t) => t()))
          : [await tries[0]?.(), await tries[1]?.()];
        assert.deepEqual(results.filter(Boolean).length, 1, JSON.stringify(results));
        assert.deepEqual(await offlineEvents(), ['dev-lost-early']);
      } finally {
        await other.close();
      }
    });
  });
}
