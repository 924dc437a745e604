/**
 * Issue 21, "Measured": listing one lock's latest 50 events in a log of 10 million events runs at
 * least 0.95 of the rate in a log of 10,000. Two SQLite stores made by the server's own migrations,
 * their event logs filled by one recursive CTE each (10,000 locks of 1,000 accounts, events spread
 * over them; the indexes built after the rows, as a bulk load would), then the store's own query
 * (SqlEventStore.list: newest-first, limit 51, as GET /ext/events?device_id=...&order=newest-first
 * asks it) run in a loop over a few locks, alternating the two stores, in this process.
 *
 * EVENTS_LIST_BIG sets the large log's size (default 10,000,000).
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { BetterSqlite3 } from '../src/adapters/stores/sqlite/better-sqlite3.ts';
import { openSqliteStore, SQLITE_FILE_NAME } from '../src/adapters/stores/sqlite/open.ts';
import type { Store } from '../src/app/ports.ts';
import { tempDir } from './lib/processes.ts';
import { durations, fmtRate, fmtRatio, median, progress, report, type Target } from './lib/report.ts';

const BIG = Number(process.env.EVENTS_LIST_BIG ?? 10_000_000);
const SMALL = 10_000;
/** Locks in each log: a lock of either has more events than a page (100 and 1,000 by default). */
const LOCKS = { small: 100, big: 10_000 } as const;
const ACCOUNTS = 100;
const { seconds, rounds } = durations({ seconds: 3, rounds: 5 }, { seconds: 2, rounds: 3 });
const TARGET = 0.95;
const T0 = 1_767_225_600_000;

/** A store whose log holds `count` events, one every 10 ms from T0, of lock i % locks, in its owner's log. */
async function filled(
  count: number,
  locks: number,
): Promise<{ store: Store; dir: string; fillSeconds: number; bytes: number }> {
  const dir = tempDir();
  await (await openSqliteStore(dir)).close();
  const started = performance.now();
  const db = new BetterSqlite3(join(dir, SQLITE_FILE_NAME));
  db.pragma('journal_mode = OFF');
  db.pragma('synchronous = OFF');
  db.exec('DROP INDEX events_device; DROP INDEX events_account; DROP INDEX events_seq;');
  db.prepare(
    `WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
     INSERT INTO events (id, type, occurred_at, account_id, device_id, actor_kind, actor_account_id,
                         actor_key_prefix, method, task_id, data, seq)
     SELECT printf('evt_%012x%06x%010x', ? + i * 10, 0, i),
            CASE i % 4 WHEN 0 THEN 'lock.locked' WHEN 1 THEN 'command.requested'
                       WHEN 2 THEN 'lock.unlocked' ELSE 'command.succeeded' END,
            ? + i * 10,
            'acc-' || ((i % ${locks}) % ${ACCOUNTS}),
            'dev-' || (i % ${locks}),
            CASE i % 2 WHEN 0 THEN 'device' ELSE 'api_key' END,
            CASE i % 2 WHEN 0 THEN NULL ELSE 'acc-' || ((i % ${locks}) % ${ACCOUNTS}) END,
            CASE i % 2 WHEN 0 THEN NULL ELSE 'lck_abcdef' END,
            CASE i % 2 WHEN 0 THEN 'manual' ELSE 'api_v3' END,
            NULL,
            '{}',
            i + 1
       FROM n`,
  ).run(count - 1, T0, T0);
  // The migration's own indexes, built once over the rows.
  db.exec(
    `CREATE INDEX events_device ON events (device_id, id); CREATE INDEX events_account ON events (account_id, id);
     CREATE UNIQUE INDEX events_seq ON events (seq); UPDATE event_sequence SET value = ${count}; ANALYZE;`,
  );
  db.close();
  const fillSeconds = (performance.now() - started) / 1000;
  const bytes = Number(
    new BetterSqlite3(join(dir, SQLITE_FILE_NAME), { readonly: true })
      .prepare('SELECT page_count * page_size AS b FROM pragma_page_count(), pragma_page_size()')
      .pluck()
      .get(),
  );
  return { store: await openSqliteStore(dir), dir, fillSeconds, bytes };
}

