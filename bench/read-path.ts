/**
 * Points 1 and 6 of issue 10: the HTTP read path under load from autocannon (a process of its own,
 * 50 connections), against a bare node:http server answering a JSON body of the same size, started
 * in the same run. The server under test runs as `npm start` does (a process of its own, the
 * standard test seed, request logs off), with a rate-limits file whose budgets nothing here can
 * spend: the limiter runs on every request and refuses none. The same server with --no-rate-limit
 * gives the limiter's cost over HTTP, and one logging every request at info (to a file) the cost of
 * the default log level; a key limited to reading that one lock (issue 23) the cost of checking
 * a key's scope and locks against a full-access key's; an OAuth access token (issue 24) granted
 * the same, what a bearer token costs against an API key. Cases are interleaved round by round; each figure is the median of the
 * rounds, each ratio the median of the per-round ratios to the bare server's run next to it.
 * Issue 25 point 3: the same server on PostgreSQL (a database of its own each), with its read cache
 * (the default) and with --no-database-read-cache, for what the cache across processes buys.
 * `--profile`: afterwards, a CPU profile of the server under GET /public/lock/{id} alone.
 * BENCH_BASELINE=<commit>: also a server from that commit's tree and one more of this tree, started
 * alike and loaded with GET /public/lock/{id} alone, for what a change cost the read path measured in
 * the same run (issue 23: the tree before scoped keys).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createTestDatabase } from '../test/support/postgres.ts';
import { LOCK_A, OWNER_KEY, standardSeed } from '../test/support/server.ts';
import { bearerToken, scopedKey, v1Token } from './lib/credentials.ts';
import { autocannon, cpuNote, HttpClient, harnessNotes, type LoadResult, pinNote } from './lib/load.ts';
import {
  archiveCheckout,
  hugeRateLimits,
  type Lockcloud,
  type Proc,
  startLockcloud,
  startProcess,
  tempDir,
} from './lib/processes.ts';
import { profileSection } from './lib/profile.ts';
import {
  durations,
  fmtMs,
  fmtRate,
  fmtRatio,
  median,
  PROFILE_DIR,
  progress,
  QUICK,
  report,
  type Target,
} from './lib/report.ts';

const { seconds, rounds } = durations({ seconds: 3, rounds: 3 }, { seconds: 2, rounds: 1 });
const dir = tempDir();
const seedFile = join(dir, 'seed.json');
writeFileSync(seedFile, JSON.stringify(standardSeed()));
const limits = hugeRateLimits(dir);
const serverArgs = (name: string, ...flags: string[]): string[] => [
  '--data',
  join(dir, name),
  '--seed',
  seedFile,
  ...flags,
];

// The baseline's rate-limits file names only what every tree has had: v3's endpoints.
const V3_LIMITED = [
  'GET /public/locks',
  'GET /public/lock/{device_id}',
  'POST /public/lock/{device_id}',
  'GET /public/action-result',
  'POST /public/partners/automation',
];
const baseRev =
  process.env.BENCH_BASELINE === undefined
    ? undefined
    : execFileSync('git', ['rev-parse', '--short', process.env.BENCH_BASELINE], { encoding: 'utf8' }).trim();

progress('starting lockcloud (limiter on, off, on with info logs) and the bare server');
// With a baseline tree: this tree is started a second time exactly as that one is (the same flags,
// the same limits file) and loaded with the same single case. The server above serves every case,
// and V3's hot functions, having seen five kinds of request, run slower there than in a server that
// saw one (measured: 05d4866 against itself, 0.77): only like against like tells what a change cost.
const baselineLimits = baseRev === undefined ? undefined : hugeRateLimits(tempDir(), V3_LIMITED);
const databases = await Promise.all([createTestDatabase(), createTestDatabase()]);
const [cachedDb, plainDb] = databases;
const [on, off, logged, before, now, pgCached, pgPlain] = await Promise.all([
  startLockcloud(serverArgs('on', '--rate-limits', limits)),
  startLockcloud(serverArgs('off', '--no-rate-limit')),
  startLockcloud(serverArgs('logged', '--rate-limits', limits), {
    logLevel: 'info',
    logFile: join(dir, 'logged.log'),
  }),
  baselineLimits === undefined || baseRev === undefined
    ? undefined
    : startLockcloud(serverArgs('before', '--rate-limits', baselineLimits), {
        root: archiveCheckout(baseRev),
      }),
  baselineLimits === undefined
    ? undefined
    : startLockcloud(serverArgs('now', '--rate-limits', baselineLimits)),
  startLockcloud(serverArgs('pg-cached', '--rate-limits', limits, '--database-url', cachedDb.url)),
  startLockcloud(
    serverArgs(
      'pg-plain',
      '--rate-limits',
      limits,
      '--database-url',
      plainDb.url,
      '--no-database-read-cache',
    ),
  ),
]);

const key = { authorization: OWNER_KEY };
const bearer = { authorization: `Bearer ${await bearerToken(on, join(dir, 'on'))}` };
const scoped = { authorization: await scopedKey(on) };
const token = { 'x-authorization': await v1Token(on) };
const paths = {
  lock: `/public/lock/${LOCK_A}`,
  locks: '/public/locks',
  v1: '/v1/locks',
} as const;

// The bare server answers each path with the body lockcloud answers it with.
const client = new HttpClient(on.url, 1);
const bodies: Record<string, unknown> = {
  [paths.lock]: await client.json('GET', paths.lock, key),
  [paths.locks]: await client.json('GET', paths.locks, key),
  [paths.v1]: await client.json('GET', paths.v1, token),
};
client.close();
const bodiesFile = join(dir, 'bodies.json');
writeFileSync(bodiesFile, JSON.stringify(bodies));
const bareProc = startProcess(process.execPath, ['--import', 'tsx', 'bench/lib/bare-server.ts', bodiesFile]);
const bareUrl = (await bareProc.waitFor(/listening on (http:\/\/\S+)/, 30_000, 'the bare server'))[1] ?? '';
const bare: Lockcloud = { ...bareProc, url: bareUrl, mqttUrl: '', startupMs: 0 };

interface Case {
  readonly label: string;
  readonly server: Lockcloud;
  readonly path: string;
  readonly headers: Record<string, string>;
  /** The bare case this one is compared with; none for a bare case. */
  readonly baseline?: string;
}

