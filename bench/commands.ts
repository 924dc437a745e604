/**
 * Point 2 of issue 10: the v3 command path, POST /public/lock/{id} then GET /public/action-result
 * until terminated, over 1,000 zero-latency simulated locks (`lockcloud sim`, a process of its own),
 * through the embedded broker and through a Mosquitto of the bench's own. Latency: one client, one
 * command at a time (the path's own latency, nothing queued before it). Throughput: 200 concurrent
 * clients, each lock one command at a time, for the whole run: sustained commands/s, and the
 * latency under that load. Percentiles over every command of the run.
 */
import { cpuText, type FlowResult, failureText, runCommands } from './lib/commands.ts';
import { HttpClient } from './lib/load.ts';
import { durations, fmtMs, fmtRate, progress, quantile, report, type Target } from './lib/report.ts';
import { startRig } from './lib/rig.ts';

const { seconds } = durations({ seconds: 6, rounds: 1 }, { seconds: 4, rounds: 1 });
const CLIENTS = 200;
// Issue 25, point 2 (issue 10 asked 5 and 10).
const P99_TARGET = { embedded: 3, mosquitto: 3 } as const;
const RATE_TARGET = 2000;
// A fresh server needs seconds of load before V8 has compiled its hot paths.
const WARM_SECONDS = 3;

const rows: string[][] = [];
const targets: Target[] = [];
const notes: string[] = [];
const sections: { title: string; body: string }[] = [];

for (const broker of ['embedded', 'mosquitto'] as const) {
  const rig = await startRig({ broker, accounts: 10, accessPointsPerAccount: 10, locksPerAccessPoint: 10 });
  const client = new HttpClient(rig.server.url, CLIENTS);
  const pids = { server: rig.server.pid, sim: rig.sim.pid };
  progress(`${broker}: warming up for ${WARM_SECONDS} s`);
  const warm = await runCommands(client, rig.locks, 50, WARM_SECONDS, pids);
  progress(`${broker}: one client for ${seconds} s`);
  const single = await runCommands(client, rig.locks, 1, seconds, pids);
  progress(`${broker}: ${CLIENTS} clients over ${rig.locks.length} locks for ${seconds} s`);
  const loaded = await runCommands(client, rig.locks, CLIENTS, seconds, pids);
  client.close();
  // Per command as a client makes one: its POST and every poll of its result.
  const made = [warm, single, loaded].reduce((n, r) => n + r.latencies.length, 0);
  const profile = await rig.stop({ count: made, unit: 'command' });
  if (profile) sections.push(profile);

  const row = (label: string, r: FlowResult): string[] => [
    `${broker}: ${label}`,
    String(r.latencies.length),
    fmtRate(r.latencies.length / r.seconds),
    fmtMs(quantile(r.latencies, 0.5)),
    fmtMs(quantile(r.latencies, 0.99)),
    (r.polls / Math.max(1, r.latencies.length)).toFixed(2),
    failureText(r.failures),
    cpuText(r.cpu),
  ];
  rows.push(row('1 client', single), row(`${CLIENTS} clients, 1,000 locks`, loaded));
  const p99 = quantile(single.latencies, 0.99);
  const rate = loaded.latencies.length / loaded.seconds;
  targets.push(
    {
      point: '2',
      what: `command to terminated result, p99, ${broker} broker (1 client)`,
      target: `≤ ${P99_TARGET[broker]} ms`,
      measured: fmtMs(p99),
      met: p99 <= P99_TARGET[broker] && single.failures.size === 0,
    },
    {
      point: '2',
      what: `sustained commands/s over 1,000 locks, ${broker} broker (${CLIENTS} clients)`,
      target: `≥ ${fmtRate(RATE_TARGET)}/s`,
      measured: `${fmtRate(rate)}/s`,
      met: rate >= RATE_TARGET && loaded.failures.size === 0,
    },
  );
}

notes.push(
  `${seconds} s per phase after a ${WARM_SECONDS} s warm-up with 50 clients. A command's time runs from sending the POST to reading the terminated result; polls follow each other with no pause, so the last poll's round trip is included.`,
  `Each phase's "CPU" is cores' worth used during it: the load generator is this bench's own process (node:http keep-alive client), on the same 2 cores as the server, the simulator and Mosquitto.`,
  'Every lock and access point is simulated by `lockcloud sim --seed` in a process of its own; the server runs with --no-simulator and a rate-limits file no run can exhaust (the limiter runs, refuses nothing).',
);

report({
  name: 'commands',
  title: '2. Command path: POST /public/lock/{id} until action-result is terminated (bench/commands.ts)',
  columns: [
    'broker: load',
    'commands',
    'commands/s',
    'p50',
    'p99',
    'polls/command',
    'failed',
    'CPU during the run',
  ],
  rows,
  targets,
  notes,
  sections,
});
process.exit(0);
