/**
 * The read cache in front of the store: what this process writes is seen at once, what another
 * process writes (here: the same SQLite file through the uncached store) within the time limit, and
 * the invalidations it announces are the ones other processes need.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { type CachedStore, type CacheScope, withReadCache } from '../../../src/adapters/stores/read-cache.ts';
import { openSqliteStore } from '../../../src/adapters/stores/sqlite/open.ts';
import type { Store } from '../../../src/app/ports.ts';

const LOCK = '00000000-0000-4000-8000-0000000000e1';
const TTL = 1000;

describe('withReadCache', () => {
  let dir: string;
  let raw: Store;
  let now: number;
  let announced: CacheScope[];
  let cache: CachedStore;
  let store: Store;

  const open = (cacheLocks: boolean): void => {
    cache = withReadCache(raw, {
      ttlMs: TTL,
      maxEntries: 100,
      cacheLocks,
      now: () => now,
      onInvalidate: (scope) => announced.push(scope),
    });
    store = cache.store;
  };

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'lockcloud-cache-'));
    raw = await openSqliteStore(dir);
    now = 0;
    announced = [];
    await raw.accounts.insert({
      id: 'acc-1',
      email: 'one@example.com',
      passwordHash: null,
      verified: true,
      deletedAt: null,
      passwordChangedAt: null,
      createdAt: 1,
    });
    await raw.apiKeys.insert({ id: 'key-1', accountId: 'acc-1', hash: 'h1', prefix: 'lck_a', createdAt: 1 });
    await raw.locks.insert({
      deviceId: LOCK,
      serial: 'S',
      nickname: 'Door',
      ownerId: 'acc-1',
      locked: true,
      battery: 90,
      responsive: true,
      integration: true,
      accessPoint: true,
      appOpen: false,
      accessPointId: null,
      createdAt: 1,
    });
    open(true);
  });

  afterEach(async () => {
    await raw.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('trusts a credential for the time limit when another process changes it, and sees its own changes at once', async () => {
    assert.equal((await store.apiKeys.findByHash('h1'))?.account.deletedAt, null);
    // Another process (the admin CLI) deletes the account: trusted until the limit, then seen.
    await raw.accounts.update('acc-1', { deletedAt: 5 });
    now = TTL - 1;
    assert.equal((await store.apiKeys.findByHash('h1'))?.account.deletedAt, null);
    now = TTL;
    assert.equal((await store.apiKeys.findByHash('h1'))?.account.deletedAt, 5);
    // Through this store: at once, and announced for the other processes.
    await store.accounts.update('acc-1', { deletedAt: null });
    assert.equal((await store.apiKeys.findByHash('h1'))?.account.deletedAt, null);
    assert.ok(await store.apiKeys.remove('acc-1', 'key-1'));
    assert.equal(await store.apiKeys.findByHash('h1'), undefined);
    assert.deepEqual(announced, ['credentials', 'credentials']);
  });

  it('keeps what touch wrote, so last-used is written once a minute, not on every request', async () => {
    await store.apiKeys.findByHash('h1');
    await store.apiKeys.touch('key-1', 777);
    assert.equal((await store.apiKeys.findByHash('h1'))?.key.lastUsedAt, 777);
    assert.equal((await raw.apiKeys.findByHash('h1'))?.key.lastUsedAt, 777);
  });

  it('never keeps an unknown key: a key made by another process works at once', async () => {
    assert.equal(await store.apiKeys.findByHash('h2'), undefined);
    await raw.apiKeys.insert({ id: 'key-2', accountId: 'acc-1', hash: 'h2', prefix: 'lck_b', createdAt: 2 });
    assert.equal((await store.apiKeys.findByHash('h2'))?.key.id, 'key-2');
  });

  it("serves a lock from memory, fresh after this process's status writes", async () => {
    assert.equal((await store.locks.get(LOCK))?.locked, true);
    const read = await store.locks.readStatus(LOCK);
    assert.ok(read);
    const next = { locked: false, battery: 80, responsive: true, appOpen: false };
    assert.ok(await store.locks.writeStatusIf(LOCK, read.version, next, null));
    assert.equal((await store.locks.get(LOCK))?.locked, false);
    await store.locks.update(LOCK, { nickname: 'Front door' });
    assert.equal((await store.locks.get(LOCK))?.nickname, 'Front door');
    // Another process's write: seen at the time limit.
    await raw.locks.update(LOCK, { battery: 5 });
    assert.equal((await store.locks.get(LOCK))?.battery, 80);
    now = TTL;
    assert.equal((await store.locks.get(LOCK))?.battery, 5);
  });

  it('reads locks through when told not to cache them (several servers on one store)', async () => {
    open(false);
    assert.equal((await store.locks.get(LOCK))?.battery, 90);
    await raw.locks.update(LOCK, { battery: 6 });
    assert.equal((await store.locks.get(LOCK))?.battery, 6);
  });

  it("drops a scope on another process's word, and everything on a restore", async () => {
    const snapshot = await store.snapshot();
    await store.apiKeys.findByHash('h1');
    await raw.apiKeys.remove('acc-1', 'key-1');
    cache.invalidate('credentials');
    assert.equal(await store.apiKeys.findByHash('h1'), undefined);
    assert.deepEqual(announced, [], 'an invalidation heard from elsewhere is not announced again');
    await store.locks.get(LOCK);
    await store.restore(snapshot);
    assert.equal((await store.apiKeys.findByHash('h1'))?.key.id, 'key-1');
  });
});
