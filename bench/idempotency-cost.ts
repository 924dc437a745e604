/**
 * Issue 21, point 5: what an Idempotency-Key costs the v3 command path, in one run. Three servers'
 * worth of the same flow (bench/lib/commands.ts: POST /public/lock/{id}, then action-result until
 * terminated, 1,000 zero-latency simulated locks, 50 clients): the baseline (the source of the commit
 * this branch started from, or BENCH_BASELINE=<rev>, extracted with `git archive`) without the header,
 * this tree without the header, and this tree with a new key on every command (the claim and its
 * task: one more statement in the same commit). Interleaved rounds; each ratio is the median of
 * the rounds' own ratios (the variants of one round run back to back, under the same load on a
 * shared machine). The POST's own round trip is reported beside the whole command's rate.
 */
import { execFileSync } from 'node:child_process';
import { openPostgresStore } from '../src/adapters/stores/postgres/open.ts';
import { openSqliteStore } from '../src/adapters/stores/sqlite/open.ts';
import type { Store } from '../src/app/ports.ts';
import { V3_LIMITED_ENDPOINTS } from '../src/domain/rate-limit.ts';
import { createTestDatabase } from '../test/support/postgres.ts';
import { cpuText, type FlowResult, failureText, runCommands } from './lib/commands.ts';
import { HttpClient } from './lib/load.ts';
import { archiveCheckout, tempDir } from './lib/processes.ts';
import {
  durations,
  fmtMs,
  fmtRate,
  fmtRatio,
  markdownTable,
  median,
  progress,
  QUICK,
  quantile,
  report,
} from './lib/report.ts';
import { type Rig, startRig } from './lib/rig.ts';

const { seconds, rounds } = durations({ seconds: 5, rounds: 5 }, { seconds: 2, rounds: 1 });
const CLIENTS = 50;
const WARM_SECONDS = 3;
// With the header the store does a claim and a completion more per command; a tenth of the
// command rate is the most that may cost (the budget for events, applied here too).
const MAX_COST = 0.1;

function git(args: readonly string[]): string {
  return execFileSync('git', args, { encoding: 'utf8' }).trim();
}

/** The baseline's source tree: `rev` extracted into a temporary directory, with this node_modules. */
const baselineRev = git([
  'rev-parse',
  '--short',
  // By default the commit before this bench came: the tree without Idempotency-Key.
  process.env.BENCH_BASELINE ??
    `${git(['log', '--diff-filter=A', '--format=%h', '--', 'bench/idempotency-cost.ts'])}^`,
]);
const headRev = git(['rev-parse', '--short', 'HEAD']);
progress(`baseline: ${baselineRev}; this tree: ${headRev}`);

const shape = {
  broker: 'embedded',
  accounts: 10,
  accessPointsPerAccount: 10,
  locksPerAccessPoint: 10,
} as const;
const rigs: Record<'baseline' | 'current', Rig> = {
  // The baseline's rate-limits file names only v3's endpoints: it refuses a file naming endpoints it
  // does not have (the /ext routes made since), and this bench loads v3 alone.
  baseline: await startRig({
    ...shape,
    serverRoot: { dir: archiveCheckout(baselineRev), limitedEndpoints: V3_LIMITED_ENDPOINTS },
  }),
  current: await startRig(shape),
};

interface Variant {
  readonly label: string;
  readonly rig: 'baseline' | 'current';
  readonly keys: boolean;
}
const VARIANTS: readonly Variant[] = [
  { label: `baseline (${baselineRev}), no header`, rig: 'baseline', keys: false },
  { label: `this tree (${headRev}), no header`, rig: 'current', keys: false },
  { label: `this tree (${headRev}), Idempotency-Key on every command`, rig: 'current', keys: true },
];

