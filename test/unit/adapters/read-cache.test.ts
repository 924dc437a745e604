/**
 * The read cache in front of the SQLite store: what this process writes is seen at once, and so is
 * what another process commits to the same file (here: a second connection, as the admin CLI beside
 * a server would be), because SQLite's data_version tells the cache to drop everything.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { withReadCache } from '../../../src/adapters/stores/read-cache.ts';
import { openCachedSqliteStore, openSqliteStore } from '../../../src/adapters/stores/sqlite/open.ts';
import type { Store } from '../../../src/app/ports.ts';
import { elsewhere } from '../../support/elsewhere.ts';
import { aLock, anAccount, aStatus } from '../../support/fixtures.ts';

const LOCK = '00000000-0000-4000-8000-0000000000e1';
const OTHER_LOCK = '00000000-0000-4000-8000-0000000000e2';

/** `base` with some methods replaced; the others stay its own (a class's, on its prototype). */
function overriding<T extends object>(base: T, methods: Partial<T>): T {
  return Object.assign(Object.create(base) as T, methods);
}

describe('withReadCache', () => {
  let dir: string;
  /** Another process's connection to the same file. */
  let raw: Store;
  /** The server's: a connection of its own with the cache in front. */
  let store: Store;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'lockcloud-cache-'));
    raw = await openSqliteStore(dir);
    await raw.accounts.insert(anAccount('acc-1', { email: 'one@example.com' }));
    await raw.apiKeys.insert({ id: 'key-1', accountId: 'acc-1', hash: 'h1', prefix: 'lck_a', createdAt: 1 });
    await raw.locks.insert(aLock(LOCK, 'acc-1'));
    store = await openCachedSqliteStore(dir);
  });

  afterEach(async () => {
    await store.close();
    await raw.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("sees another process's change to a credential at the next read", async () => {
    assert.equal((await store.apiKeys.findByHash('h1'))?.account.deletedAt, null);
    // The admin CLI deletes the account: the running server's next request answers 401.
    await elsewhere(raw.accounts.update('acc-1', { deletedAt: 5 }));
    assert.equal((await store.apiKeys.findByHash('h1'))?.account.deletedAt, 5);
    await elsewhere(raw.apiKeys.remove('acc-1', 'key-1'));
    assert.equal(await store.apiKeys.findByHash('h1'), undefined);
  });

  it('sees its own changes at once', async () => {
    assert.equal((await store.apiKeys.findByHash('h1'))?.account.deletedAt, null);
    await store.accounts.update('acc-1', { deletedAt: 5 });
    assert.equal((await store.apiKeys.findByHash('h1'))?.account.deletedAt, 5);
    assert.ok(await store.apiKeys.remove('acc-1', 'key-1'));
    assert.equal(await store.apiKeys.findByHash('h1'), undefined);
  });

  it('answers from memory while nobody else writes', async () => {
    let reads = 0;
    const counting: Store = {
      ...raw,
      apiKeys: {
        ...raw.apiKeys,
        findByHash: (hash) => {
          reads += 1;
          return raw.apiKeys.findByHash(hash);
        },
      },
    };
    let version = 1;
    const cached = withReadCache(counting, { writesElsewhere: () => version, maxEntries: 10 });
    for (let i = 0; i < 5; i += 1) {
      assert.equal((await cached.apiKeys.findByHash('h1'))?.key.id, 'key-1');
      await elsewhere(Promise.resolve());
    }
    assert.equal(reads, 1);
    version = 2;
    await elsewhere(Promise.resolve());
    await cached.apiKeys.findByHash('h1');
    assert.equal(reads, 2, 'a write elsewhere sends the next read to the store');
  });

  it('asks SQLite once per callback, however many reads it makes', async () => {
    let asked = 0;
    const cached = withReadCache(raw, {
      writesElsewhere: () => {
        asked += 1;
        return 1;
      },
      maxEntries: 10,
    });
    await elsewhere(Promise.resolve());
    asked = 0;
    await Promise.all([
      cached.apiKeys.findByHash('h1'),
      cached.locks.get(LOCK),
      cached.tokens.findByHash('t'),
    ]);
    assert.equal(asked, 1);
    await elsewhere(Promise.resolve());
    await cached.locks.get(LOCK);
    assert.equal(asked, 2);
  });

  it('keeps what touch wrote, so last-used is written once a minute, not on every request', async () => {
    await store.apiKeys.findByHash('h1');
    await store.apiKeys.touch('key-1', 777);
    assert.equal((await store.apiKeys.findByHash('h1'))?.key.lastUsedAt, 777);
    assert.equal((await raw.apiKeys.findByHash('h1'))?.key.lastUsedAt, 777);
  });

  it('never keeps an unknown key: a key made by another process works at once', async () => {
    assert.equal(await store.apiKeys.findByHash('h2'), undefined);
    await elsewhere(
      raw.apiKeys.insert({ id: 'key-2', accountId: 'acc-1', hash: 'h2', prefix: 'lck_b', createdAt: 2 }),
    );
    assert.equal((await store.apiKeys.findByHash('h2'))?.key.id, 'key-2');
  });

  it("serves a lock fresh after this process's status writes and another process's", async () => {
    assert.equal((await store.locks.get(LOCK))?.locked, true);
    const read = await store.locks.readStatus(LOCK);
    assert.ok(read);
    const next = aStatus({ locked: false, battery: 80, responsive: true, appOpen: false });
    assert.ok(await store.locks.writeStatusIf(LOCK, read.version, next, null));
    assert.equal((await store.locks.get(LOCK))?.locked, false);
    await store.locks.update(LOCK, { nickname: 'Front door' });
    assert.equal((await store.locks.get(LOCK))?.nickname, 'Front door');
    await elsewhere(raw.locks.update(LOCK, { battery: 5 }));
    assert.equal((await store.locks.get(LOCK))?.battery, 5);
  });

  it("keeps an account's lock lists until a lock is written, and hands out copies", async () => {
    let reads = 0;
    const counting: Store = {
      ...raw,
      locks: overriding(raw.locks, {
        listOwnedBy: (accountId) => {
          reads += 1;
          return raw.locks.listOwnedBy(accountId);
        },
      }),
    };
    const cached = withReadCache(counting, { writesElsewhere: () => 1, maxEntries: 10 });
    const first = await cached.locks.listOwnedBy('acc-1');
    first.pop(); // a caller's own copy: the cache's list is not changed by it
    assert.deepEqual(
      (await cached.locks.listOwnedBy('acc-1')).map((l) => l.deviceId),
      [LOCK],
    );
    assert.equal(reads, 1);
    const read = await cached.locks.readStatus(LOCK);
    assert.ok(read);
    const next = aStatus({ locked: false, battery: 80, responsive: true, appOpen: false });
    assert.ok(await cached.locks.writeStatusIf(LOCK, read.version, next, null));
    assert.equal((await cached.locks.listOwnedBy('acc-1'))[0]?.locked, false);
    assert.equal(reads, 2);
    await cached.locks.insert(aLock(OTHER_LOCK, 'acc-1'));
    assert.equal((await cached.locks.listOwnedBy('acc-1')).length, 2);
  });

  it("holds a listed lock once: the list keeps the status cache's object when it is the same lock", async () => {
    await elsewhere(raw.locks.insert(aLock(OTHER_LOCK, 'acc-1', { nickname: 'Back door' })));
    const status = await store.locks.readStatus(LOCK);
    assert.ok(status);
    await store.locks.listOwnedBy('acc-1');
    // The list as kept: the second read answers from memory.
    const [held, other] = await store.locks
      .listOwnedBy('acc-1')
      .then((locks) => [LOCK, OTHER_LOCK].map((id) => locks.find((l) => l.deviceId === id)));
    assert.equal(held, status.lock, 'the status cache and the list hold one object');
    // A lock whose status is not cached is listed from its row.
    assert.equal(other?.nickname, 'Back door');
    assert.equal((await store.locks.readStatus(LOCK))?.lock, held);
  });

  it('keeps its own object for a listed lock whose cached status differs from the row', async () => {
    const cachedStatus = await store.locks.readStatus(LOCK);
    assert.ok(cachedStatus);
    let answered: Awaited<ReturnType<Store['locks']['listOwnedBy']>> = [];
    // A store whose list answers a newer battery than the status it cached: a read in between.
    const skewed: Store = {
      ...raw,
      locks: overriding(raw.locks, {
        readStatus: async () => cachedStatus,
        listOwnedBy: async (accountId) => {
          answered = (await raw.locks.listOwnedBy(accountId)).map((l) => ({ ...l, battery: 7 }));
          return answered;
        },
      }),
    };
    const cached = withReadCache(skewed, { writesElsewhere: () => 1, maxEntries: 10 });
    await cached.locks.readStatus(LOCK);
    await cached.locks.listOwnedBy('acc-1');
    const [listed] = await cached.locks.listOwnedBy('acc-1');
    assert.equal(listed?.battery, 7);
    assert.notEqual(listed, cachedStatus.lock);
  });

  it("sees another process's new lock in the lists at the next read", async () => {
    assert.equal((await store.locks.listOwnedBy('acc-1')).length, 1);
    assert.equal((await store.locks.listVisibleTo('acc-1')).length, 1);
    await elsewhere(raw.locks.insert(aLock(OTHER_LOCK, 'acc-1')));
    assert.equal((await store.locks.listOwnedBy('acc-1')).length, 2);
    assert.equal((await store.locks.listVisibleTo('acc-1')).length, 2);
  });

  it('shows a guest the lock once its grant is accepted, and not once it is revoked', async () => {
    await raw.accounts.insert(anAccount('guest', { email: 'guest@example.com' }));
    assert.deepEqual(await store.locks.listVisibleTo('guest'), []);
    await store.grants.invite({
      id: 'grant-1',
      deviceId: LOCK,
      ownerId: 'acc-1',
      guestId: 'guest',
      role: 'operate',
      startsAt: null,
      endsAt: null,
      schedule: null,
      oneTime: false,
      createdAt: 10,
    });
    assert.deepEqual(await store.locks.listVisibleTo('guest'), []);
    assert.ok(await store.grants.updateStateIf('grant-1', 'pending', 'accepted', 11));
    assert.deepEqual(
      (await store.locks.listVisibleTo('guest')).map((l) => l.deviceId),
      [LOCK],
    );
    assert.ok(await store.grants.revoke('grant-1', 12));
    assert.deepEqual(await store.locks.listVisibleTo('guest'), []);
  });

  it('keeps nothing a read found while a write committed during it', async () => {
    // The store read is held open until the test lets it go: the write lands while it is in flight.
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let reads = 0;
    const slow: Store = {
      ...raw,
      locks: overriding(raw.locks, {
        readStatus: async (deviceId) => {
          reads += 1;
          const found = await raw.locks.readStatus(deviceId);
          if (reads === 1) await gate;
          return found;
        },
        listOwnedBy: async (accountId) => {
          reads += 1;
          const found = await raw.locks.listOwnedBy(accountId);
          if (reads === 2) await gate;
          return found;
        },
      }),
    };
    const cached = withReadCache(slow, { writesElsewhere: () => 1, maxEntries: 10 });
    const lockRead = cached.locks.get(LOCK);
    await new Promise((resolve) => setImmediate(resolve));
    const listRead = cached.locks.listOwnedBy('acc-1');
    await new Promise((resolve) => setImmediate(resolve));
    await cached.locks.update(LOCK, { nickname: 'Back door' });
    release();
    assert.equal((await lockRead)?.nickname, 'Door', 'read before the write');
    assert.equal((await listRead)[0]?.nickname, 'Door', 'read before the write');
    assert.equal((await cached.locks.get(LOCK))?.nickname, 'Back door');
    assert.equal((await cached.locks.listOwnedBy('acc-1'))[0]?.nickname, 'Back door');
    assert.equal(reads, 4, 'both reads went to the store again');
  });

  it('drops everything on a restore (the sandbox reset)', async () => {
    const snapshot = await store.snapshot();
    await store.apiKeys.remove('acc-1', 'key-1');
    await store.locks.update(LOCK, { battery: 7 });
    assert.equal(await store.apiKeys.findByHash('h1'), undefined);
    assert.equal((await store.locks.get(LOCK))?.battery, 7);
    await store.restore(snapshot);
    assert.equal((await store.apiKeys.findByHash('h1'))?.key.id, 'key-1');
    assert.equal((await store.locks.get(LOCK))?.battery, 90);
  });
});
