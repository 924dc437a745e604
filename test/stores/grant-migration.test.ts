/**
 * Migration 017 (issue 23) on data made before it, on both backends: shares become accepted view
 * grants, keys keep full access (no row rewritten), locks read in UTC. The schema is brought to 016,
 * rows are written as the code of then wrote them, and the store is opened as a server opens it.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { Kysely, Migrator, SqliteDialect, sql } from 'kysely';
import { openPostgresStore, postgresKysely } from '../../src/adapters/stores/postgres/open.ts';
import { migrationProvider } from '../../src/adapters/stores/sql/migrations/index.ts';
import { BetterSqlite3 } from '../../src/adapters/stores/sqlite/better-sqlite3.ts';
import { openSqliteStore, SQLITE_FILE_NAME } from '../../src/adapters/stores/sqlite/open.ts';
import type { Store } from '../../src/app/ports.ts';
import { createTestDatabase } from '../support/postgres.ts';

const BEFORE = '016-sim-device-health';
const OWNER = 'acc-owner';
const GUEST = 'acc-guest';
const LOCK = '00000000-0000-4000-8000-000000000171';
const OTHER_LOCK = '00000000-0000-4000-8000-000000000172';

/** The schema as of 016, and rows as the code of then wrote them. */
async function before017(db: Kysely<unknown>): Promise<void> {
  const { error } = await new Migrator({ db, provider: migrationProvider }).migrateTo(BEFORE);
  if (error !== undefined) throw error;
  await sql`INSERT INTO accounts (id, email, verified, created_at) VALUES
    (${OWNER}, 'owner@example.com', 1, 1), (${GUEST}, 'guest@example.com', 1, 1)`.execute(db);
  for (const deviceId of [LOCK, OTHER_LOCK])
    await sql`INSERT INTO locks (device_id, serial, nickname, owner_id, locked, battery, responsive,
        integration, access_point, app_open, created_at)
      VALUES (${deviceId}, 'S', 'Door', ${OWNER}, 1, 90, 1, 1, 1, 0, 1)`.execute(db);
  await sql`INSERT INTO lock_shares (device_id, account_id) VALUES
    (${LOCK}, ${GUEST}), (${OTHER_LOCK}, ${GUEST})`.execute(db);
  await sql`INSERT INTO api_keys (id, account_id, key_hash, prefix, created_at, last_used_at)
    VALUES ('key-old', ${OWNER}, 'hash-old', 'lck_old', 5, 6)`.execute(db);
}

async function checkMigrated(store: Store, startedAt: number): Promise<void> {
  const grants = (await store.snapshot()).grants ?? [];
  assert.equal(grants.length, 2);
  for (const row of grants) {
    assert.equal(row.owner_id, OWNER);
    assert.equal(row.account_id, GUEST);
    assert.equal(row.role, 'view');
    assert.equal(row.state, 'accepted');
    assert.equal(row.one_time, 0);
    assert.deepEqual([row.starts_at, row.ends_at, row.schedule], [null, null, null]);
    assert.deepEqual([row.responded_at, row.used_at], [null, null]);
    assert.ok(Number(row.created_at) >= startedAt && Number(row.created_at) <= Date.now());
    assert.match(String(row.id), /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  }
  assert.notEqual(grants[0]?.id, grants[1]?.id);
  // The share keeps working as before: the guest sees both locks and may read their events.
  assert.equal(await store.locks.isSharedWith(LOCK, GUEST), true);
  assert.deepEqual(
    (await store.locks.listVisibleTo(GUEST)).map((l) => l.deviceId),
    [LOCK, OTHER_LOCK],
  );
  assert.deepEqual(await store.locks.sharesOf(LOCK), [{ accountId: GUEST, email: 'guest@example.com' }]);
  assert.equal((await store.locks.get(LOCK))?.timeZone, 'UTC');
  // A key from before limits keeps full access: all of them null, its row as it was.
  const key = await store.apiKeys.findByHash('hash-old');
  assert.deepEqual(key?.key, {
    id: 'key-old',
    accountId: OWNER,
    prefix: 'lck_old',
    createdAt: 5,
    lastUsedAt: 6,
    limits: { scopes: null, lockIds: null, expiresAt: null },
    name: null,
    lastUsedIp: null,
  });
}

describe('migration 017: shares become grants', () => {
  it('on SQLite', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lockcloud-017-'));
    try {
      const raw = new BetterSqlite3(join(dir, SQLITE_FILE_NAME));
      raw.pragma('foreign_keys = ON');
      const db = new Kysely<unknown>({ dialect: new SqliteDialect({ database: raw }) });
      await before017(db);
      await db.destroy();
      const startedAt = Date.now();
      const store = await openSqliteStore(dir);
      try {
        await checkMigrated(store, startedAt);
      } finally {
        await store.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('on PostgreSQL', async () => {
    const database = await createTestDatabase();
    try {
      const db = postgresKysely(database.url, { poolSize: 1 }) as unknown as Kysely<unknown>;
      await before017(db);
      await db.destroy();
      const startedAt = Date.now();
      const store = await openPostgresStore(database.url, { poolSize: 2 });
      try {
        await checkMigrated(store, startedAt);
      } finally {
        await store.close();
      }
    } finally {
      await database.drop();
    }
  });
});