const clients = {
  baseline: new HttpClient(rigs.baseline.server.url, CLIENTS),
  current: new HttpClient(rigs.current.server.url, CLIENTS),
};
const run = (v: Variant, s: number): Promise<FlowResult> => {
  const rig = rigs[v.rig];
  return runCommands(
    clients[v.rig],
    rig.locks,
    CLIENTS,
    s,
    { server: rig.server.pid, sim: rig.sim.pid },
    {
      idempotencyKeys: v.keys,
    },
  );
};

for (const v of VARIANTS) {
  progress(`warming up: ${v.label}, ${WARM_SECONDS} s`);
  await run(v, WARM_SECONDS);
}
const results = new Map<Variant, FlowResult[]>(VARIANTS.map((v) => [v, []]));
for (let r = 0; r < rounds; r++) {
  // Each round in another order, so that no variant always runs first after a pause.
  const order = VARIANTS.map((_, i) => VARIANTS[(i + r) % VARIANTS.length] as Variant);
  for (const v of order) {
    progress(`round ${r + 1}/${rounds}: ${v.label}, ${seconds} s`);
    results.get(v)?.push(await run(v, seconds));
  }
}
clients.baseline.close();
clients.current.close();
await rigs.baseline.stop();
await rigs.current.stop();

const rate = (r: FlowResult): number => r.latencies.length / r.seconds;
const medianRate = (v: Variant): number => median((results.get(v) ?? []).map(rate));
const [baseline, plain, keyed] = VARIANTS as [Variant, Variant, Variant];
/** The median over rounds of one variant's rate over another's in the same round. */
const pairedRatio = (a: Variant, b: Variant): number => {
  const as = results.get(a) ?? [];
  const bs = results.get(b) ?? [];
  return median(as.map((r, i) => rate(r) / rate(bs[i] as FlowResult)));
};
const rows = VARIANTS.map((v) => {
  const rs = results.get(v) ?? [];
  const posts = rs.flatMap((r) => r.postLatencies);
  const failures = new Map<string, number>();
  for (const r of rs) for (const [why, n] of r.failures) failures.set(why, (failures.get(why) ?? 0) + n);
  return [
    v.label,
    String(rs.reduce((n, r) => n + r.latencies.length, 0)),
    `${fmtRate(medianRate(v))}/s`,
    fmtRatio(pairedRatio(v, baseline)),
    fmtMs(quantile(posts, 0.5)),
    fmtMs(quantile(posts, 0.99)),
    failureText(failures),
    rs[rs.length - 1] ? cpuText((rs[rs.length - 1] as FlowResult).cpu) : '',
  ];
});
// ---- The store's part alone, in process: what the key adds to making a task, without HTTP, the
// simulator or the device link, whose noise on a shared machine is larger than the difference.
const STORE_ROUNDS = QUICK ? 2 : 6;
const STORE_ROUND_MS = QUICK ? 300 : 1000;

/** Makes and ends tasks one after another for `ms`, each under a new key or none; tasks made a second. */
async function storeRound(store: Store, keyed: boolean, ms: number, tag: string): Promise<number> {
  const t0 = performance.now();
  let n = 0;
  for (; performance.now() - t0 < ms; n++) {
    const now = Date.now();
    const id = `${tag}-${n}`;
    const task = { id, accountId: 'acc', deviceId: `dev-${n % 100}`, command: 'unlock' as const };
    const key = keyed
      ? {
          accountId: 'acc',
          keyHash: `key-${id}`,
          fingerprint: '[]',
          createdAt: now,
          expiresAt: now + 86_400_000,
        }
      : undefined;
    await store.tasks.createProcessing(
      { ...task, status: 'processing', createdAt: now, deadline: now + 15_000 },
      key === undefined ? {} : { key },
    );
    await store.tasks.terminate(id, { successful: true }, now);
  }
  return (n / (performance.now() - t0)) * 1000;
}

