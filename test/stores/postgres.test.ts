import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import {
  migratePostgres,
  openCachedPostgresStore,
  openPostgresStore,
} from '../../src/adapters/stores/postgres/open.ts';
import { migrationProvider } from '../../src/adapters/stores/sql/migrations/index.ts';
import { DATA_TABLES } from '../../src/adapters/stores/sql/tables.ts';
import type { Store } from '../../src/app/ports.ts';
import { createTestDatabase, type TestDatabase } from '../support/postgres.ts';
import { clusterStoreContract } from './cluster-contract.ts';
import { commandEventStoreContract } from './command-event-contract.ts';
import { dashboardStoreContract } from './dashboard-contract.ts';
import { endpointStoreContract } from './endpoint-contract.ts';
import { eventStoreContract } from './event-contract.ts';
import { freshnessStoreContract, type SharedStoreFactory } from './freshness-contract.ts';
import { grantStoreContract } from './grant-contract.ts';
import { healthStoreContract } from './health-contract.ts';
import { idempotencyStoreContract } from './idempotency-contract.ts';
import { apiKeyStoreContract } from './key-contract.ts';
import { oauthStoreContract } from './oauth-contract.ts';
import { offlineStoreContract } from './offline-contract.ts';
import { storeContract } from './store-contract.ts';

/** One statement on `url` through a connection of its own. */
async function query<R extends pg.QueryResultRow>(url: string, text: string): Promise<R[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<R>(text)).rows;
  } finally {
    await client.end();
  }
}

const MIGRATION_NAMES = Object.keys(await migrationProvider.getMigrations()).sort();

// One database for the contract suites, emptied before each test: every open() also re-runs the
// migrator on an up-to-date schema, which must then do nothing.
let shared: TestDatabase;
before(async () => {
  shared = await createTestDatabase();
});
after(() => shared.drop());

/** The shared database emptied, through a connection of its own, as another process would. */
async function emptied<S extends Store>(store: S): Promise<S> {
  const tables = [...DATA_TABLES, 'meta'].map((t) => `"${t}"`).join(', ');
  await query(shared.url, `TRUNCATE ${tables} CASCADE`);
  return store;
}

const postgresFactory: SharedStoreFactory = {
  open: async () => emptied(await openPostgresStore(shared.url, { poolSize: 4 })),
  // Another server process: a pool of its own on the same database.
  another: () => openPostgresStore(shared.url, { poolSize: 2 }),
  cleanup: (store: Store) => store.close(),
};
// What a server runs on: the read cache in front, told of other processes' commits by LISTEN
// (adapters/stores/postgres/commits-elsewhere.ts). Its "other process" is a plain pool, as the
// admin CLI's; the TRUNCATE above is another process's commit too.
const cachedFactory: SharedStoreFactory = {
  open: async () => emptied(await openCachedPostgresStore(shared.url, { poolSize: 4 })),
  another: postgresFactory.another,
  cleanup: postgresFactory.cleanup,
};
for (const [backend, factory] of [
  ['PostgreSQL', postgresFactory],
  ['PostgreSQL, read-cached', cachedFactory],
] as const) {
  storeContract(backend, factory);
  dashboardStoreContract(backend, factory);
  clusterStoreContract(backend, factory);
  freshnessStoreContract(backend, factory, { concurrentWriters: true });
  healthStoreContract(backend, factory);
  offlineStoreContract(backend, factory, { concurrentWriters: true });
  eventStoreContract(backend, factory);
  commandEventStoreContract(backend, factory);
  endpointStoreContract(backend, factory);
  grantStoreContract(backend, factory);
  apiKeyStoreContract(backend, factory);
  oauthStoreContract(backend, factory);
  idempotencyStoreContract(backend, factory, { acrossConnections: true });
}

