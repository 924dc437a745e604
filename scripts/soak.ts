/**
 * `npm run soak [-- --duration 10m] [-- --report-every 30s] [-- --clients 6] [-- --pause-ms 20]`:
 * issue 11's soak. A real lockcloud process (sandbox mode, simulated locks, SQLite) under mixed load
 * for the duration (10 minutes by default): v3 reads, commands and result polls, v1 logins, reads
 * and controls, webhooks to a local receiver, sandbox changes and some bad requests. Prints a line
 * every report interval and a summary: requests by status, errors, lost webhooks, the server's RSS
 * at start, after warm-up and at the end (growth in MB and %/min), heap, event-loop delay, open fds.
 * Exits 1 on any error answer (a 5xx other than v1's documented lock failures, no answer, a
 * timeout), any lost webhook or any command that did not end as documented.
 */
import { cpus, loadavg } from 'node:os';
import { runSoak, type Sample } from '../test/support/soak.ts';

const USAGE = `usage: npm run soak -- [--duration 10m] [--report-every 30s] [--clients 6] [--pause-ms 20]
  durations: 600, 600s, 10m, 1h (a bare number is seconds)`;

function duration(text: string | undefined, name: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(text ?? '');
  if (!match) throw new Error(`${name}: not a duration: ${text ?? '(missing)'}\n${USAGE}`);
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[match[2] ?? 's'] ?? 1000;
  return Math.round(Number(match[1]) * unit);
}

function parse(argv: readonly string[]) {
  const options = { durationMs: 600_000, reportEveryMs: 30_000, clients: 6, pauseMs: 20 };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    const value = argv[i + 1];
    i++;
    if (flag === '--duration') options.durationMs = duration(value, flag);
    else if (flag === '--report-every') options.reportEveryMs = duration(value, flag);
    else if (flag === '--clients') options.clients = Number(value);
    else if (flag === '--pause-ms') options.pauseMs = Number(value);
    else if (flag === '--help' || flag === '-h') {
      console.log(USAGE);
      process.exit(0);
    } else throw new Error(`unknown option ${flag}\n${USAGE}`);
  }
  if (!(options.clients >= 1) || !(options.pauseMs >= 0)) throw new Error(USAGE);
  return options;
}

const mb = (n: number): string => n.toFixed(1);

function line(s: Sample): string {
  const v = s.verdicts;
  const errors = v.error + v.network + v.timeout + v.unavailable;
  const w = s.webhooks;
  return (
    `${(s.elapsedMs / 1000).toFixed(0).padStart(5)} s  ${String(s.requests).padStart(7)} req ` +
    `(${((s.requests / s.elapsedMs) * 1000).toFixed(0)}/s)  errors ${errors}  ` +
    `webhooks ${w.received} received/${w.logged} logged (${w.pending} pending, ${w.failed} failed)  ` +
    `rss ${mb(s.rssMb)} MB  heap ${mb(s.heapUsedMb)} MB  loop p99 ${s.loopDelayP99Ms.toFixed(1)} ms  ` +
    `fds ${s.openFds}  handles ${s.handles}  load ${s.load1.toFixed(2)}`
  );
}

const options = parse(process.argv.slice(2));
console.log(
  `soak: ${options.durationMs / 1000} s, ${options.clients} clients, ${options.pauseMs} ms pause; ` +
    `${cpus().length} CPUs, load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
);
const report = await runSoak({ ...options, onSample: (s) => console.log(line(s)) });
const { startMb, warmMb, warmAtMs, endMb, endAtMs } = report.rss;
const minutes = (endAtMs - warmAtMs) / 60_000;
const growth = endMb - warmMb;
const perMin = minutes > 0 ? (growth / warmMb / minutes) * 100 : Number.NaN;
const loads = report.samples.map((s) => s.load1);
console.log(`\nrequests by op, status and verdict:\n${report.table}`);
console.log(
  [
    `\nduration ${(report.durationMs / 1000).toFixed(0)} s, ${report.samples.at(-1)?.requests ?? 0} requests`,
    `errors: ${report.errors} (5xx other than v1 lock failures, 503, no answer, timeout)`,
    `commands: ${report.acceptedCommands} accepted, ${report.unfinishedCommands} not ended, ${report.badOutcomes} ended INTERNAL_ERROR`,
    `webhooks: ${report.webhooks.logged} logged, ${report.webhooks.delivered} delivered, ${report.webhooks.received} received, ${report.lostWebhooks} lost${report.logOverflowed ? ' (the delivery log overflowed between two looks: some were not followed)' : ''}`,
    `rss: start ${mb(startMb)} MB, after warm-up (${(warmAtMs / 1000).toFixed(0)} s) ${mb(warmMb)} MB, end (${(endAtMs / 1000).toFixed(0)} s) ${mb(endMb)} MB; growth after warm-up ${mb(growth)} MB over ${minutes.toFixed(1)} min (${perMin.toFixed(2)} %/min)`,
    `heap used at the end ${mb(report.samples.at(-1)?.heapUsedMb ?? Number.NaN)} MB; event-loop delay p99, worst sample ${Math.max(...report.samples.map((s) => s.loopDelayP99Ms)).toFixed(1)} ms; open fds at the end ${report.samples.at(-1)?.openFds}`,
    `load average (1 min) during the run: ${Math.min(...loads).toFixed(2)} to ${Math.max(...loads).toFixed(2)}`,
    report.serverExit === null ? 'server: ran throughout' : `server: ${report.serverExit}`,
  ].join('\n'),
);
if (report.failures.length > 0) console.log(`first failures: ${JSON.stringify(report.failures.slice(0, 5))}`);
const failed =
  report.errors > 0 ||
  report.lostWebhooks > 0 ||
  report.unfinishedCommands > 0 ||
  report.badOutcomes > 0 ||
  report.serverExit !== null;
console.log(failed ? '\nsoak: FAILED' : '\nsoak: ok');
process.exit(failed ? 1 : 0);