async function storeCost(label: string, store: Store): Promise<string[]> {
  await storeRound(store, false, STORE_ROUND_MS, `${label}-warm-a`);
  await storeRound(store, true, STORE_ROUND_MS, `${label}-warm-b`);
  const ratios: number[] = [];
  const plainRates: number[] = [];
  const keyedRates: number[] = [];
  for (let r = 0; r < STORE_ROUNDS; r++) {
    // Alternating which goes first, so neither always follows the other's writes.
    const keyedFirst = r % 2 === 0;
    const a = await storeRound(store, keyedFirst, STORE_ROUND_MS, `${label}-${r}-a`);
    const b = await storeRound(store, !keyedFirst, STORE_ROUND_MS, `${label}-${r}-b`);
    const [k, p] = keyedFirst ? [a, b] : [b, a];
    plainRates.push(p);
    keyedRates.push(k);
    ratios.push(k / p);
  }
  return [
    label,
    `${fmtRate(median(plainRates))}/s`,
    `${fmtRate(median(keyedRates))}/s`,
    fmtRatio(median(ratios)),
  ];
}

progress('the store alone: SQLite, then PostgreSQL');
const storeRows: string[][] = [];
const sqliteDir = tempDir();
const sqlite = await openSqliteStore(sqliteDir);
storeRows.push(await storeCost('SQLite (WAL, a file in the temporary directory)', sqlite));
await sqlite.close();
try {
  const pgDb = await createTestDatabase();
  try {
    const pg = await openPostgresStore(pgDb.url, { poolSize: 4 });
    storeRows.push(await storeCost('PostgreSQL (127.0.0.1)', pg));
    await pg.close();
  } finally {
    await pgDb.drop();
  }
} catch (error) {
  storeRows.push(['PostgreSQL', `not measured: ${(error as Error).message}`, '', '']);
}
const storeTable = markdownTable(
  ['store', 'task made and ended, no key', 'with a new key each', 'with over without (median of rounds)'],
  storeRows,
);

const withoutHeader = pairedRatio(plain, baseline);
const withHeader = pairedRatio(keyed, plain);
const clean = VARIANTS.every((v) => (results.get(v) ?? []).every((r) => r.failures.size === 0));

report({
  name: 'idempotency-cost',
  title:
    'Idempotency-Key on POST /public/lock/{id}: commands/s against the baseline (bench/idempotency-cost.ts)',
  columns: [
    'server, request',
    'commands',
    'commands/s (median of rounds)',
    'vs. baseline (median of rounds)',
    'POST p50',
    'POST p99',
    'failed',
    'CPU (last round)',
  ],
  rows,
  targets: [
    {
      point: '21.5',
      what: 'commands/s without the header, this tree over the baseline',
      target: `≥ ${fmtRatio(1 - MAX_COST)}`,
      measured: fmtRatio(withoutHeader),
      met: withoutHeader >= 1 - MAX_COST && clean,
    },
    {
      point: '21.5',
      what: 'commands/s with a key on every command over without it, this tree',
      target: `≥ ${fmtRatio(1 - MAX_COST)}`,
      measured: fmtRatio(withHeader),
      met: withHeader >= 1 - MAX_COST && clean,
    },
  ],
  sections: [
    {
      title: 'The store alone: making and ending a task with and without a key, one at a time, in process',
      body: `${storeTable}\n\n${STORE_ROUNDS} alternating rounds of ${STORE_ROUND_MS} ms each after a warm-up; one task at a time over 100 locks, each made and then ended (two writes). With a key the task is made in a transaction with the key's record (BEGIN, the key's insert, the task's insert, COMMIT): one commit as without, three statements more.`,
    },
  ],
  notes: [
    `${rounds} round(s) of ${seconds} s per variant after a ${WARM_SECONDS} s warm-up each, the variants in a rotating order; ${CLIENTS} clients over 1,000 locks (10 accounts), the embedded broker, SQLite; both servers run at once (the idle one only keeps its devices' links).`,
    'A command is counted from sending the POST to reading its terminated result; "POST" is the POST alone. With the header each command has a key of its own (UUID), the common case: a repeat answers from the key record without a task.',
    'The baseline is the commit this branch started from (git merge-base HEAD main), run from a `git archive` of it; BENCH_BASELINE=<rev> picks another.',
  ],
});
process.exit(0);
