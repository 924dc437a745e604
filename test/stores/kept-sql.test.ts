/**
 * KeptSql (src/adapters/stores/sql/kept-sql.ts), on a real SQLite file and a real PostgreSQL
 * database at once: a statement is compiled by Kysely the first time and then run from its text
 * with new values, per dialect (one KeptSql serves both, with `?` on one and `$1` on the other); a
 * caller whose parameters are not the ones Kysely bound never has its text kept; a text with
 * U+0000 goes through Kysely each time (PostgreSQL's plugin rewrites it).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Kysely, SqliteDialect, sql } from 'kysely';
import { postgresKysely } from '../../src/adapters/stores/postgres/open.ts';
import { KeptSql } from '../../src/adapters/stores/sql/kept-sql.ts';
import type { Database } from '../../src/adapters/stores/sql/tables.ts';
import { BetterSqlite3 } from '../../src/adapters/stores/sqlite/better-sqlite3.ts';
import { createTestDatabase, type TestDatabase } from '../support/postgres.ts';

// A table of the tests' own, reached through the store's Kysely type as the adapters use it.
// biome-ignore lint/suspicious/noExplicitAny: a table the store's schema does not name
type Loose = Kysely<any>;

describe('KeptSql', () => {
  let dir: string;
  let pgDb: TestDatabase;
  const dbs: { name: string; db: Kysely<Database> }[] = [];
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'lockcloud-kept-'));
    const lite = new Kysely<Database>({
      dialect: new SqliteDialect({ database: new BetterSqlite3(join(dir, 'kept.sqlite')) }),
    });
    pgDb = await createTestDatabase();
    const pg = postgresKysely(pgDb.url);
    for (const [name, db] of [
      ['SQLite', lite],
      ['PostgreSQL', pg],
    ] as const) {
      await sql`CREATE TABLE things (id text PRIMARY KEY, n integer NOT NULL)`.execute(db);
      await sql`INSERT INTO things (id, n) VALUES ('a', 1), ('b', 2)`.execute(db);
      // U+0000 in a text: only SQLite stores it.
      if (name === 'SQLite') await sql`INSERT INTO things (id, n) VALUES (${'c\u00003'}, 3)`.execute(db);
      dbs.push({ name, db });
    }
  });
  after(async () => {
    for (const { db } of dbs) await db.destroy();
    await pgDb.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Runs the statement through `kept`, counting how often it had to be built. */
  const byId = (kept: KeptSql, built: { n: number }) => async (db: Kysely<Database>, id: string) => {
    const result = await kept.run<{ n: number }>(db, [id], () => {
      built.n++;
      return (db as Loose).selectFrom('things').select('n').where('id', '=', id);
    });
    return result.rows.map((r) => Number(r.n));
  };

  it('compiles once per dialect, then runs the kept text with the new values', async () => {
    const built = { n: 0 };
    const read = byId(new KeptSql(), built);
    for (const { name, db } of dbs) {
      assert.deepEqual(await read(db, 'a'), [1], name);
      assert.deepEqual(await read(db, 'b'), [2], name);
      assert.deepEqual(await read(db, 'z'), [], name);
    }
    assert.equal(built.n, 2, 'built once on each dialect, each with its own placeholders');
  });

  it('keeps no text when the parameters named are not the ones bound, and still answers right', async () => {
    const kept = new KeptSql();
    let built = 0;
    for (const { name, db } of dbs) {
      for (const [id, n] of [
        ['a', 1],
        ['b', 2],
      ] as const) {
        const result = await kept.run<{ id: string }>(db, [n, id], () => {
          built++;
          return (db as Loose).selectFrom('things').select('id').where('id', '=', id).where('n', '=', n);
        });
        assert.deepEqual(
          result.rows.map((r) => r.id),
          [id],
          name,
        );
      }
    }
    assert.equal(built, 4, 'built every time: the order named is not the order bound');
  });

  it('sends a text with U+0000 through Kysely every time, and keeps the text for the others', async () => {
    const built = { n: 0 };
    const read = byId(new KeptSql(), built);
    const { db } = dbs.find((d) => d.name === 'PostgreSQL') ?? assert.fail('no PostgreSQL');
    // PostgreSQL refuses U+0000 in a text; the store's plugin turns it into a value that matches nothing.
    assert.deepEqual(await read(db, 'c\u00003'), []);
    assert.deepEqual(await read(db, 'x\u0000'), []);
    assert.equal(built.n, 2, 'neither kept');
    assert.deepEqual(await read(db, 'a'), [1]);
    assert.deepEqual(await read(db, 'b'), [2]);
    assert.equal(built.n, 3);
    const lite = dbs.find((d) => d.name === 'SQLite')?.db ?? assert.fail('no SQLite');
    assert.deepEqual(await read(lite, 'c\u00003'), [3], 'SQLite keeps U+0000 as it is');
  });

  it('sends a SET with an undefined value through Kysely, which leaves that column out', async () => {
    const kept = new KeptSql();
    for (const { name, db } of dbs) {
      const write = (id: string, n: number | undefined) => {
        const values = { n, id: `${id}!` };
        return kept.run(db, [...Object.values(values), id], () =>
          (db as Loose).updateTable('things').set(values).where('id', '=', id),
        );
      };
      await write('a', 10);
      await write('a!', undefined);
      const rows = await (db as Loose)
        .selectFrom('things')
        .select(['id', 'n'])
        .where('id', 'like', 'a%')
        .execute();
      assert.deepEqual(
        rows.map((r) => [r.id, Number(r.n)]),
        [['a!!', 10]],
        `${name}: n kept, only the id changed the second time`,
      );
    }
  });
});
