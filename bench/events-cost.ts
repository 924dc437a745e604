/**
 * Issue 21, "Measured": writing events costs at most 10 % of sustained command throughput. The v3
 * command path of bench/commands.ts (200 clients over 1,000 zero-latency simulated locks, embedded
 * broker), run side by side in one run against the last commit before the event log: a git worktree
 * of that commit (EVENTS_BASE_COMMIT, 58485a3 by default) made in a temporary directory, its
 * node_modules this checkout's, its server run from its own sources. Rounds alternate
 * baseline / events so that the machine's drift falls on both; the ratio is of the medians.
 *
 * Both servers are driven by the same simulator (this checkout's `lockcloud sim`, a process of its
 * own) with the same load, its access points speaking device protocol version 1 only: the baseline
 * predates version 2 and drops every version-2 message ("/v: version 2 is not one of 1"), so with
 * today's default (versions 1 and 2) no acknowledgement reached it and every one of its commands
 * timed out. Version 1 for both keeps the protocol out of the comparison: only the event log differs.
 *
 * EVENTS_BASE_DIR: use a checkout already there instead of making (and removing) the worktree.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { cpuText, failureText, runCommands } from './lib/commands.ts';
import { HttpClient } from './lib/load.ts';
import { durations, fmtRate, fmtRatio, median, progress, report, type Target } from './lib/report.ts';
import { startRig } from './lib/rig.ts';

const BASE_COMMIT = process.env.EVENTS_BASE_COMMIT ?? '58485a3';
const { seconds, rounds } = durations({ seconds: 8, rounds: 5 }, { seconds: 5, rounds: 1 });
const CLIENTS = 200;
const WARM_SECONDS = 3;
const TARGET_RATIO = 0.9;
// The endpoints the baseline's rate-limits file may name: those it had (the event log's is new).
const BASE_LIMITED = [
  'GET /public/locks',
  'GET /public/lock/{device_id}',
  'POST /public/lock/{device_id}',
  'GET /public/action-result',
  'POST /public/partners/automation',
  'GET /ext/webhook',
  'PUT /ext/webhook',
  'DELETE /ext/webhook',
  'POST /ext/webhook/rotate-secret',
  'POST /ext/webhook/test',
  'GET /ext/webhook/deliveries',
  'POST /ext/webhook/deliveries/{id}/resend',
];

const here = resolve('.');
let baseDir = process.env.EVENTS_BASE_DIR;
let madeWorktree = false;
if (baseDir === undefined) {
  baseDir = join(mkdtempSync(join(tmpdir(), 'lockcloud-base-')), 'checkout');
  progress(`making a worktree of ${BASE_COMMIT} in ${baseDir}`);
  execFileSync('git', ['worktree', 'add', '--detach', baseDir, BASE_COMMIT], { stdio: 'ignore' });
  madeWorktree = true;
  symlinkSync(join(here, 'node_modules'), join(baseDir, 'node_modules'));
}
const baseRev = execFileSync('git', ['-C', baseDir, 'rev-parse', '--short', 'HEAD']).toString().trim();
const ownRev = execFileSync('git', ['rev-parse', '--short', 'HEAD']).toString().trim();
if (!existsSync(join(baseDir, 'src/bin/serve.ts'))) throw new Error(`${baseDir} is not a lockcloud checkout`);

const rows: string[][] = [];
const sections: { title: string; body: string }[] = [];
const rates: Record<'baseline' | 'events', number[]> = { baseline: [], events: [] };
/** Commands per second of the server's CPU: what the event log costs the server, whatever else the machine runs. */
const perCpu: Record<'baseline' | 'events', number[]> = { baseline: [], events: [] };
try {
  for (let round = 1; round <= rounds; round++) {
    for (const which of ['baseline', 'events'] as const) {
      const rig = await startRig({
        broker: 'embedded',
        accounts: 10,
        accessPointsPerAccount: 10,
        locksPerAccessPoint: 10,
        // The same devices for both servers: version 1, the only one the baseline speaks (above).
        v1Devices: true,
        ...(which === 'baseline' ? { serverRoot: { dir: baseDir, limitedEndpoints: BASE_LIMITED } } : {}),
      });
      const client = new HttpClient(rig.server.url, CLIENTS);
      const pids = { server: rig.server.pid, sim: rig.sim.pid };
      progress(`round ${round}, ${which}: warming up for ${WARM_SECONDS} s`);
      await runCommands(client, rig.locks, 50, WARM_SECONDS, pids);
      progress(`round ${round}, ${which}: ${CLIENTS} clients for ${seconds} s`);
      const r = await runCommands(client, rig.locks, CLIENTS, seconds, pids);
      client.close();
      // With --profile: each server's profile, the baseline's too (what the event log adds is the difference).
      const profile = await rig.stop();
      if (profile) sections.push({ title: `${profile.title}, round ${round}, ${which}`, body: profile.body });
      const rate = r.latencies.length / r.seconds;
      rates[which].push(rate);
      perCpu[which].push(rate / Math.max(r.cpu.server, 1e-9));
      rows.push([
        String(round),
        which === 'baseline' ? `before the event log (${baseRev})` : `with the event log (${ownRev})`,
        String(r.latencies.length),
        fmtRate(rate),
        fmtRate(rate / Math.max(r.cpu.server, 1e-9)),
        failureText(r.failures),
        cpuText(r.cpu),
      ]);
    }
  }
} finally {
  if (madeWorktree) {
    execFileSync('git', ['worktree', 'remove', '--force', baseDir], { stdio: 'ignore' });
  }
}

