// The load generator, a process of its own: autocannon with the options in argv[2] (JSON). Says
// "start" on stderr just before the load begins, so the parent times the server's CPU over the load
// only, then prints the figures and its own CPU time as one JSON line on stdout.
import autocannon from 'autocannon';

const options = JSON.parse(process.argv[2] ?? '{}');
process.stderr.write('start\n');
const before = process.cpuUsage();
const started = performance.now();
const result = await autocannon(options);
const cpu = process.cpuUsage(before);
process.stdout.write(
  `${JSON.stringify({
    total: result.requests.total,
    duration: result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    cpuSeconds: (cpu.user + cpu.system) / 1e6,
    wallSeconds: (performance.now() - started) / 1000,
  })}\n`,
);