const size = (path: string): number => JSON.stringify(bodies[path]).length;
/** A case of GET /public/lock/{id}, compared with the bare server answering the same body. */
const lockRead = (label: string, server: Lockcloud, headers: Record<string, string> = key): Case => ({
  label: `GET /public/lock/{id}${label}`,
  server,
  path: paths.lock,
  headers,
  baseline: 'lock',
});
const lockCase = lockRead(' (auth, rate limiter, status read)', on);
const scopedCase = lockRead(', a scoped key (locks:read, this lock only)', on, scoped);
const bearerCase = lockRead(', an OAuth access token (locks:read, this lock only)', on, bearer);
const beforeCase = before && lockRead(` at ${baseRev} (the baseline tree, the same seed and key)`, before);
const nowCase = now && lockRead(', this tree started as the baseline tree is (this case only)', now);
const offCase = lockRead(', --no-rate-limit', off);
const pgCase = lockRead(', PostgreSQL (its read cache, kept exact by LISTEN and a fence)', pgCached);
const pgPlainCase = lockRead(', PostgreSQL, --no-database-read-cache', pgPlain);
/** The default configuration: limiter, metrics, and the default log level's line per request. */
const loggedCase = lockRead(', --log-level info (the default: a line per request, to a file)', logged);
const locksCase: Case = {
  label: 'GET /public/locks (2 locks)',
  server: on,
  path: paths.locks,
  headers: key,
  baseline: 'locks',
};
const v1Case: Case = {
  label: 'GET /v1/locks (X-Authorization token)',
  server: on,
  path: paths.v1,
  headers: token,
  baseline: 'v1',
};
const cases: Case[] = [
  { label: `bare node:http, ${size(paths.lock)}-byte body`, server: bare, path: paths.lock, headers: {} },
  lockCase,
  scopedCase,
  bearerCase,
  ...(beforeCase === undefined || nowCase === undefined ? [] : [beforeCase, nowCase]),
  offCase,
  loggedCase,
  pgCase,
  pgPlainCase,
  { label: `bare node:http, ${size(paths.locks)}-byte body`, server: bare, path: paths.locks, headers: {} },
  locksCase,
  { label: `bare node:http, ${size(paths.v1)}-byte body`, server: bare, path: paths.v1, headers: {} },
  v1Case,
];
const bareOf = (c: Case): Case | undefined =>
  c.baseline === undefined
    ? undefined
    : cases.find((b) => b.server === bare && b.path === paths[c.baseline as keyof typeof paths]);

