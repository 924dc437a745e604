/**
 * The WAL-index header as a hint in front of `PRAGMA data_version`: every commit by another
 * connection is still seen at the next check, and data_version is asked only when a commit (or a
 * checkpoint) may have happened since it was last asked.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { BetterSqlite3, type SqliteConnection } from '../../../src/adapters/stores/sqlite/better-sqlite3.ts';
import { type WalChangeCheck, walChangeCheck } from '../../../src/adapters/stores/sqlite/wal-change-hint.ts';

describe('walChangeCheck', () => {
  let dir: string;
  let file: string;
  /** The server's connection, whose data_version the check guards. */
  let ours: SqliteConnection;
  /** Another process's (the admin CLI's). */
  let other: SqliteConnection;
  let check: WalChangeCheck;

  const open = (): SqliteConnection => {
    const db = new BetterSqlite3(file);
    db.pragma('journal_mode = WAL');
    return db;
  };

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'lockcloud-wal-hint-'));
    file = join(dir, 'hint.sqlite');
    ours = open();
    ours.exec('CREATE TABLE t (n INTEGER)');
    other = open();
    const dataVersion = ours.prepare('PRAGMA data_version').pluck();
    check = walChangeCheck(file, () => dataVersion.get() as number);
  });

  afterEach(() => {
    check.close();
    other.close();
    ours.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('asks data_version once while nothing commits', () => {
    const first = check.dataVersion();
    for (let i = 0; i < 100; i++) assert.equal(check.dataVersion(), first);
    assert.equal(check.exactChecks(), 1);
  });

  it('sees every commit of another connection at the next check, and asks once for each', () => {
    let last = check.dataVersion();
    for (let i = 0; i < 50; i++) {
      other.prepare('INSERT INTO t VALUES (?)').run(i);
      const now = check.dataVersion();
      assert.notEqual(now, last, `commit ${i} missed`);
      assert.equal(check.dataVersion(), now);
      last = now;
    }
    assert.equal(check.exactChecks(), 51);
  });

  it('asks again after its own commit, whose data_version does not change', () => {
    const first = check.dataVersion();
    ours.prepare('INSERT INTO t VALUES (1)').run();
    assert.equal(check.dataVersion(), first);
    assert.equal(check.exactChecks(), 2);
    assert.equal(check.dataVersion(), first);
    assert.equal(check.exactChecks(), 2);
  });

  it('sees a commit made after a checkpoint that restarted the WAL', () => {
    other.prepare('INSERT INTO t VALUES (1)').run();
    const before = check.dataVersion();
    other.pragma('wal_checkpoint(TRUNCATE)');
    check.dataVersion();
    // The WAL starts over from its first frame: the header's frame count goes back, its salts change.
    other.prepare('INSERT INTO t VALUES (2)').run();
    assert.notEqual(check.dataVersion(), before);
  });

  it('asks data_version every time when there is no -shm file to read', () => {
    const plain = join(dir, 'plain.sqlite');
    const db = new BetterSqlite3(plain); // rollback journal: no WAL index
    db.exec('CREATE TABLE t (n INTEGER)');
    const dataVersion = db.prepare('PRAGMA data_version').pluck();
    const fallback = walChangeCheck(plain, () => dataVersion.get() as number);
    try {
      for (let i = 0; i < 5; i++) fallback.dataVersion();
      assert.equal(fallback.exactChecks(), 5);
    } finally {
      fallback.close();
      db.close();
    }
  });
});
