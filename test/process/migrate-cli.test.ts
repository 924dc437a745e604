/** `lockcloud migrate` as a separate process: what it prints and its exit codes, on both stores. */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { migrationProvider } from '../../src/adapters/stores/sql/migrations/index.ts';
import type { Run } from '../support/admin-cli.ts';
import { createTestDatabase, type TestDatabase } from '../support/postgres.ts';

const NAMES = Object.keys(await migrationProvider.getMigrations()).sort();

/** `lockcloud migrate ARGS` through the lockcloud command (src/bin/cli.ts); the store only from `env` and ARGS. */
function runMigrate(args: readonly string[], env: Record<string, string> = {}): Promise<Run> {
  const base: Record<string, string | undefined> = { ...process.env };
  delete base.DATABASE_URL;
  delete base.LOCKCLOUD_DATA;
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/bin/cli.ts', 'migrate', ...args], {
    env: { ...base, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('lockcloud migrate on PostgreSQL', () => {
  let db: TestDatabase;
  before(async () => {
    db = await createTestDatabase();
  });
  after(() => db.drop());

  it('lists the migrations it applied to a fresh database, then says it is up to date', async () => {
    const where = `PostgreSQL ${new URL(db.url).host}/${db.name}`;
    const first = await runMigrate(['--database-url', db.url]);
    assert.equal(first.code, 0, first.stderr);
    assert.deepEqual(first.stdout.trim().split('\n'), [
      `applied ${NAMES.length} migration(s) to ${where}:`,
      ...NAMES.map((name) => `  ${name}`),
    ]);
    // DATABASE_URL means the same as the flag.
    const second = await runMigrate([], { DATABASE_URL: db.url });
    assert.deepEqual(second, {
      code: 0,
      stdout: `${where} is already up to date\n`,
      stderr: '',
    });
  });

  it('exits 2 for a URL that is not PostgreSQL, without echoing its password', async () => {
    const run = await runMigrate([], { DATABASE_URL: 'mysql://lc:hunter2@db/lc' });
    assert.equal(run.code, 2);
    assert.equal(run.stdout, '');
    assert.match(
      run.stderr,
      /databaseUrl: "mysql:\/\/\*\*\*@db\/lc" is not a postgres:\/\/ or postgresql:\/\/ URL/,
    );
    assert.doesNotMatch(run.stderr, /hunter2/);
  });

  it('exits 1 with the reason when the database cannot be reached or does not exist', async () => {
    const refused = await runMigrate(['--database-url', 'postgres://lc:hunter2@127.0.0.1:1/lc']);
    assert.equal(refused.code, 1);
    assert.match(
      refused.stderr,
      /^lockcloud migrate: cannot migrate PostgreSQL 127\.0\.0\.1:1\/lc: .*ECONNREFUSED/,
    );
    assert.doesNotMatch(refused.stderr, /hunter2/);
    const missing = await runMigrate(['--database-url', `${db.url}_missing`]);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /database "\w+_missing" does not exist/);
  });
});

describe('lockcloud migrate on SQLite', () => {
  it('migrates the data directory, then says it is up to date; a missing directory exits 2', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lockcloud-migrate-'));
    try {
      const first = await runMigrate(['--data', dir]);
      assert.equal(first.code, 0, first.stderr);
      assert.deepEqual(
        first.stdout.trim().split('\n').slice(1),
        NAMES.map((name) => `  ${name}`),
      );
      const second = await runMigrate([], { LOCKCLOUD_DATA: dir });
      assert.equal(second.code, 0, second.stderr);
      assert.equal(second.stdout, `SQLite in ${dir} is already up to date\n`);
      const missing = await runMigrate(['--data', join(dir, 'nope')]);
      assert.equal(missing.code, 2);
      assert.match(missing.stderr, /no data directory at/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
