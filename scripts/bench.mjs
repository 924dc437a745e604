#!/usr/bin/env node
// `npm run bench [-- --quick] [-- NAME ...] [-- --profile] [-- --write]`: the benchmarks of bench/*.ts
// (issue 10), each a process of its own that starts and stops everything it needs on loopback and
// hands back a JSON result. Prints each table and the targets, and, for a full run (every bench, no
// profiler), writes docs/benchmarks.md with the machine, the versions, the commit and the command.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, platform, release, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';

/** The order of the issue's points; any other bench/*.ts runs after these. */
const ORDER = [
  'read-path',
  'rate-limiter-cost',
  'commands',
  'v1-control',
  'webhooks',
  'webhook-fairness',
  'scale-store',
  'scale-devices',
  'device-round-trip',
];
/**
 * Run only when named: login-timing (issue 11) makes some 1,400 logins at the production scrypt cost
 * (about 10 minutes), past the few minutes the default run keeps to; probe-limits (issue 17) replays
 * an outside probe of the limits rather than measuring a cost. Their figures go to docs/security.md.
 */
const BY_NAME_ONLY = ['login-timing', 'probe-limits'];
const USAGE = `usage: npm run bench -- [--quick] [--profile] [--write | --update] [NAME ...]
  --quick    shorter runs, one round (about half the time)
  --profile  run each server under test with node --cpu-prof and print the top self-time functions
             (read-path profiles a server of its own under GET /public/lock/{id}); with --update the
             profiles alone are written, each bench's in a section of its own (point 6 of issue 25)
  --write    write docs/benchmarks.md even for a subset of the benches or with --profile
  --update   write only these benches' sections into docs/benchmarks.md, keeping the rest of it
             (each such section says its own command, commit, date and load)
  NAME       run only these benches (the file names in bench/ without .ts); ${BY_NAME_ONLY.join(', ')}
             runs only when named`;

const args = process.argv.slice(2);
// The BENCH_* settings a bench reads (BENCH_SCALE_LOCKS, BENCH_SCALE_BROKER, BENCH_BASELINE, ...) change
// what it measures, so the command written to the docs carries them; the three set below do not.
const INTERNAL_ENV = ['BENCH_QUICK', 'BENCH_RESULT', 'BENCH_PROFILE_DIR'];
const envPrefix = Object.entries(process.env)
  .filter(([name]) => name.startsWith('BENCH_') && !INTERNAL_ENV.includes(name))
  .sort(([a], [b]) => a.localeCompare(b))
  .map(([name, value]) => `${name}=${value} `)
  .join('');
if (args.includes('--help') || args.includes('-h')) {
  console.log(USAGE);
  process.exit(0);
}
const flags = new Set(args.filter((a) => a.startsWith('--')));
const unknownFlags = [...flags].filter((f) => !['--quick', '--profile', '--write', '--update'].includes(f));
const available = readdirSync('bench')
  .filter((f) => f.endsWith('.ts'))
  .map((f) => f.slice(0, -3))
  .sort((a, b) => {
    const rank = (n) => (ORDER.includes(n) ? ORDER.indexOf(n) : ORDER.length);
    return rank(a) - rank(b) || a.localeCompare(b);
  });