const run = (c: Case, s: number): Promise<LoadResult> =>
  autocannon({ url: c.server.url + c.path, headers: c.headers, seconds: s, serverPid: c.server.pid });

// A fresh lockcloud process needs seconds of load before V8 has compiled its hot path (measured:
// about 0.3 of its steady rate in the first 2 s); the bare server needs next to none.
const warmSeconds = (c: Case): number => (c.server === bare ? 1 : QUICK ? 4 : 5);
progress('warming up every case (lockcloud cases for several seconds)');
for (const c of cases) await run(c, warmSeconds(c));

const results = new Map<Case, LoadResult[]>(cases.map((c) => [c, []]));
for (let r = 0; r < rounds; r++) {
  progress(`round ${r + 1} of ${rounds}: ${cases.length} runs of ${seconds} s`);
  for (const c of cases) {
    const result = await run(c, seconds);
    if (result.bad > 0) throw new Error(`${c.label}: ${result.bad} bad answers (non-2xx, errors, timeouts)`);
    results.get(c)?.push(result);
  }
}

/** Requests answered per CPU-second the server used: what it costs, whatever CPU it was given. */
const perCpu = (r: LoadResult): number => r.rps / Math.max(r.serverCores, 1e-9);

/** Median over rounds of this case's figure divided by its baseline's in the same round. */
function ratio(c: Case, to: Case | undefined, figure: (r: LoadResult) => number = (r) => r.rps): number {
  const mine = results.get(c) ?? [];
  const theirs = to === undefined ? undefined : results.get(to);
  if (!theirs) return 1;
  return median(mine.map((m, i) => figure(m) / (theirs[i] ? figure(theirs[i]) : Number.NaN)));
}

/** A row of the table comparing two cases: the median per-round ratio, of req/s and per CPU-second. */
const ratioRow = (label: string, mine: Case, theirs: Case, how: string): string[] => [
  `${label} (GET /public/lock/{id})`,
  '',
  '',
  '',
  fmtRatio(ratio(mine, theirs)),
  '',
  fmtRatio(ratio(mine, theirs, perCpu)),
  how,
];

/**
 * A target held by the ratio of two cases' req/s, with the ratio per server CPU-second beside it;
 * without `atLeast` it is only reported (`shown` in the target column).
 */
const ratioTarget = (
  point: string,
  what: string,
  mine: Case,
  theirs: Case | undefined,
  atLeast?: number,
  shown = '(reported)',
): Target => {
  const r = ratio(mine, theirs);
  return {
    point,
    what,
    target: atLeast === undefined ? shown : `≥ ${atLeast}`,
    measured: `${fmtRatio(r)} (per server CPU-second: ${fmtRatio(ratio(mine, theirs, perCpu))})`,
    met: atLeast === undefined ? null : r >= atLeast,
  };
};

const rows = cases.map((c) => {
  const rs = results.get(c) ?? [];
  const mid = rs[rs.findIndex((x) => x.rps === median(rs.map((y) => y.rps)))] ?? rs[0];
  const base = c.baseline === undefined;
  return [
    c.label,
    fmtRate(median(rs.map((x) => x.rps))),
    fmtMs(median(rs.map((x) => x.p50))),
    fmtMs(median(rs.map((x) => x.p99))),
    base ? '1.00 (baseline)' : fmtRatio(ratio(c, bareOf(c))),
    fmtRate(median(rs.map(perCpu))),
    base ? '1.00' : fmtRatio(ratio(c, bareOf(c), perCpu)),
    mid ? cpuNote(mid) : '',
  ];
});

const bareRuns = [...results.entries()].filter(([c]) => c.server === bare).flatMap(([, rs]) => rs);

const notes = [
  pinNote([...results.values()].flat()),
  `autocannon -c 50, ${seconds} s a run, ${rounds} interleaved round(s) after a warm-up per case (lockcloud ${QUICK ? 4 : 5} s, bare 1 s); latencies are autocannon's, in whole milliseconds, under saturation (50 requests always in flight).`,
  ...harnessNotes(bareRuns, 'GET /public/lock/{id}', results.get(lockCase) ?? []),
  "The PostgreSQL rows: each server on a database of its own on the machine's PostgreSQL (127.0.0.1:5432), made and dropped by the bench. With its read cache a request's held reads wait for one fence (`SELECT 1` on the connection that LISTENs for other processes' commits), shared by every read that began while the previous one was out; without it each request reads its key and its lock from the database.",
];

