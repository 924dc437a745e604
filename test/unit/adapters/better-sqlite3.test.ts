/**
 * src/adapters/stores/sqlite/better-sqlite3.ts: the better-sqlite3 that works on the running Node
 * is the one loaded (13 on Node 22 and later, where 12 built against Node 24.19+ headers aborts the
 * process when V8 collects its objects; 12 on Node 20, where 13 crashes), and every connection in
 * the repository goes through that choice. scripts/other-nodes.sh runs this on 22 and 24.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { BETTER_SQLITE3_PACKAGE, BetterSqlite3 } from '../../../src/adapters/stores/sqlite/better-sqlite3.ts';

const require = createRequire(import.meta.url);
const SELECTOR = 'src/adapters/stores/sqlite/better-sqlite3.ts';

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return /\.(?:ts|mjs|js)$/.test(name) ? [path] : [];
  });
}

describe('better-sqlite3: the version that works on this Node', () => {
  it(`loads 13 on Node 22 and later, 12 on Node 20 (this is ${process.version})`, () => {
    const major = Number(process.versions.node.split('.')[0]);
    const manifest = require(`${BETTER_SQLITE3_PACKAGE}/package.json`) as { name: string; version: string };
    assert.equal(manifest.name, 'better-sqlite3');
    assert.equal(Number(manifest.version.split('.')[0]), major >= 22 ? 13 : 12, manifest.version);
    assert.equal(BetterSqlite3, require(BETTER_SQLITE3_PACKAGE));
  });

  it('opens a database and runs a statement with it', () => {
    const db = new BetterSqlite3(':memory:');
    try {
      const row = db.prepare('SELECT 1 + 1 AS two').get() as { two: number };
      assert.equal(row.two, 2);
    } finally {
      db.close();
    }
  });

  it('nothing else loads better-sqlite3: every connection goes through the choice', () => {
    const direct: string[] = [];
    for (const file of ['src', 'test', 'bench', 'scripts', 'bin'].flatMap((d) => sources(d))) {
      if (file.split('\\').join('/') === SELECTOR) continue;
      const text = readFileSync(file, 'utf8');
      if (/(?:from\s+|require\(\s*|import\(\s*)['"]better-sqlite3(?:-13)?['"]/.test(text)) direct.push(file);
    }
    assert.deepEqual(direct, []);
  });
});
