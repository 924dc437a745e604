/**
 * The Store contract for Idempotency-Keys (issue 21, point 5): a key's record is made with its task
 * in one transaction (TaskStore.createProcessing), one per account and key, by exactly one caller
 * even when several processes (connections of their own) make it at once; never without its task,
 * never left behind by a refused one; replaced once expired, purged. Each backend's test file calls
 * it beside storeContract().
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { IdempotencyClaim, Store } from '../../src/app/ports.ts';
import type { Task } from '../../src/domain/task.ts';
import type { SharedStoreFactory } from './freshness-contract.ts';

const DAY = 24 * 60 * 60 * 1000;

const claim = (overrides: Partial<IdempotencyClaim> = {}): IdempotencyClaim => ({
  accountId: 'acc-1',
  keyHash: 'hash-of-key-1',
  fingerprint: '["v3 POST /lock","dev-a","unlock"]',
  createdAt: 5_000,
  expiresAt: 5_000 + DAY,
  ...overrides,
});

const processing = (id: string, deviceId: string, accountId = 'acc-1'): Task & { status: 'processing' } => ({
  id,
  accountId,
  deviceId,
  command: 'unlock',
  status: 'processing',
  createdAt: 5_000,
  deadline: 20_000,
});

/**
 * `acrossConnections`: the race runs over connections of their own (PostgreSQL, where server
 * processes share the database). On SQLite one process has one connection (a second one in the same
 * process would wait for the first's lock synchronously, blocking the event loop the first needs to
 * commit): its race runs over one connection, and another connection only reads what was made.
 */
