/**
 * Point 5 of issues 10 and 25, the store: GET /public/lock/{id} throughput with 1,000,000 accounts
 * (each with an API key and a lock) in the store against 100, measured in the same run (issue 10
 * asked 100,000; `BENCH_SCALE_ACCOUNTS` sets another count). Both data directories
 * start from the same seed (100 accounts, keys and locks, loaded by the server's own seed loader);
 * the large one then gets the rest of each written straight into its SQLite file in one
 * transaction (the seed file would hash and insert row by row for minutes). Both servers run as
 * processes of their own, without simulated devices, with a rate-limits file nothing can exhaust;
 * autocannon alternates between them, and the ratio is the median of the per-round ratios.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Insertable } from 'kysely';
import type { AccountsTable, ApiKeysTable, LocksTable } from '../src/adapters/stores/sql/tables.ts';
import {
  BetterSqlite3,
  type SqliteConnection,
  type SqliteStatement,
} from '../src/adapters/stores/sqlite/better-sqlite3.ts';
import { SQLITE_FILE_NAME } from '../src/adapters/stores/sqlite/open.ts';
import { SEED_CREATED_AT } from '../src/app/seed/load.ts';
import { startInProcess } from './lib/in-process.ts';
import { autocannon, cpuNote, type LoadResult, pinNote } from './lib/load.ts';
import { hugeRateLimits, startLockcloud, tempDir } from './lib/processes.ts';
import { durations, fmtMb, fmtMs, fmtRate, fmtRatio, median, progress, QUICK, report } from './lib/report.ts';
import { benchEmail, benchKey } from './lib/rig.ts';

const { seconds, rounds } = durations({ seconds: 3, rounds: 3 }, { seconds: 2, rounds: 1 });
const BASE = 100;
const LARGE = Number(process.env.BENCH_SCALE_ACCOUNTS ?? 1_000_000);
const LARGE_TEXT = LARGE.toLocaleString('en-US');
const PROBE_LOCK = '00000000-0000-4000-8000-000000000000';
const dir = tempDir();

/** A data directory holding the base seed, loaded by the server's own loader, then closed. */
async function baseStore(name: string): Promise<string> {
  const data = join(dir, name);
  const seedFile = join(dir, `${name}-seed.json`);
  writeFileSync(
    seedFile,
    JSON.stringify({
      accounts: Array.from({ length: BASE }, (_, i) => ({ email: benchEmail(i), password: null })),
      api_keys: Array.from({ length: BASE }, (_, i) => ({ account: benchEmail(i), key: benchKey(i) })),
      locks: Array.from({ length: BASE }, (_, i) => ({
        device_id: `00000000-0000-4000-8000-${i.toString(16).padStart(12, '0')}`,
        owner: benchEmail(i),
      })),
    }),
  );
  const server = await startInProcess(data, seedFile, ['--no-simulator']);
  await server.close();
  return data;
}

/** Inserts a row whose keys are the columns; one prepared statement per table. */
function inserter(db: SqliteConnection): (table: string, row: object) => void {
  const statements = new Map<string, SqliteStatement>();
  return (table, row) => {
    let insert = statements.get(table);
    if (!insert) {
      const columns = Object.keys(row);
      insert = db.prepare(
        `INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map((k) => `@${k}`).join(', ')})`,
      );
      statements.set(table, insert);
    }
    insert.run(row);
  };
}

/** LARGE - BASE more accounts, each with an API key and a lock, as the stores' own rows. */
function grow(data: string): void {
  const db = new BetterSqlite3(join(data, SQLITE_FILE_NAME));
  db.pragma('journal_mode = WAL');
  // Random UUID keys land all over each index: a cache that holds them all keeps this in memory.
  db.pragma('cache_size = -262144');
  // Every row refers to one made just before it; a bulk load need not check nor fsync that.
  db.pragma('foreign_keys = OFF');
  db.pragma('synchronous = OFF');
  const insert = inserter(db);
  db.transaction(() => {
    for (let i = BASE; i < LARGE; i++) {
      const accountId = randomUUID();
      const account: AccountsTable = {
        id: accountId,
        email: `scale-${i}@example.com`,
        password_hash: null,
        verified: 1,
        deleted_at: null,
        password_changed_at: null,
        created_at: SEED_CREATED_AT,
      };
      const key: ApiKeysTable = {
        id: randomUUID(),
        account_id: accountId,
        key_hash: createHash('sha256').update(randomBytes(24)).digest('hex'),
        prefix: `lck_${i.toString(36).padStart(6, '0')}`,
        created_at: SEED_CREATED_AT,
        last_used_at: null,
        // Full access, as every key had before scopes (migration 017).
        scopes: null,
        lock_ids: null,
        expires_at: null,
        name: null,
        last_used_ip: null,
      };
      const serial = `SCALE${i.toString().padStart(6, '0')}`;
      const lock: Insertable<LocksTable> = {
        device_id: randomUUID(),
        serial,
        nickname: `Lock ${serial}`,
        owner_id: accountId,
        locked: 1,
        battery: 100,
        responsive: 1,
        integration: 1,
        access_point: 1,
        app_open: 0,
        created_at: SEED_CREATED_AT + i,
        ap_id: null,
        report_ap: null,
        report_epoch: null,
        report_seq: null,
        door: null,
        firmware: null,
        last_seen_at: null,
        offline_since: null,
      };
      insert('accounts', account);
      insert('api_keys', key);
      insert('locks', lock);
    }
  })();
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
}

