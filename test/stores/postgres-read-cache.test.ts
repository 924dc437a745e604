/**
 * The read cache on PostgreSQL (adapters/stores/postgres/commits-elsewhere.ts): what the shared
 * freshness contract cannot see from outside. That a cached read costs one fence and no query, and
 * the reads that follow it before other I/O none; that reads waiting together share a fence; that this process's own writes do not empty it; that a
 * commit by another connection is seen by the very next read, however soon; and that while the
 * listening connection is down the store is read, and after it comes back nothing stale is answered.
 */
import assert from 'node:assert/strict';
import { after, afterEach, before, beforeEach, describe, it } from 'node:test';
import pg from 'pg';
import { openCachedPostgresStore, openPostgresStore } from '../../src/adapters/stores/postgres/open.ts';
import { StoreTraffic } from '../../src/adapters/stores/sql/store-traffic.ts';
import type { Store } from '../../src/app/ports.ts';
import { eventually } from '../support/eventually.ts';
import { aLock, anAccount } from '../support/fixtures.ts';
import { createTestDatabase, type TestDatabase } from '../support/postgres.ts';

const LOCK = '00000000-0000-4000-8000-0000000000c1';
const OTHER_LOCK = '00000000-0000-4000-8000-0000000000c2';
const key = { id: 'k1', accountId: 'acc-1', hash: 'key-hash-1', prefix: 'lck_a', createdAt: 10 };

let database: TestDatabase;
before(async () => {
  database = await createTestDatabase();
});
after(() => database.drop());

describe('PostgreSQL read cache', () => {
  let traffic: StoreTraffic;
  let store: Store;
  let other: Store;
  let admin: pg.Client;

  beforeEach(async () => {
    traffic = new StoreTraffic();
    store = await openCachedPostgresStore(database.url, {
      poolSize: 4,
      storeTraffic: traffic,
      reconnectDelayMs: 10,
    });
    other = await openPostgresStore(database.url, { poolSize: 2 });
    admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    await admin.query('TRUNCATE accounts, api_keys, locks CASCADE');
    await store.accounts.insert(anAccount('acc-1'));
    await store.apiKeys.insert(key);
    await store.locks.insert(aLock(LOCK, 'acc-1'));
    await store.locks.insert(aLock(OTHER_LOCK, 'acc-1'));
  });
  afterEach(async () => {
    await admin.end();
    await other.close();
    await store.close();
  });

  /** What `read` sent the database: every statement, fences included. */
  async function sent(read: () => Promise<unknown>): Promise<number> {
    const before = traffic.statements;
    await read();
    return traffic.statements - before;
  }
  /** The fences `read` sent. */
  async function fenced(read: () => Promise<unknown>): Promise<number> {
    const before = traffic.fences;
    await read();
    return traffic.fences - before;
  }

  /** What follows another I/O event, as a request's first read does: not the work of a fence's answer. */
  const nextInput = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

  it('answers a read it holds with one fence and no query', async () => {
    await store.apiKeys.findByHash(key.hash);
    await store.locks.readStatus(LOCK);
    await nextInput();
    assert.equal(await fenced(() => store.apiKeys.findByHash(key.hash)), 1);
    await nextInput();
    assert.equal(await sent(() => store.apiKeys.findByHash(key.hash)), 1);
    await nextInput();
    // Not held: the fence, then the query.
    assert.equal(await sent(() => store.tasks.get('no-such-task')), 2);
  });

  it("covers a request's later reads with its first read's fence, and no read after other I/O", async () => {
    await store.apiKeys.findByHash(key.hash);
    await store.locks.readStatus(LOCK);
    await nextInput();
    // A request: its key, then its lock, as the API reads them.
    assert.equal(
      await fenced(async () => {
        await store.apiKeys.findByHash(key.hash);
        await store.locks.readStatus(LOCK);
        await store.locks.get(LOCK);
      }),
      1,
    );
    // Once other I/O has been handled (here a timer), the next read waits for a fence of its own.
    await nextInput();
    assert.equal(
      await fenced(async () => {
        await store.apiKeys.findByHash(key.hash);
        await nextInput();
        await store.locks.readStatus(LOCK);
      }),
      2,
    );
  });

  it('lets reads that wait together share one fence', async () => {
    await store.locks.readStatus(LOCK);
    const statements = await sent(() =>
      Promise.all(Array.from({ length: 50 }, () => store.locks.readStatus(LOCK))),
    );
    // The first read's fence, and one more shared by the 49 that began while it was out.
    assert.ok(statements <= 2, `${statements} statements for 50 reads`);
  });

  it("keeps what it holds across this process's own writes to other rows", async () => {
    await store.apiKeys.findByHash(key.hash);
    await store.locks.update(OTHER_LOCK, { nickname: 'Back door' });
    await store.accounts.insert(anAccount('acc-2'));
    await nextInput();
    assert.equal(await sent(() => store.apiKeys.findByHash(key.hash)), 1);
  });

  it('sees, at the very next read, each commit another connection made before it', async () => {
    for (let battery = 1; battery <= 40; battery += 1) {
      assert.equal((await store.locks.get(LOCK))?.battery, battery === 1 ? 90 : battery - 1);
      // No wait of any kind between the other process's commit and the read.
      await other.locks.update(LOCK, { battery });
      assert.equal((await store.locks.get(LOCK))?.battery, battery);
    }
    await admin.query('DELETE FROM api_keys');
    assert.equal(await store.apiKeys.findByHash(key.hash), undefined);
  });

  it('reads the store while it cannot listen, and holds nothing from before once it listens again', async () => {
    assert.equal((await store.locks.get(LOCK))?.battery, 90);
    const listener = await admin.query<{ pid: number }>(
      "SELECT pid FROM pg_stat_activity WHERE application_name = 'lockcloud-commits' AND datname = current_database()",
    );
    assert.equal(listener.rows.length, 1, 'one listening connection');
    await admin.query('SELECT pg_terminate_backend($1)', [listener.rows[0]?.pid]);
    // Committed while nobody listens: no notification will ever say so.
    await admin.query(`UPDATE locks SET battery = 33 WHERE device_id = '${LOCK}'`);
    assert.equal((await store.locks.get(LOCK))?.battery, 33);
    await admin.query(`UPDATE locks SET battery = 34 WHERE device_id = '${LOCK}'`);
    assert.equal((await store.locks.get(LOCK))?.battery, 34);
    // Listening again: a held read costs a fence and no query, and another commit is still seen.
    await eventually('the cache listening again', async () => {
      await store.locks.get(LOCK);
      await nextInput();
      const before = { fences: traffic.fences, statements: traffic.statements };
      await store.locks.get(LOCK);
      return traffic.fences - before.fences === 1 && traffic.statements - before.statements === 1;
    });
    await admin.query(`UPDATE locks SET battery = 35 WHERE device_id = '${LOCK}'`);
    assert.equal((await store.locks.get(LOCK))?.battery, 35);
  });
});