export function idempotencyStoreContract(
  backend: string,
  factory: SharedStoreFactory,
  { acrossConnections }: { acrossConnections: boolean },
): void {
  describe(`Store contract, Idempotency-Keys: ${backend}`, () => {
    let store: Store;
    beforeEach(async () => {
      store = await factory.open();
    });
    afterEach(() => factory.cleanup(store));

    it('makes the key with its task; the same key again makes nothing', async () => {
      assert.deepEqual(await store.tasks.createProcessing(processing('t1', 'dev-a'), { key: claim() }), {
        created: true,
        task: processing('t1', 'dev-a'),
      });
      assert.deepEqual(await store.idempotencyKeys.get('acc-1', 'hash-of-key-1'), {
        ...claim(),
        taskId: 't1',
      });
      assert.equal((await store.tasks.get('t1'))?.status, 'processing');
      // Another lock, another fingerprint: the key is taken whatever the request; nothing is made.
      assert.deepEqual(
        await store.tasks.createProcessing(processing('t2', 'dev-b'), {
          key: claim({ fingerprint: 'other' }),
        }),
        { created: false, keyTaken: true },
      );
      assert.equal(await store.tasks.get('t2'), undefined);
      assert.equal((await store.idempotencyKeys.get('acc-1', 'hash-of-key-1'))?.taskId, 't1');
      assert.equal(await store.idempotencyKeys.get('acc-1', 'hash-of-another'), undefined);
    });

    it("keeps keys per account: another account's same key is its own", async () => {
      await store.tasks.createProcessing(processing('t1', 'dev-a'), { key: claim() });
      assert.deepEqual(
        await store.tasks.createProcessing(processing('t2', 'dev-b', 'acc-2'), {
          key: claim({ accountId: 'acc-2' }),
        }),
        { created: true, task: processing('t2', 'dev-b', 'acc-2') },
      );
      assert.equal((await store.idempotencyKeys.get('acc-2', 'hash-of-key-1'))?.taskId, 't2');
      assert.equal((await store.idempotencyKeys.get('acc-1', 'hash-of-key-1'))?.taskId, 't1');
    });

    it('leaves no key behind when the lock is busy: the transaction is rolled back', async () => {
      await store.tasks.createProcessing(processing('t1', 'dev-a'));
      const busy = await store.tasks.createProcessing(processing('t2', 'dev-a'), { key: claim() });
      assert.equal(busy.created, false);
      assert.equal(!busy.created && 'running' in busy && busy.running.id, 't1');
      assert.equal(await store.idempotencyKeys.get('acc-1', 'hash-of-key-1'), undefined);
      assert.equal(await store.tasks.get('t2'), undefined);
      // Once the lock is free the same key makes its task.
      await store.tasks.terminate('t1', { successful: true }, 6_000);
      assert.deepEqual(await store.tasks.createProcessing(processing('t3', 'dev-a'), { key: claim() }), {
        created: true,
        task: processing('t3', 'dev-a'),
      });
      assert.equal((await store.idempotencyKeys.get('acc-1', 'hash-of-key-1'))?.taskId, 't3');
    });

    it('replaces an expired key not yet purged; purges expired keys, keeping the rest', async () => {
      await store.tasks.createProcessing(processing('t1', 'dev-a'), { key: claim() });
      await store.tasks.terminate('t1', { successful: true }, 6_000);
      const later = claim({ createdAt: 5_000 + DAY - 1, expiresAt: 5_000 + 2 * DAY - 1 });
      assert.deepEqual(await store.tasks.createProcessing(processing('t2', 'dev-a'), { key: later }), {
        created: false,
        keyTaken: true,
      });
      const expired = claim({ createdAt: 5_000 + DAY, expiresAt: 5_000 + 2 * DAY });
      assert.deepEqual(await store.tasks.createProcessing(processing('t3', 'dev-a'), { key: expired }), {
        created: true,
        task: processing('t3', 'dev-a'),
      });
      assert.equal((await store.idempotencyKeys.get('acc-1', 'hash-of-key-1'))?.taskId, 't3');

      await store.tasks.createProcessing(processing('t4', 'dev-b'), {
        key: claim({ keyHash: 'hash-of-key-2' }),
      });
      await store.tasks.createProcessing(processing('t5', 'dev-c', 'acc-2'), {
        key: claim({ accountId: 'acc-2', expiresAt: 9_000 + DAY }),
      });
      assert.equal(await store.idempotencyKeys.purgeExpired(5_000 + DAY), 1);
      assert.equal(await store.idempotencyKeys.get('acc-1', 'hash-of-key-2'), undefined);
      assert.ok(await store.idempotencyKeys.get('acc-2', 'hash-of-key-1'));
      assert.ok(await store.idempotencyKeys.get('acc-1', 'hash-of-key-1'));
      assert.equal(await store.idempotencyKeys.purgeExpired(5_000 + DAY), 0);
      assert.ok(await store.tasks.get('t4'), 'purging a key leaves its task');
    });

    it(`lets exactly one of several callers${acrossConnections ? ' on connections of their own' : ''} make a task under a key they all use at once`, async () => {
      const others = [await factory.another(store), await factory.another(store)];
      const racers = acrossConnections ? [store, ...others, store, ...others] : Array(6).fill(store);
      try {
        for (let round = 0; round < 5; round++) {
          const keyHash = `hash-of-race-${round}`;
          // Each on a lock of its own: only the key can make them collide.
          const made = await Promise.all(
            racers.map((s: Store, i) =>
              s.tasks.createProcessing(processing(`t-${round}-${i}`, `dev-${round}-${i}`), {
                key: claim({ keyHash }),
              }),
            ),
          );
          assert.equal(made.filter((r) => r.created).length, 1, `round ${round}: one task`);
          assert.equal(made.filter((r) => !r.created && 'keyTaken' in r).length, 5);
          const seen = await Promise.all(
            [store, ...others].map((s) => s.idempotencyKeys.get('acc-1', keyHash)),
          );
          assert.equal(new Set(seen.map((r) => r?.taskId)).size, 1);
          const winner = seen[0]?.taskId ?? '';
          assert.ok(await store.tasks.get(winner), 'the key names the task that was made');
          for (let i = 0; i < 6; i++) {
            const id = `t-${round}-${i}`;
            if (id !== winner) assert.equal(await store.tasks.get(id), undefined, id);
          }
        }
      } finally {
        for (const other of others) await other.close();
      }
    });
  });
}