/** Lists one lock's latest 50 for `seconds`, cycling over a few locks of different accounts. */
async function rate(store: Store, secs: number): Promise<{ perSecond: number; listed: number }> {
  const locks = [0, 1, 7, 42, 99].map((d) => ({ device: `dev-${d}`, reader: `acc-${d % ACCOUNTS}` }));
  let n = 0;
  let listed = 0;
  const end = performance.now() + secs * 1000;
  const started = performance.now();
  while (performance.now() < end) {
    for (let k = 0; k < 100; k++) {
      const lock = locks[n++ % locks.length];
      if (!lock) continue;
      const page = await store.events.list({
        readerId: lock.reader,
        deviceId: lock.device,
        limit: 51,
        order: 'newest-first',
      });
      listed = page.length;
    }
  }
  return { perSecond: n / ((performance.now() - started) / 1000), listed };
}

progress(`filling a log of ${SMALL.toLocaleString('en-US')} events`);
const small = await filled(SMALL, LOCKS.small);
progress(`filling a log of ${BIG.toLocaleString('en-US')} events (this takes a while)`);
const big = await filled(BIG, LOCKS.big);
progress('warming up');
await rate(small.store, 1);
await rate(big.store, 1);
const rates = { small: [] as number[], big: [] as number[] };
const rows: string[][] = [];
for (let round = 1; round <= rounds; round++) {
  progress(`round ${round} of ${rounds}`);
  const s = await rate(small.store, seconds);
  const b = await rate(big.store, seconds);
  rates.small.push(s.perSecond);
  rates.big.push(b.perSecond);
  rows.push([String(round), fmtRate(s.perSecond), fmtRate(b.perSecond), fmtRatio(b.perSecond / s.perSecond)]);
  if (s.listed !== 51 || b.listed !== 51)
    throw new Error(`listed ${s.listed} and ${b.listed} events, not 51`);
}
await small.store.close();
await big.store.close();
rmSync(big.dir, { recursive: true, force: true });

const ratio = median(rates.big) / median(rates.small);
const targets: Target[] = [
  {
    point: 'measured 3',
    what: `one lock's latest 50 events, log of ${BIG.toLocaleString('en-US')} ÷ log of ${SMALL.toLocaleString('en-US')} (lists/s, medians)`,
    target: `≥ ${TARGET}`,
    measured: `${fmtRatio(ratio)} (${fmtRate(median(rates.big))} ÷ ${fmtRate(median(rates.small))} lists/s)`,
    met: ratio >= TARGET,
  },
];
report({
  name: 'events-list',
  title: "21. One lock's latest 50 events in a log of 10 million vs 10,000 (bench/events-list.ts)",
  columns: [
    'round',
    `lists/s, ${SMALL.toLocaleString('en-US')} events`,
    `lists/s, ${BIG.toLocaleString('en-US')} events`,
    'ratio',
  ],
  rows,
  targets,
  notes: [
    `SQLite, the store's own query (SqlEventStore.list through Kysely, newest-first, 51 rows: one more than the page, as GET /ext/events asks) over 5 locks of 5 accounts, ${seconds} s per store per round, alternating. The large log: ${(big.bytes / 2 ** 30).toFixed(1)} GiB on disk, filled in ${big.fillSeconds.toFixed(0)} s by one recursive CTE (indexes built after the rows).`,
    `Each list reads 51 rows in both: the small log spreads its events over ${LOCKS.small} locks (${SMALL / LOCKS.small} each), the large one over ${LOCKS.big.toLocaleString('en-US')} (${(BIG / LOCKS.big).toLocaleString('en-US')} each); ${ACCOUNTS} accounts own them.`,
  ],
});
process.exit(0);