// A baseline that finished no command gives no ratio (a division by zero once read as "met"):
// say so instead (as on 2026-11-29, when the simulator spoke version 2 to 58485a3's server, which
// knows only version 1, and every one of its commands timed out).
if (!(median(rates.baseline) > 0)) {
  const failures = rows.filter((row) => row[1]?.startsWith('before')).map((row) => row[5]);
  throw new Error(
    `the baseline (${baseRev}) finished no command (${failures.join('; ')}): no ratio can be measured`,
  );
}
const ratio = median(rates.events) / median(rates.baseline);
const cpuRatio = median(perCpu.events) / median(perCpu.baseline);
const targets: Target[] = [
  {
    point: 'measured 1',
    what: 'sustained commands/s with events ÷ without (medians of the rounds)',
    target: `≥ ${TARGET_RATIO}`,
    measured: `${fmtRatio(ratio)} (${fmtRate(median(rates.events))} ÷ ${fmtRate(median(rates.baseline))})`,
    met: ratio >= TARGET_RATIO,
  },
  {
    point: 'measured 1',
    what: 'commands per server CPU-second with events ÷ without (medians of the rounds)',
    target: `≥ ${TARGET_RATIO}`,
    measured: `${fmtRatio(cpuRatio)} (${fmtRate(median(perCpu.events))} ÷ ${fmtRate(median(perCpu.baseline))})`,
    met: cpuRatio >= TARGET_RATIO,
  },
];
report({
  name: 'events-cost',
  title: "21. The event log's cost: sustained v3 commands/s, with and without it (bench/events-cost.ts)",
  columns: [
    'round',
    'server',
    'commands',
    'commands/s',
    'per server CPU-second',
    'failed',
    'CPU during the run',
  ],
  rows,
  targets,
  sections,
  notes: [
    `Each row: a fresh server and \`lockcloud sim --v1-share 1\` (every access point on device protocol version 1, the only one the baseline knows) over the embedded broker, 1,000 zero-latency locks, ${WARM_SECONDS} s warm-up with 50 clients, then ${CLIENTS} clients for ${seconds} s (bench/commands.ts's flow: POST /public/lock/{id}, then action-result until terminated). The baseline is commit ${baseRev} run from a git worktree; rounds alternate.`,
    'Each command writes 3 to 4 events (command.requested, the movement, command.succeeded) in the transactions of its changes, each taking a position in the log (migration 012): two transactions, the creation of the task and then the acknowledged state with its end (LockStore.writeStatusIfAndEnd), the movement attributed from the task in hand.',
  ],
});
process.exit(0);