const sections: { title: string; body: string }[] = [];
if (PROFILE_DIR !== undefined) sections.push(await profile(PROFILE_DIR));

await Promise.all([
  on.stop(),
  off.stop(),
  logged.stop(),
  before?.stop(),
  now?.stop(),
  pgCached.stop(),
  pgPlain.stop(),
  (bare as Proc).stop(),
]);
await Promise.all(databases.map((d) => d.drop()));

report({
  name: 'read-path',
  title: '1, 6. HTTP read path against bare node:http (bench/read-path.ts)',
  columns: [
    'case',
    'req/s',
    'p50',
    'p99',
    'ratio to bare',
    'req per server CPU-second',
    'its ratio to bare',
    'CPU during the run',
  ],
  rows: [
    ...rows,
    ratioRow(
      'limiter on / off',
      lockCase,
      offCase,
      'median of per-round ratios of the first two lockcloud rows',
    ),
    ratioRow(
      'scoped key / full-access key',
      scopedCase,
      lockCase,
      'median of per-round ratios, the same server',
    ),
    ratioRow(
      'OAuth access token / scoped key with the same grant',
      bearerCase,
      scopedCase,
      'median of per-round ratios, the same server',
    ),
    ratioRow(
      'PostgreSQL: read cache / none',
      pgCase,
      pgPlainCase,
      'median of per-round ratios, two servers alike but for --no-database-read-cache',
    ),
    ratioRow(
      'PostgreSQL with its read cache / SQLite',
      pgCase,
      lockCase,
      'median of per-round ratios, against the first lockcloud row',
    ),
    ...(beforeCase === undefined || nowCase === undefined
      ? []
      : [
          ratioRow(
            `this tree, full-access key / ${baseRev}`,
            nowCase,
            beforeCase,
            'median of per-round ratios, two servers started alike, side by side',
          ),
        ]),
  ],
  targets: [
    ratioTarget('1', 'GET /public/lock/{id} req/s vs bare node:http', lockCase, bareOf(lockCase), 0.75),
    ratioTarget(
      '1',
      'GET /public/lock/{id} in the default configuration (a request line at info) vs bare',
      loggedCase,
      bareOf(loggedCase),
      0.6,
    ),
    ratioTarget('1', 'GET /public/locks vs bare node:http', locksCase, bareOf(locksCase), 0.6),
    ratioTarget('1', 'GET /v1/locks vs bare node:http', v1Case, bareOf(v1Case), 0.6),
    ratioTarget(
      'issue 23',
      'GET /public/lock/{id} with a scoped key vs a full-access key (at most 5 % slower)',
      scopedCase,
      lockCase,
      0.95,
    ),
    ...(beforeCase === undefined || nowCase === undefined
      ? []
      : [
          ratioTarget(
            'issue 23',
            `GET /public/lock/{id}, this tree with a full-access key vs ${baseRev} (at most 5 % slower)`,
            nowCase,
            beforeCase,
            0.95,
          ),
        ]),
    ratioTarget(
      'issue 24',
      'GET /public/lock/{id} with an OAuth access token vs a scoped key granting the same',
      bearerCase,
      scopedCase,
      undefined,
      '(reported)',
    ),
    ratioTarget(
      'issue 10',
      'rate limiter on vs off, GET /public/lock/{id} over HTTP',
      lockCase,
      offCase,
      undefined,
      '(none)',
    ),
  ],
  notes,
  sections,
});

/** A server of its own under --cpu-prof, loaded with GET /public/lock/{id} only, then stopped. */
async function profile(root: string): Promise<{ title: string; body: string }> {
  mkdirSync(root, { recursive: true });
  const into = mkdtempSync(join(root, 'read-path-'));
  const profSeconds = Math.max(8, seconds * 2);
  progress(`profiling GET /public/lock/{id} for ${profSeconds} s into ${into}`);
  const prof = await startLockcloud(serverArgs('prof', '--rate-limits', limits), {
    nodeFlags: ['--cpu-prof', `--cpu-prof-dir=${into}`],
  });
  const warm = await run({ ...lockCase, server: prof }, 4);
  const result = await run({ ...lockCase, server: prof }, profSeconds);
  await prof.stop();
  return profileSection(
    into,
    `CPU profile of the server under GET /public/lock/{id} alone (${fmtRate(result.rps)} req/s)`,
    prof.startupMs,
    Number.POSITIVE_INFINITY,
    { count: warm.requests + result.requests, unit: 'request' },
  );
}
process.exit(0);
