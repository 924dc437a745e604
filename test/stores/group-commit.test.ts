/**
 * Group commit (src/adapters/stores/sqlite/group-commit.ts) on a real SQLite file, watched from a
 * second connection as another process would see it: transactions finished in one turn share one
 * COMMIT; none is handed back before that COMMIT, nor is a statement run inside an open group; a
 * failing transaction is undone alone; a failed COMMIT, or a transaction SQLite ended (even under a
 * member that caught the error and went on), fails every member and keeps none of their rows; the group holds the write lock from its start; closing the
 * store commits what is pending.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, beforeEach, describe, it } from 'node:test';
import { Kysely, sql } from 'kysely';
import { StoreTraffic } from '../../src/adapters/stores/sql/store-traffic.ts';
import { BetterSqlite3, type SqliteConnection } from '../../src/adapters/stores/sqlite/better-sqlite3.ts';
import {
  GroupCommitSqliteDialect,
  GroupRolledBackError,
} from '../../src/adapters/stores/sqlite/group-commit.ts';

interface Tables {
  parent: { id: number };
  t: { n: number; parent: number | null };
}

const dir = mkdtempSync(join(tmpdir(), 'lockcloud-group-commit-'));
after(() => rmSync(dir, { recursive: true, force: true }));

let files = 0;
let db: Kysely<Tables>;
let traffic: StoreTraffic;
/** Another connection to the same file: what another process sees. */
let other: SqliteConnection;

beforeEach(async () => {
  const file = join(dir, `${++files}.sqlite`);
  const raw = new BetterSqlite3(file);
  raw.pragma('journal_mode = WAL');
  raw.pragma('foreign_keys = ON');
  raw.exec(`CREATE TABLE parent (id INTEGER PRIMARY KEY);
    CREATE TABLE t (n INTEGER PRIMARY KEY,
      parent INTEGER REFERENCES parent (id) DEFERRABLE INITIALLY DEFERRED);`);
  traffic = new StoreTraffic();
  db = new Kysely<Tables>({
    dialect: new GroupCommitSqliteDialect({ connection: raw, prepare: (text) => raw.prepare(text), traffic }),
  });
  other = new BetterSqlite3(file);
  other.pragma('busy_timeout = 0');
});

/** The rows another connection sees committed. */
function committed(): number[] {
  return (other.prepare('SELECT n FROM t ORDER BY n').all() as { n: number }[]).map((row) => row.n);
}

function insertIn(n: number, parent: number | null = null): Promise<void> {
  return db.transaction().execute(async (trx) => {
    await trx.insertInto('t').values({ n, parent }).execute();
  });
}

async function close(): Promise<void> {
  await db.destroy();
  other.close();
}

