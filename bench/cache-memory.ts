/**
 * Point 5 of issue 25, one part of the server's memory at 100,000 locks: what the read cache holds
 * for them (adapters/stores/read-cache.ts), measured as the live heap after a full collection, so
 * unlike the server's RSS (scale-devices) it does not depend on where V8's collection cycle stood.
 * A SQLite store with 100,000 locks of one account, ten per access point, as a fleet pairs them;
 * through the cached store as a server opens it, every lock's status is read (the device reports
 * and commands do), then the account's list (GET /public/locks).
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { BetterSqlite3 } from '../src/adapters/stores/sqlite/better-sqlite3.ts';
import {
  migrateSqlite,
  openCachedSqliteStore,
  SQLITE_FILE_NAME,
} from '../src/adapters/stores/sqlite/open.ts';
import { tempDir } from './lib/processes.ts';
import { fmtMb, progress, report } from './lib/report.ts';

const LOCKS = Number(process.env.BENCH_CACHE_LOCKS ?? 100_000);
const PER_ACCESS_POINT = 10;

// A full collection on demand, in this process only: the bench measures what stays live.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const liveHeap = (): number => {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
};

const dir = tempDir();
await migrateSqlite(dir);
progress(`writing ${LOCKS.toLocaleString('en-US')} locks`);
const owner = randomUUID();
const ids: string[] = [];
{
  const db = new BetterSqlite3(join(dir, SQLITE_FILE_NAME));
  db.prepare(
    'INSERT INTO accounts (id, email, password_hash, verified, created_at) VALUES (?, ?, NULL, 1, 0)',
  ).run(owner, 'fleet@example.com');
  const insertAp = db.prepare(
    `INSERT INTO access_points (id, account_id, name, secret_hash, created_at) VALUES (?, ?, 'Hall', 'x', 0)`,
  );
  const insertLock = db.prepare(
    `INSERT INTO locks (device_id, serial, nickname, owner_id, locked, battery, responsive, integration,
       access_point, app_open, created_at, ap_id, report_ap, report_epoch, report_seq, firmware, last_seen_at)
     VALUES (?, ?, ?, ?, 1, 90, 1, 1, 1, 0, ?, ?, ?, ?, ?, '2.1.0', ?)`,
  );
  db.transaction(() => {
    let ap = '';
    let epoch = '';
    for (let i = 0; i < LOCKS; i++) {
      if (i % PER_ACCESS_POINT === 0) {
        ap = randomUUID();
        epoch = randomUUID();
        insertAp.run(ap, owner);
      }
      const id = randomUUID();
      ids.push(id);
      insertLock.run(id, `SN${i}`, `Lock ${i}`, owner, i, ap, ap, epoch, i, 1_700_000_000_000 + i);
    }
  })();
  db.close();
}

const store = await openCachedSqliteStore(dir);
const before = liveHeap();
progress('reading every status through the cache');
for (const id of ids) await store.locks.readStatus(id);
const statuses = liveHeap() - before;
progress("reading the account's list");
// Twice: the second answer is the kept list, so the first call's own copy is no longer live.
await store.locks.listOwnedBy(owner);
const listed = (await store.locks.listOwnedBy(owner)).length;
const list = liveHeap() - before - statuses;
await store.close();
if (listed !== LOCKS) throw new Error(`listed ${listed} of ${LOCKS} locks`);

const perLock = (bytes: number): string => `${Math.round(bytes / LOCKS)} B a lock`;
report({
  name: 'cache-memory',
  title: `5. The read cache's memory: ${LOCKS.toLocaleString('en-US')} locks (bench/cache-memory.ts)`,
  columns: ['held', 'live heap after a full collection', 'per lock'],
  rows: [
    [
      'every lock status (the device reports, commands, GET /public/lock/{id})',
      fmtMb(statuses),
      perLock(statuses),
    ],
    ["the account's list (GET /public/locks), after the statuses", fmtMb(list), perLock(list)],
    ['both', fmtMb(statuses + list), perLock(statuses + list)],
  ],
  targets: [],
  notes: [
    `One account's ${LOCKS.toLocaleString('en-US')} locks, ${PER_ACCESS_POINT} per access point, in a SQLite store read through the cached store a server opens; the heap measured in this process after two full collections (gc exposed here only). The server's RSS at this many locks is scale-devices' row; this is the cache's share of its live heap.`,
  ],
});