const names = args.filter((a) => !a.startsWith('--'));
const unknownNames = names.filter((n) => !available.includes(n.replace(/\.ts$/, '').replace(/^bench\//, '')));
if (unknownFlags.length > 0 || unknownNames.length > 0) {
  console.error(
    `unknown ${[...unknownFlags, ...unknownNames].join(', ')}\n${USAGE}\nbenches: ${available.join(', ')}`,
  );
  process.exit(2);
}
const wanted = names.map((n) => n.replace(/\.ts$/, '').replace(/^bench\//, ''));
const selected =
  wanted.length === 0
    ? available.filter((n) => !BY_NAME_ONLY.includes(n))
    : available.filter((n) => wanted.includes(n));
const quick = flags.has('--quick');
const profile = flags.has('--profile');
const update = flags.has('--update');
const write = !update && (flags.has('--write') || (wanted.length === 0 && !profile));

const work = mkdtempSync(join(tmpdir(), 'lockcloud-bench-results-'));
const profileDir = profile ? join(work, 'profiles') : '';
const startedAt = new Date();
const load = loadavg();
const results = [];
const failed = [];
for (const name of selected) {
  console.log(`\n## ${name}${quick ? ' (quick)' : ''}\n`);
  const resultFile = join(work, `${name}.json`);
  const started = Date.now();
  const run = spawnSync(process.execPath, ['--import', 'tsx', `bench/${name}.ts`], {
    stdio: 'inherit',
    env: {
      ...process.env,
      BENCH_QUICK: quick ? '1' : '0',
      BENCH_RESULT: resultFile,
      BENCH_PROFILE_DIR: profileDir,
    },
  });
  const seconds = (Date.now() - started) / 1000;
  let result;
  try {
    result = JSON.parse(readFileSync(resultFile, 'utf8'));
  } catch {
    result = undefined;
  }
  if (run.status !== 0 || result === undefined) {
    failed.push(name);
    console.error(`bench/${name}.ts failed (exit ${run.status ?? run.signal})`);
    continue;
  }
  results.push({ ...result, seconds });
}
const took = (Date.now() - startedAt.getTime()) / 1000;

const verdict = (met) => (met === null ? '(no target)' : met ? 'met' : '**missed**');
const cell = (s) => String(s).replace(/\|/g, '\\|');
const table = (columns, rows) =>
  [columns, columns.map(() => '---'), ...rows].map((r) => `| ${r.map(cell).join(' | ')} |`).join('\n');
const targetRows = results.flatMap((r) =>
  r.targets.map((t) => [t.point, t.what, t.target, t.measured, verdict(t.met)]),
);
const targets = table(['point', 'what', 'target', 'measured', ''], targetRows);
console.log(`\n## Targets\n\n${targets}\n`);
if (failed.length > 0) console.log(`failed: ${failed.join(', ')}`);

function sh(command, commandArgs) {
  const r = spawnSync(command, commandArgs, { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : 'unknown';
}

/** One bench's section of docs/benchmarks.md. */
function sectionOf(r) {
  const parts = [`## ${r.title}`, '', table(r.columns, r.rows), ''];
  for (const note of r.notes) parts.push(`- ${note}`);
  parts.push(`- Took ${r.seconds.toFixed(0)} s.`);
  for (const s of r.sections ?? []) parts.push('', `### ${s.title}`, '', s.body);
  return parts.join('\n');
}

if (update && results.length > 0) {
  // Each bench's section replaced where it is (its heading names the bench's file), or added before
  // the closing notes; the rest of the file, machine and targets included, is the last full run's.
  let doc = readFileSync('docs/benchmarks.md', 'utf8');
  const dirty = sh('git', ['status', '--porcelain', '--untracked-files=no']) !== '';
  const command = `${envPrefix}npm run bench -- ${args.join(' ')}`;
  const commit = `${sh('git', ['rev-parse', '--short', 'HEAD'])}${dirty ? ' (with uncommitted changes)' : ''}`;
  // The machine is named when it is not the full run's (the CPU row of the file's table).
  const cpu = `${cpus()[0]?.model ?? 'unknown'}, ${cpus().length} cores`;
  const machine = doc.includes(`| CPU | ${cpu} |`)
    ? 'the machine is the one above'
    : `on another machine than the one above (${cpu})`;
  for (const r of results) {
    const own = `- This section alone was written by \`${command}\` at commit ${commit}, ${startedAt.toISOString()}, load average at start ${load.map((x) => x.toFixed(2)).join(', ')}; ${machine}, the rest of the file is from the run it describes.`;
    const name = r.name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    // With --profile the bench's measured section stays the full run's (a profiler slows the server
    // it samples); its profiles get a section of their own, point 6's, replaced by the next such run.
    const profiles = (r.sections ?? []).filter((s) => s.title.startsWith('CPU profile'));
    if (profile && profiles.length === 0) continue;
    const section = profile
      ? [
          `## 6. Where the CPU goes: profiles of bench/${r.name}.ts`,
          '',
          ...profiles.flatMap((s) => [`### ${s.title}`, '', s.body, '']),
          own,
        ].join('\n')
      : `${sectionOf(r)}\n${own}`;
    const existing = profile
      ? new RegExp(`\n## 6\\. Where the CPU goes: profiles of bench/${name}\\.ts\n[\\s\\S]*?(?=\n## )`)
      : new RegExp(`\n## [^\n]*\\(bench/${name}\\.ts\\)[^\n]*\n[\\s\\S]*?(?=\n## )`);
    doc = existing.test(doc)
      ? doc.replace(existing, () => `\n${section}\n`)
      : doc.replace('\n## Reading these numbers', () => `\n${section}\n\n## Reading these numbers`);
  }
  writeFileSync('docs/benchmarks.md', doc.replace(/\n{3,}/g, '\n\n'));
  console.log('updated docs/benchmarks.md');
}

if (write) {
  const osName = (() => {
    try {
      return /^PRETTY_NAME="?([^"\n]*)"?/m.exec(readFileSync('/etc/os-release', 'utf8'))?.[1] ?? platform();
    } catch {
      return platform();
    }
  })();
  const dirty = sh('git', ['status', '--porcelain', '--untracked-files=no']) !== '';
  const command = `${envPrefix}npm run bench${args.length > 0 ? ` -- ${args.join(' ')}` : ''}`;
  const machine = table(
    ['', ''],
    [
      ['CPU', `${cpus()[0]?.model ?? 'unknown'}, ${cpus().length} cores`],
      ['RAM', `${(totalmem() / 2 ** 30).toFixed(1)} GiB`],
      ['OS', `${osName} (${platform()} ${release()})`],
      ['Node', process.version],
      ['npm', sh('npm', ['--version'])],
      ['autocannon', JSON.parse(readFileSync('node_modules/autocannon/package.json', 'utf8')).version],
      [
        'commit',
        `${sh('git', ['rev-parse', '--short', 'HEAD'])}${dirty ? ' (the working tree had uncommitted changes)' : ''}`,
      ],
      ['date', startedAt.toISOString()],
      ['command', `\`${command}\``],
      ['took', `${Math.floor(took / 60)} min ${Math.round(took % 60)} s`],
      ['load average at start', load.map((x) => x.toFixed(2)).join(', ')],
    ],
  );
  const sections = results.map(sectionOf);
  const doc = [
    '# Benchmarks',
    '',
    `Written by \`${command}\` (scripts/bench.mjs, the benches in bench/); do not edit by hand, run it again.`,
    'Every figure is a ratio against a baseline measured in the same run, or a percentile over many samples:',
    'the machines are shared and noisy, so compare ratios within one run, not absolute numbers across runs.',
    'What profiles and experiments found, by issue, is in docs/performance-notes.md (by hand, not rewritten by a run).',
    quick ? 'This was a `--quick` run: shorter runs and one round each, so the ratios are noisier.' : '',
    '',
    '## Machine',
    '',
    machine,
    '',
    '## Targets (issue 25; rows of earlier issues name them)',
    '',
    targets,
    failed.length > 0 ? `\nThese benches failed and have no figures here: ${failed.join(', ')}.` : '',
    '',
    ...sections.flatMap((s) => [s, '']),
    '## Reading these numbers',
    '',
    '- Everything runs on the one machine: the server under test, the load generator (autocannon, or the',
    "  bench's own node:http client for the command, control and webhook flows), the simulated devices",
    '  (`lockcloud sim`), Mosquitto, and whatever else is running. The "CPU" columns say how many cores each',
    '  used during a run; where the load generator takes most of a core, it, not the server, limits the',
    '  baseline, and a ratio against that baseline is flattering (closer to 1 than the truth).',
    '- autocannon reports latency in whole milliseconds, with 50 connections always busy: its p50/p99 are',
    '  latencies under saturation. The flow benches time each request with `performance.now()`.',
    '- Most of the time goes where the server is slow: connecting 1,000 access points (scale-devices) and',
    '  draining the webhook backlog; as the server gets faster, so does the run.',
    '- `--profile` summaries leave out the server start-up. V8 samples wall time: on a saturated machine the',
    '  time the server waits for a core after its write woke the client is charged to `writev`.',
    '- Nothing here is a timed assertion in the test suite; a missed target is a finding for the code, not a',
    '  failed build. Profile the server with `npm run bench -- read-path --profile` (or any bench name).',
    '',
    '## How to run',
    '',
    '```sh',
    `npm run bench                      # every bench; writes this file (this run took ${Math.round(took / 60)} minutes)`,
    '# issue 25 point 5 at its size: 100,000 locks through a Mosquitto of the bench, killed and restarted',
    'BENCH_SCALE_BROKER=mosquitto BENCH_SCALE_LOCKS=100000 npm run bench',
    'npm run bench -- --quick           # shorter runs, one round',
    'npm run bench -- read-path webhooks   # some benches by name (prints only, unless --write)',
    'npm run bench -- read-path --profile  # adds the top self-time functions of the server (node --cpu-prof)',
    "npm run bench -- idempotency-cost --update  # rewrites only that bench's section here",
    '# point 6: the profiles of the read path and the command path, in sections of their own',
    'npm run bench -- read-path commands --quick --profile --update',
    '```',
    '',
  ].join('\n');
  writeFileSync('docs/benchmarks.md', doc.replace(/\n{3,}/g, '\n\n'));
  console.log('wrote docs/benchmarks.md');
}
if (!profile) rmSync(work, { recursive: true, force: true });
else console.log(`CPU profiles kept in ${profileDir}`);
process.exit(failed.length > 0 ? 1 : 0);
