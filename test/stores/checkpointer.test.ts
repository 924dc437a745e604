/**
 * The WAL checkpoints in a worker thread (src/adapters/stores/sqlite/checkpointer.ts), on real
 * SQLite files: a checkpoint there copies every frame the server's connection committed into the
 * database, and the next commit starts the WAL over; the server's store starts one and ends it on
 * close (the WAL is gone after, as SQLite leaves it when the last connection closes); a file that
 * is not there fails the start rather than a later checkpoint.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { BetterSqlite3 } from '../../src/adapters/stores/sqlite/better-sqlite3.ts';
import { WalCheckpointer } from '../../src/adapters/stores/sqlite/checkpointer.ts';
import { openCachedSqliteStore, SQLITE_FILE_NAME } from '../../src/adapters/stores/sqlite/open.ts';
import { anAccount } from '../support/fixtures.ts';

const dir = mkdtempSync(join(tmpdir(), 'lockcloud-checkpoint-'));
after(() => rmSync(dir, { recursive: true, force: true }));

describe('WAL checkpoints in a worker thread', () => {
  it("copies what the server's connection committed, and the next commit starts the WAL over", async () => {
    const file = join(dir, 'a.sqlite');
    const db = new BetterSqlite3(file);
    db.pragma('journal_mode = WAL');
    db.pragma('wal_autocheckpoint = 0');
    db.exec('CREATE TABLE t (n INTEGER)');
    const insert = db.prepare('INSERT INTO t (n) VALUES (?)');
    for (let i = 0; i < 200; i++) insert.run(i);
    const errors: Error[] = [];
    const checkpointer = await WalCheckpointer.start(file, (e) => errors.push(e), false);
    try {
      const done = await checkpointer.checkpoint();
      assert.equal(done.busy, 0);
      assert.ok(done.log >= 200, `every commit's frames are in the WAL (${done.log})`);
      assert.equal(done.checkpointed, done.log, 'all of them copied into the database');
      insert.run(200);
      const [after] = db.pragma('wal_checkpoint(PASSIVE)') as { log: number }[];
      assert.ok((after?.log ?? Number.POSITIVE_INFINITY) < 10, `the WAL started over (${after?.log} frames)`);
      assert.equal((db.prepare('SELECT count(*) AS n FROM t').get() as { n: number }).n, 201);
    } finally {
      await checkpointer.close();
      db.close();
    }
    assert.deepEqual(errors, []);
  });

  it("runs beside the server's store and ends with it, leaving no WAL behind", async () => {
    const data = join(dir, 'server');
    const store = await openCachedSqliteStore(data);
    await store.accounts.insert(anAccount('acc-1'));
    assert.ok(existsSync(join(data, `${SQLITE_FILE_NAME}-wal`)));
    await store.close();
    assert.equal(existsSync(join(data, `${SQLITE_FILE_NAME}-wal`)), false);
    await store.close(); // a second close resolves too
    const again = await openCachedSqliteStore(data);
    try {
      assert.equal((await again.accounts.findById('acc-1'))?.id, 'acc-1');
    } finally {
      await again.close();
    }
  });

  it('holds the process until it is gone when closed with a checkpoint still to answer', async () => {
    const file = join(dir, 'b.sqlite');
    const db = new BetterSqlite3(file);
    db.pragma('journal_mode = WAL');
    db.exec('CREATE TABLE t (n INTEGER)');
    const checkpointer = await WalCheckpointer.start(file, () => {}, false);
    // The answer comes after close() began; the test's process has nothing else to keep it alive, so
    // the worker must: without that this test ends with "the event loop has already resolved".
    const answered = checkpointer.checkpoint();
    await checkpointer.close();
    await answered;
    db.close();
  });

  it('refuses a checkpoint once closed, at once (a stopped worker would never answer it)', async () => {
    const file = join(dir, 'c.sqlite');
    const db = new BetterSqlite3(file);
    db.pragma('journal_mode = WAL');
    db.exec('CREATE TABLE t (n INTEGER)');
    const checkpointer = await WalCheckpointer.start(file, () => {}, false);
    await checkpointer.close();
    await assert.rejects(checkpointer.checkpoint(), /the checkpoint worker stopped/);
    await checkpointer.close(); // and a second close resolves
    db.close();
  });

  it('fails to start on a file that is not there', async () => {
    await assert.rejects(WalCheckpointer.start(join(dir, 'missing.sqlite'), () => {}, false));
  });
});