describe('group commit on SQLite', () => {
  it('commits the transactions of one turn together, and hands none back before that COMMIT', async () => {
    const seenInside: number[][] = [];
    const transactions = [1, 2, 3, 4, 5].map((n) =>
      db.transaction().execute(async (trx) => {
        await trx.insertInto('t').values({ n, parent: null }).execute();
        seenInside.push(committed());
      }),
    );
    const seenWhenResolved: number[][] = [];
    for (const done of transactions) void done.then(() => seenWhenResolved.push(committed()));
    await Promise.all(transactions);
    assert.deepEqual(
      seenInside,
      [[], [], [], [], []],
      'while the group was open another connection saw none of its rows',
    );
    assert.deepEqual(committed(), [1, 2, 3, 4, 5]);
    assert.deepEqual(
      seenWhenResolved,
      [1, 2, 3, 4, 5].map(() => [1, 2, 3, 4, 5]),
      'each was handed back with the whole group committed',
    );
    // BEGIN IMMEDIATE, the first INSERT, then SAVEPOINT, INSERT and RELEASE four times, one COMMIT.
    assert.equal(traffic.statements, 1 + 1 + 4 * 3 + 1);
    assert.equal(traffic.calls, 5);
    await close();
  });

  it('runs a transaction alone in its own turn with the statements of a plain one', async () => {
    await insertIn(1);
    await insertIn(2);
    assert.deepEqual(committed(), [1, 2]);
    assert.equal(traffic.statements, 2 * 3, 'BEGIN IMMEDIATE, INSERT, COMMIT each');
    assert.equal(traffic.calls, 2);
    await close();
  });

  it('hands back a statement run on its own inside an open group only after the COMMIT', async () => {
    const first = insertIn(1);
    const read = db.selectFrom('t').select('n').execute();
    let readDone = false;
    void read.then(() => {
      readDone = true;
    });
    await Promise.resolve();
    await Promise.resolve();
    assert.equal(readDone, false);
    assert.deepEqual(await read, [{ n: 1 }], "it read the group's row");
    assert.deepEqual(committed(), [1], 'which was committed when the read came back');
    await first;
    await close();
  });

  it('undoes a failing transaction alone, the first of its group or a later one', async () => {
    const outcomes = await Promise.allSettled([
      db.transaction().execute(async (trx) => {
        await trx.insertInto('t').values({ n: 1, parent: null }).execute();
        throw new Error('the first fails');
      }),
      insertIn(2),
      db.transaction().execute(async (trx) => {
        await trx.insertInto('t').values({ n: 3, parent: null }).execute();
        throw new Error('a later one fails');
      }),
      insertIn(4),
      // A statement that fails inside the group: its transaction goes, the group stays.
      insertIn(2),
    ]);
    assert.deepEqual(
      outcomes.map((o) => o.status),
      ['rejected', 'fulfilled', 'rejected', 'fulfilled', 'rejected'],
    );
    assert.match(String((outcomes[0] as PromiseRejectedResult).reason), /the first fails/);
    assert.match(String((outcomes[2] as PromiseRejectedResult).reason), /a later one fails/);
    assert.match(String((outcomes[4] as PromiseRejectedResult).reason), /UNIQUE/);
    assert.deepEqual(committed(), [2, 4]);
    await close();
  });

  it('fails every member when the COMMIT fails, and keeps none of their rows', async () => {
    const outcomes = await Promise.allSettled([insertIn(1), insertIn(2, 99), insertIn(3)]);
    // The deferred foreign key is checked at the COMMIT, which the three share.
    for (const outcome of outcomes) {
      assert.equal(outcome.status, 'rejected');
      assert.ok((outcome as PromiseRejectedResult).reason instanceof GroupRolledBackError);
      assert.match(String((outcome as PromiseRejectedResult).reason), /FOREIGN KEY/);
    }
    assert.deepEqual(committed(), []);
    // The connection is whole after: the next group commits.
    await insertIn(4);
    assert.deepEqual(committed(), [4]);
    await close();
  });

  it("fails the members before it when SQLite ends the group's transaction under a later one", async () => {
    const outcomes = await Promise.allSettled([
      insertIn(1),
      db.transaction().execute(async (trx) => {
        await trx.insertInto('t').values({ n: 2, parent: null }).execute();
        // What SQLITE_FULL or SQLITE_IOERR may do: the whole transaction rolled back under it.
        await sql`ROLLBACK`.execute(trx);
        throw new Error('the disk is full');
      }),
      insertIn(3),
    ]);
    assert.equal(outcomes[0].status, 'rejected');
    assert.ok((outcomes[0] as PromiseRejectedResult).reason instanceof GroupRolledBackError);
    assert.match(String((outcomes[1] as PromiseRejectedResult).reason), /the disk is full/);
    assert.equal(outcomes[2].status, 'fulfilled', 'the next one began a group of its own');
    assert.deepEqual(committed(), [3]);
    await close();
  });

  it('fails the group when a member goes on after SQLite ended the transaction under it', async () => {
    /** A transaction that catches what ended SQLite's transaction and returns as if it had not. */
    const swallowing = (n: number) =>
      db.transaction().execute(async (trx) => {
        await trx.insertInto('t').values({ n, parent: null }).execute();
        await sql`ROLLBACK`.execute(trx);
      });
    const later = await Promise.allSettled([insertIn(1), swallowing(2), insertIn(3)]);
    assert.deepEqual(
      later.map((o) => o.status),
      ['rejected', 'rejected', 'fulfilled'],
    );
    for (const o of later.slice(0, 2)) {
      assert.ok((o as PromiseRejectedResult).reason instanceof GroupRolledBackError);
    }
    const first = await Promise.allSettled([swallowing(4), insertIn(5)]);
    assert.deepEqual(
      first.map((o) => o.status),
      ['rejected', 'fulfilled'],
    );
    assert.deepEqual(committed(), [3, 5]);
    await close();
  });

  it('holds the write lock from the start of a group: another process cannot commit inside it', async () => {
    let refused: unknown;
    await db.transaction().execute(async (trx) => {
      await trx.selectFrom('t').select('n').execute();
      try {
        other.exec('INSERT INTO t (n) VALUES (100)');
      } catch (error) {
        refused = error;
      }
    });
    assert.match(String(refused), /database is locked/);
    other.exec('INSERT INTO t (n) VALUES (100)');
    assert.deepEqual(committed(), [100]);
    await close();
  });

  it('commits what is pending when the store closes', async () => {
    let inserted!: () => void;
    const insertedSignal = new Promise<void>((resolve) => {
      inserted = resolve;
    });
    const pending = db.transaction().execute(async (trx) => {
      await trx.insertInto('t').values({ n: 1, parent: null }).execute();
      inserted();
    });
    await insertedSignal;
    await db.destroy();
    await pending;
    assert.deepEqual(committed(), [1]);
    other.close();
  });
});