progress(`building two stores: ${BASE} accounts, and ${LARGE_TEXT}`);
const [small, large] = [await baseStore('small'), await baseStore('large')];
const t0 = performance.now();
grow(large);
const growSeconds = (performance.now() - t0) / 1000;
const sizeOf = (data: string): number => statSync(join(data, SQLITE_FILE_NAME)).size;

const limits = hugeRateLimits(dir);
const servers = await Promise.all(
  [small, large].map((data) => startLockcloud(['--data', data, '--rate-limits', limits, '--no-simulator'])),
);
const [smallServer, largeServer] = servers as [(typeof servers)[0], (typeof servers)[0]];
const path = `/public/lock/${PROBE_LOCK}`;
const headers = { authorization: benchKey(0) };
const run = (server: typeof smallServer, s: number): Promise<LoadResult> =>
  autocannon({ url: server.url + path, headers, seconds: s, serverPid: server.pid });

// A fresh server needs seconds of load before V8 has compiled its hot path.
const warmSeconds = QUICK ? 4 : 5;
progress(`warming up both servers for ${warmSeconds} s`);
await run(smallServer, warmSeconds);
await run(largeServer, warmSeconds);
const results: { small: LoadResult[]; large: LoadResult[] } = { small: [], large: [] };
for (let r = 0; r < rounds; r++) {
  progress(`round ${r + 1} of ${rounds}`);
  for (const [name, server] of [
    ['small', smallServer],
    ['large', largeServer],
  ] as const) {
    const result = await run(server, seconds);
    if (result.bad > 0) throw new Error(`${name} store: ${result.bad} bad answers`);
    results[name].push(result);
  }
}
await Promise.all(servers.map((s) => s.stop()));

/** Requests answered per CPU-second the server used: steadier than req/s when the machine is shared. */
const perCpu = (r: LoadResult): number => r.rps / Math.max(r.serverCores, 1e-9);
const ratioOf = (figure: (r: LoadResult) => number): number =>
  median(results.large.map((l, i) => figure(l) / (results.small[i] ? figure(results.small[i]) : Number.NaN)));
const ratio = ratioOf((r) => r.rps);
const cpuRatio = ratioOf(perCpu);
const row = (label: string, rs: LoadResult[], size: number, r: string, rc: string): string[] => [
  label,
  fmtMb(size),
  fmtRate(median(rs.map((x) => x.rps))),
  fmtMs(median(rs.map((x) => x.p50))),
  fmtMs(median(rs.map((x) => x.p99))),
  r,
  fmtRate(median(rs.map(perCpu))),
  rc,
  rs[0] ? cpuNote(rs[0]) : '',
];
report({
  name: 'scale-store',
  title: `5. Scale: GET /public/lock/{id} with ${LARGE_TEXT} accounts and locks in the store vs 100 (bench/scale-store.ts)`,
  columns: [
    'store',
    'SQLite file',
    'req/s',
    'p50',
    'p99',
    'ratio',
    'req per server CPU-second',
    'its ratio',
    'CPU during the first run',
  ],
  rows: [
    row(`${BASE} accounts, keys, locks (baseline)`, results.small, sizeOf(small), '1.00', '1.00'),
    row(
      `${LARGE_TEXT} accounts, keys, locks`,
      results.large,
      sizeOf(large),
      fmtRatio(ratio),
      fmtRatio(cpuRatio),
    ),
  ],
  targets: [
    {
      point: '5',
      what: `read throughput, ${LARGE_TEXT} accounts and locks vs 100`,
      target: '≥ 0.95',
      measured: `${fmtRatio(ratio)} (per server CPU-second: ${fmtRatio(cpuRatio)})`,
      met: ratio >= 0.95,
    },
  ],
  notes: [
    pinNote([...results.small, ...results.large]),
    `autocannon -c 50, ${seconds} s a run, ${rounds} interleaved round(s) after ${warmSeconds} s of warm-up each; the large store's extra ${(LARGE - BASE).toLocaleString('en-US')} rows of each table were written in ${growSeconds.toFixed(1)} s.`,
  ],
});
process.exit(0);