describe('PostgreSQL store specifics', () => {
  it('migrates a fresh database once; opening it again changes nothing and keeps the data', async () => {
    const db = await createTestDatabase();
    try {
      assert.deepEqual(await migratePostgres(db.url), MIGRATION_NAMES);
      const store = await openPostgresStore(db.url);
      await store.setMeta('kept', 'yes');
      await store.close();
      assert.deepEqual(await migratePostgres(db.url), []);
      const again = await openPostgresStore(db.url);
      assert.equal(await again.getMeta('kept'), 'yes');
      await again.close();
      const applied = await query<{ name: string }>(
        db.url,
        'SELECT name FROM kysely_migration ORDER BY name',
      );
      assert.deepEqual(
        applied.map((row) => row.name),
        MIGRATION_NAMES,
      );
    } finally {
      await db.drop();
    }
  });

  it('lets three processes open a fresh database together: the schema is migrated exactly once', async () => {
    const db = await createTestDatabase();
    try {
      // Separate pools, as separate processes would have; the migrator's advisory lock orders them.
      const stores = await Promise.all([1, 2, 3].map(() => openPostgresStore(db.url, { poolSize: 2 })));
      await Promise.all(stores.map((store, i) => store.setMeta(`opened-${i}`, 'yes')));
      assert.equal(await stores[0]?.getMeta('opened-2'), 'yes');
      await Promise.all(stores.map((store) => store.close()));
      const applied = await query<{ name: string }>(
        db.url,
        'SELECT name FROM kysely_migration ORDER BY name',
      );
      assert.deepEqual(
        applied.map((row) => row.name),
        MIGRATION_NAMES,
      );
    } finally {
      await db.drop();
    }
  });

  it('reads bigint columns and counts as numbers, past 2^31', async () => {
    const store = await postgresFactory.open();
    try {
      const now = 1_767_225_600_123; // 2026-01-01, in epoch milliseconds
      await store.accounts.insert({
        id: 'acc-big',
        email: 'big@example.com',
        passwordHash: null,
        verified: true,
        deletedAt: null,
        passwordChangedAt: now,
        createdAt: now,
      });
      const account = await store.accounts.findById('acc-big');
      assert.equal(account?.createdAt, now);
      assert.equal(account?.passwordChangedAt, now);
      const snapshot = await store.snapshot();
      assert.equal(snapshot.accounts?.[0]?.created_at, now, 'a snapshot holds numbers, as on SQLite');
      assert.equal(await store.isEmpty(), false);
    } finally {
      await postgresFactory.cleanup(store);
    }
  });

  it('looks API keys up through the unique index on their hash (O(1) in the number of keys)', async () => {
    const store = await postgresFactory.open();
    await store.close();
    // Enough rows that a sequential scan would cost more than the index, and fresh statistics.
    await query(
      shared.url,
      `INSERT INTO accounts (id, email, verified, created_at)
         SELECT 'a' || i, 'a' || i || '@example.com', 1, i FROM generate_series(1, 2000) AS i;
       INSERT INTO api_keys (id, account_id, key_hash, prefix, created_at)
         SELECT 'k' || i, 'a' || i, 'hash-' || i, 'lck_', i FROM generate_series(1, 2000) AS i;
       ANALYZE accounts; ANALYZE api_keys;`,
    );
    const plan = await query<{ 'QUERY PLAN': string }>(
      shared.url,
      "EXPLAIN SELECT * FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE k.key_hash = 'hash-7'",
    );
    const text = plan.map((row) => row['QUERY PLAN']).join('\n');
    assert.match(text, /Index Scan using api_keys_key_hash_key on api_keys k/);
    assert.match(text, /Index Cond: \(key_hash = 'hash-7'::text\)/);
    assert.match(text, /Index Scan using accounts_pkey on accounts a/);
    assert.doesNotMatch(text, /Seq Scan/);
  });

  it('takes text holding U+0000 as SQLite does: a lookup finds nothing, a write succeeds', async () => {
    const store = await postgresFactory.open();
    try {
      // PostgreSQL text cannot hold U+0000; unhandled, each of these would fail the query (a 500).
      await store.accounts.insert({
        id: 'acc-nul',
        email: 'nul@example.com',
        passwordHash: null,
        verified: true,
        deletedAt: null,
        passwordChangedAt: null,
        createdAt: 1,
      });
      assert.equal(await store.accounts.findByEmail('nul\u0000@example.com'), undefined);
      assert.equal(await store.tasks.get('task\u0000'), undefined);
      assert.equal(await store.deliveries.get('acc-nul', 'x\u0000'), undefined);
      await store.webhooks.set({
        accountId: 'acc-nul',
        url: 'http://a.example/\u0000',
        method: 'POST',
        retries: false,
      });
      assert.equal((await store.webhooks.get('acc-nul'))?.url, 'http://a.example/\uFFFD');
      await store.locks.insert({
        deviceId: 'dev-nul',
        serial: 'S',
        nickname: 'a\u0000b',
        ownerId: 'acc-nul',
        locked: true,
        battery: 1,
        responsive: true,
        integration: true,
        accessPoint: true,
        appOpen: false,
        accessPointId: null,
        createdAt: 1,
      });
      assert.deepEqual(
        (await store.locks.listOwnedBy('acc-nul')).map((l) => l.nickname),
        ['a\uFFFDb'],
      );
    } finally {
      await postgresFactory.cleanup(store);
    }
  });

  it('fails to open, soon and with the reason, when nothing answers at the URL', async () => {
    await assert.rejects(
      openPostgresStore('postgres://postgres@127.0.0.1:1/none', { connectTimeoutMs: 2_000 }),
      /ECONNREFUSED|connect/,
    );
  });
});
