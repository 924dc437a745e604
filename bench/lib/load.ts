/**
 * Load from outside the server: autocannon in a process of its own for throughput, and a small
 * keep-alive HTTP client for the benches that drive a flow (command then polls, login then control)
 * and time each request themselves. While autocannon runs, the CPU used by the server, by autocannon
 * and by the rest of the machine is measured, so a run can say whether the load generator or other
 * work on the machine was the limit rather than the server.
 */
import { Agent, request } from 'node:http';
import { cpus } from 'node:os';
import { cpuSeconds, machineCpu, pinTo, startProcess } from './processes.ts';
import { median } from './report.ts';

export interface LoadResult {
  readonly rps: number;
  /** autocannon's latencies: whole milliseconds. */
  readonly p50: number;
  readonly p99: number;
  readonly requests: number;
  /** Non-2xx answers, errors and timeouts together: any of them spoils the run. */
  readonly bad: number;
  /** Cores' worth of CPU each used during the load (1.0 = one core busy all the time). */
  readonly serverCores: number;
  readonly loaderCores: number;
  /** Everything else on the machine (other agents, the simulator, the bench itself). */
  readonly otherCores: number;
  /** The server and autocannon each ran on a core of its own (processes.ts, pinTo). */
  readonly pinned: boolean;
}

export interface LoadOptions {
  readonly url: string;
  readonly headers?: Record<string, string>;
  readonly connections?: number;
  readonly seconds: number;
  /** The process whose CPU is measured as the server's. */
  readonly serverPid: number;
}

/** autocannon -c 50 (by default) for `seconds` against one URL. */
export async function autocannon(options: LoadOptions): Promise<LoadResult> {
  const proc = startProcess(process.execPath, [
    'bench/lib/autocannon-child.mjs',
    JSON.stringify({
      url: options.url,
      headers: options.headers ?? {},
      connections: options.connections ?? 50,
      duration: options.seconds,
    }),
  ]);
  // Before the load begins: the server on the first core, the load generator on the last.
  const pinned = pinTo(options.serverPid, 0) && pinTo(proc.pid, cpus().length - 1);
  await proc.waitFor(/^start$/m, 30_000, 'autocannon to start');
  const server0 = cpuSeconds(options.serverPid);
  const machine0 = machineCpu();
  const t0 = performance.now();
  const line = await proc.waitFor(/^\{.*\}$/m, (options.seconds + 60) * 1000, 'autocannon to finish');
  const wall = (performance.now() - t0) / 1000;
  const server = cpuSeconds(options.serverPid) - server0;
  const machine = machineCpu();
  await proc.stop();
  const r = JSON.parse(line[0]) as {
    total: number;
    duration: number;
    p50: number;
    p99: number;
    non2xx: number;
    errors: number;
    timeouts: number;
    cpuSeconds: number;
  };
  const machineBusy = machine.busy - machine0.busy;
  return {
    rps: r.total / r.duration,
    p50: r.p50,
    p99: r.p99,
    requests: r.total,
    bad: r.non2xx + r.errors + r.timeouts,
    serverCores: server / wall,
    loaderCores: r.cpuSeconds / wall,
    otherCores: Math.max(0, machineBusy - server - r.cpuSeconds) / wall,
    pinned,
  };
}

/** "server 0.95 + autocannon 0.80 + other 0.20 of 2 cores". */
export function cpuNote(r: LoadResult): string {
  return `server ${r.serverCores.toFixed(2)}, autocannon ${r.loaderCores.toFixed(2)}, other ${r.otherCores.toFixed(2)} of ${cpus().length} cores`;
}

export interface Answer {
  readonly status: number;
  readonly body: string;
}

/** A keep-alive HTTP/1.1 client for loopback, cheaper per request than fetch. */
export class HttpClient {
  private readonly agent: Agent;
  private readonly host: string;
  private readonly port: number;

  constructor(baseUrl: string, maxSockets = 256) {
    const url = new URL(baseUrl);
    this.host = url.hostname;
    this.port = Number(url.port);
    this.agent = new Agent({ keepAlive: true, maxSockets, maxFreeSockets: maxSockets });
  }

  request(
    method: string,
    path: string,
    headers: Record<string, string> = {},
    json?: unknown,
  ): Promise<Answer> {
    const body = json === undefined ? undefined : JSON.stringify(json);
    const h: Record<string, string | number> = { ...headers };
    if (body !== undefined) {
      h['content-type'] = 'application/json';
      h['content-length'] = Buffer.byteLength(body);
    }
    return new Promise((resolve, reject) => {
      const req = request(
        { agent: this.agent, host: this.host, port: this.port, method, path, headers: h },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => {
            text += chunk;
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  }

  async json<T>(
    method: string,
    path: string,
    headers: Record<string, string> = {},
    json?: unknown,
  ): Promise<T> {
    const answer = await this.request(method, path, headers, json);
    if (answer.status >= 300) throw new Error(`${method} ${path}: ${answer.status} ${answer.body}`);
    return (answer.body === '' ? undefined : JSON.parse(answer.body)) as T;
  }

  close(): void {
    this.agent.destroy();
  }
}

/** Whether every run had the server and autocannon on cores of their own, said for a bench's notes. */
export function pinNote(runs: readonly LoadResult[]): string {
  return runs.every((r) => r.pinned)
    ? 'Each run pinned the server under test to the first core and autocannon to the last (taskset), so neither preempts the other: the server CPU per request is steadier, and the profile no longer charges the wait for a core to the write that woke the client.'
    : 'The server and autocannon were not pinned to cores of their own (one core, no taskset, or BENCH_PIN=0): they preempt each other.';
}

/**
 * What limited the runs against a bare node:http baseline: the load generator (it shares the
 * machine), the CPU the server got; and why the per-CPU-second ratio is shown beside req/s.
 */
export function harnessNotes(
  bareRuns: readonly LoadResult[],
  what: string,
  runs: readonly LoadResult[],
): string[] {
  const bareLoader = median(bareRuns.map((r) => r.loaderCores));
  const bareServer = median(bareRuns.map((r) => r.serverCores));
  const server = median(runs.map((r) => r.serverCores));
  const busy = median(runs.map((r) => r.serverCores + r.loaderCores + r.otherCores));
  return [
    `Harness: during the bare runs autocannon used ${bareLoader.toFixed(2)} of a core and the bare server ${bareServer.toFixed(2)}; ` +
      (bareLoader >= 0.8 || bareLoader >= bareServer
        ? 'the load generator needs more CPU than the server it loads and shares the same 2 cores with it, so it is part of what limits the bare baseline: the req/s ratios against it are flattering (closer to 1 than the truth). The per-CPU-second ratio does not depend on that.'
        : 'the load generator was not the limit.'),
    'Req per server CPU-second divides the throughput by the CPU the server process got during the run (from /proc): when other work on the machine takes CPU from one run and not the next, it still compares what a request costs, so it is the steadier ratio on a shared machine.',
    busy >= 0.9 * cpus().length
      ? `During ${what} the machine was saturated (${busy.toFixed(2)} of ${cpus().length} cores busy) and the server got ${server.toFixed(2)} of a core: its req/s is bounded by the CPU it was given, which is why the per-CPU-second ratio is shown too.`
      : `During ${what} the server used ${server.toFixed(2)} of a core with CPU to spare on the machine.`,
  ];
}
