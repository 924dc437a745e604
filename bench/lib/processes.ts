/**
 * Every process a bench starts (the server under test, the bare baseline, Mosquitto, the simulator,
 * the load generator) goes through here: it is killed when the bench exits, however it exits, and
 * its temporary directories are removed. Also what /proc says about a process (CPU time, RSS).
 */
import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import {
  closeSync,
  mkdtempSync,
  openSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { MAX_QUEUED_BYTES, MAX_QUEUED_MESSAGES } from '../../src/adapters/devices/mqtt/mosquitto-files.ts';
import { LIMITED_ENDPOINTS } from '../../src/domain/rate-limit.ts';
import { freePort, MOSQUITTO_BIN, portOpen } from '../../test/support/mosquitto.ts';

export { freePort };

const children = new Set<ChildProcess>();
const dirs = new Set<string>();

process.on('exit', () => {
  for (const child of children)
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130));

/** A temporary directory removed when the bench exits. */
export function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'lockcloud-bench-'));
  dirs.add(dir);
  return dir;
}

/**
 * The tree of another commit, unpacked into a temporary directory with this checkout's
 * node_modules: a side-by-side baseline's server runs from it (startLockcloud's `root`).
 */
export function archiveCheckout(rev: string): string {
  const dir = tempDir();
  execFileSync('sh', ['-c', `git archive --format=tar "${rev}" | tar -x -C "${dir}"`]);
  symlinkSync(realpathSync('node_modules'), join(dir, 'node_modules'));
  return dir;
}

export interface Proc {
  readonly child: ChildProcess;
  readonly pid: number;
  /** The last 64 KiB of stdout and stderr together. */
  output(): string;
  /** Resolves with the first match of `pattern` in the output; rejects if the process exits first. */
  waitFor(pattern: RegExp, timeoutMs: number, what: string): Promise<RegExpExecArray>;
  /** SIGTERM (or the signal given), then SIGKILL after `graceMs`. */
  stop(signal?: NodeJS.Signals, graceMs?: number): Promise<void>;
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/** Starts a tracked process; with `logFile`, its stdout and stderr go to that file instead of a pipe. */
export function startProcess(
  command: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
  logFile?: string,
  cwd?: string,
): Proc {
  const fd = logFile === undefined ? undefined : openSync(logFile, 'a');
  const child = spawn(command, args, {
    env,
    ...(cwd === undefined ? {} : { cwd }),
    stdio: fd === undefined ? ['ignore', 'pipe', 'pipe'] : ['ignore', fd, fd],
  });
  if (fd !== undefined) closeSync(fd);
  if (child.pid === undefined) throw new Error(`could not start ${command}`);
  children.add(child);
  child.once('exit', () => children.delete(child));
  let out = '';
  const listeners = new Set<() => void>();
  const take = (chunk: Buffer): void => {
    out = (out + chunk.toString()).slice(-65_536);
    for (const listener of listeners) listener();
  };
  child.stdout?.on('data', take);
  child.stderr?.on('data', take);
  return {
    child,
    pid: child.pid,
    output: () => out,
    waitFor(pattern, timeoutMs, what) {
      return new Promise((resolve, reject) => {
        const done = (): void => {
          clearTimeout(timer);
          listeners.delete(check);
          child.off('exit', onExit);
        };
        const check = (): void => {
          const match = pattern.exec(out);
          if (match) {
            done();
            resolve(match);
          }
        };
        const onExit = (code: number | null): void => {
          done();
          reject(new Error(`${what}: the process exited (${code}) first:\n${out}`));
        };
        const timer = setTimeout(() => {
          done();
          reject(new Error(`${what}: not within ${timeoutMs} ms:\n${out}`));
        }, timeoutMs);
        listeners.add(check);
        child.once('exit', onExit);
        check();
      });
    },
    async stop(signal = 'SIGTERM', graceMs = 10_000) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill(signal);
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited(child);
      clearTimeout(timer);
    },
  };
}

/** The environment without any lockcloud setting, so the caller's shell cannot change what is measured. */
export function cleanEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const key of Object.keys(env))
    if (/^(LOCKCLOUD_|DATABASE_URL$|REDIS_|MQTT_URL$|SMTP_URL$|LOG_LEVEL$)/.test(key)) delete env[key];
  return env;
}

export interface Lockcloud extends Proc {
  readonly url: string;
  /** The broker as devices reach it. */
  readonly mqttUrl: string;
  /** Milliseconds from starting the process to its answering: what a profile should leave out. */
  readonly startupMs: number;
  /** Where its Prometheus metrics are, when started with `--metrics-port`. */
  readonly metricsUrl?: string;
}

/**
 * `node --import tsx src/bin/serve.ts` as `npm start` runs it, on loopback, request logs off (warn),
 * the embedded broker on a free port unless `--mqtt-url` is given. `nodeFlags`: e.g. --cpu-prof.
 * `logFile`: its output (at `logLevel`) goes to that file, as a deployment's would, not to the bench.
 */
export async function startLockcloud(
  args: readonly string[],
  options: {
    nodeFlags?: readonly string[];
    logLevel?: string;
    logFile?: string;
    /** Another checkout of lockcloud to run the server from (a side-by-side baseline); this one by default. */
    root?: string;
    /**
     * Run the compiled server (dist/, as the package and the image run it) instead of the sources
     * through tsx, whose compiler and source maps add about 80 MB to the RSS: for a bench of memory.
     * The caller builds dist/ first (`buildDist`).
     */
    built?: boolean;
  } = {},
): Promise<Lockcloud> {
  const external = args.indexOf('--mqtt-url');
  const mqttPort = external === -1 ? await freePort() : 0;
  const port = options.logFile === undefined ? 0 : await freePort();
  const spawnedAt = performance.now();
  const proc = startProcess(
    process.execPath,
    [
      ...(options.nodeFlags ?? []),
      ...(options.built ? ['dist/src/bin/serve.js'] : ['--import', 'tsx', 'src/bin/serve.ts']),
      '--host',
      '127.0.0.1',
      '--port',
      String(port),
      '--log-level',
      options.logLevel ?? 'warn',
      '--shutdown-grace-ms',
      '2000',
      ...(external === -1 ? ['--mqtt-port', String(mqttPort)] : []),
      ...args,
    ],
    cleanEnv(),
    options.logFile,
    options.root,
  );
  let url: string;
  let metricsUrl: string | undefined;
  if (options.logFile === undefined) {
    url = (await proc.waitFor(/listening on (http:\/\/\S+)/, 120_000, 'lockcloud to listen'))[1] ?? '';
    if (args.includes('--metrics-port'))
      metricsUrl = (await proc.waitFor(/metrics: +(http:\/\/\S+)/, 10_000, 'its metrics URL'))[1];
  } else {
    url = `http://127.0.0.1:${port}`;
    await until(
      'lockcloud to listen',
      120_000,
      async () => (await fetch(`${url}/public/locks`)).status === 401,
    );
  }
  return {
    ...proc,
    url,
    mqttUrl: external === -1 ? `mqtt://127.0.0.1:${mqttPort}` : (args[external + 1] ?? ''),
    startupMs: performance.now() - spawnedAt,
    ...(metricsUrl === undefined ? {} : { metricsUrl }),
  };
}

/**
 * The server's Prometheus metrics as scraped now: `read(series)` answers one series' value (a
 * series is its name, and its labels as a regular expression: `name\{space="old"\}`), `has` whether
 * it is there.
 */
async function scrape(
  server: Lockcloud,
): Promise<{ read: (series: string) => number; has: (series: string) => boolean }> {
  if (server.metricsUrl === undefined) throw new Error('the server was started without --metrics-port');
  const text = await (await fetch(server.metricsUrl)).text();
  const has = (series: string): boolean => new RegExp(`^${series} `, 'm').test(text);
  const read = (series: string): number => {
    const line = new RegExp(`^${series} ([\\d.e+]+)`, 'm').exec(text);
    if (!line?.[1]) throw new Error(`the server reports no ${series}`);
    return Number(line[1]);
  };
  return { read, has };
}

/** The server's store counters now (`lockcloud_store_statements_total`, `..._calls_total`). */
export async function storeTraffic(
  server: Lockcloud,
): Promise<{ statements: number; calls: number; fences: number; commits: number }> {
  const { read, has } = await scrape(server);
  return {
    statements: read('lockcloud_store_statements_total'),
    calls: read('lockcloud_store_calls_total'),
    // A tree from before the PostgreSQL read cache (a baseline) has none: it sent none.
    fences: has('lockcloud_store_fences_total') ? read('lockcloud_store_fences_total') : 0,
    // Counted since group commit; a baseline tree from before reports none (NaN: not known).
    commits: has('lockcloud_store_commits_total') ? read('lockcloud_store_commits_total') : Number.NaN,
  };
}

/**
 * Where the server's memory is, from its process metrics (prom-client's): V8's heap as committed
 * and as used, its old generation alone, and memory outside the heap that V8 is told of (Buffers).
 * What RSS holds beyond these is native: SQLite's page cache, malloc's arenas.
 */
export async function heapFigures(
  server: Lockcloud,
): Promise<{ heapTotal: number; heapUsed: number; oldTotal: number; oldUsed: number; external: number }> {
  const { read } = await scrape(server);
  return {
    heapTotal: read('nodejs_heap_size_total_bytes'),
    heapUsed: read('nodejs_heap_size_used_bytes'),
    oldTotal: read('nodejs_heap_space_size_total_bytes\\{space="old"\\}'),
    oldUsed: read('nodejs_heap_space_size_used_bytes\\{space="old"\\}'),
    external: read('nodejs_external_memory_bytes'),
  };
}

/** Polls `probe` (errors count as not yet) every 50 ms until it holds. */
export async function until(what: string, timeoutMs: number, probe: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await probe().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`still waiting for ${what} after ${timeoutMs} ms`);
    await sleep(50);
  }
}

/** `npm run build` in this checkout: dist/ compiled from the sources as they are now. */
export function buildDist(): void {
  const build = spawnSync(process.execPath, ['scripts/build.mjs'], { env: cleanEnv(), encoding: 'utf8' });
  if (build.status !== 0)
    throw new Error(`npm run build failed (${build.status}):\n${build.stdout}${build.stderr}`);
}

/**
 * `node --import tsx FILE ARGS`, e.g. the simulator or the admin CLI: of this checkout, or of `root`
 * (another checkout) when given.
 */
export function startTsx(file: string, args: readonly string[], root?: string): Proc {
  return startProcess(process.execPath, ['--import', 'tsx', file, ...args], cleanEnv(), undefined, root);
}

/** `lockcloud sim` on a seed file, against a broker, logging warnings only; of `root` when given. */
export function startSim(
  seedFile: string,
  mqttUrl: string,
  extra: readonly string[] = [],
  root?: string,
): Proc {
  return startTsx(
    'src/bin/sim.ts',
    ['--seed', seedFile, '--mqtt-url', mqttUrl, '--log-level', 'warn', ...extra],
    root,
  );
}

/** Runs `lockcloud admin ARGS` to its end; its stdout. */
export async function admin(args: readonly string[]): Promise<string> {
  const proc = startTsx('src/bin/admin.ts', args);
  let stdout = '';
  proc.child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  const code = await new Promise<number | null>((resolve) => proc.child.once('exit', resolve));
  if (code !== 0) throw new Error(`lockcloud admin ${args.join(' ')} exited ${code}:\n${proc.output()}`);
  return stdout;
}

/**
 * A Mosquitto of the bench's own on a free loopback port: anonymous, nothing kept, TCP_NODELAY, and
 * the queue `lockcloud admin mqtt-acl` configures (Mosquitto's default drops past 1,000 a client).
 * `onPort`: the port of one stopped before (a restart).
 */
export async function startMosquitto(onPort?: number): Promise<Proc & { url: string }> {
  const port = onPort ?? (await freePort());
  const conf = join(tempDir(), 'mosquitto.conf');
  writeFileSync(
    conf,
    [
      `listener ${port} 127.0.0.1`,
      'allow_anonymous true',
      'persistence false',
      'set_tcp_nodelay true',
      'log_dest stderr',
      `max_queued_messages ${MAX_QUEUED_MESSAGES}`,
      `max_queued_bytes ${MAX_QUEUED_BYTES}`,
      '',
    ].join('\n'),
  );
  const proc = startProcess(MOSQUITTO_BIN, ['-c', conf]);
  const deadline = Date.now() + 5000;
  while (!(await portOpen(port))) {
    if (proc.child.exitCode !== null) throw new Error(`mosquitto exited: ${proc.output()}`);
    if (Date.now() > deadline) throw new Error(`mosquitto not listening on ${port}: ${proc.output()}`);
    await sleep(25);
  }
  return { ...proc, url: `mqtt://127.0.0.1:${port}` };
}

/** A rate-limits file whose budgets nothing here can spend: the limiter runs on every request, refuses none. */
export function hugeRateLimits(dir: string, endpoints: readonly string[] = LIMITED_ENDPOINTS): string {
  const huge = { burst: 1_000_000, per_second: 1_000_000 };
  const file = join(dir, 'rate-limits.json');
  writeFileSync(
    file,
    JSON.stringify({
      endpoints: Object.fromEntries(endpoints.map((e) => [e, { account: huge, ip: huge }])),
      commands: huge,
    }),
  );
  return file;
}

/**
 * Pins every thread of `pid` to one core (taskset, util-linux); false where that cannot be done (one
 * core, no taskset). A server and the load generator on cores of their own do not preempt each
 * other: on a shared core, the server's write that wakes the client hands the core over, and the
 * profile charges that wait to the write.
 */
export function pinTo(pid: number, core: number): boolean {
  if (cpus().length < 2 || process.env.BENCH_PIN === '0') return false;
  try {
    execFileSync('taskset', ['-a', '-cp', String(core), String(pid)], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const CLOCK_TICKS = 100; // USER_HZ: 100 on every Linux this runs on

/** User + system CPU seconds the process has used so far. */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}

/** Busy and total CPU seconds of the whole machine (all cores), from /proc/stat. */
export function machineCpu(): { busy: number; total: number } {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '';
  const n = line.trim().split(/\s+/).slice(1).map(Number);
  const total = n.slice(0, 8).reduce((a, b) => a + b, 0);
  const idle = (n[3] ?? 0) + (n[4] ?? 0);
  return { busy: (total - idle) / CLOCK_TICKS, total: total / CLOCK_TICKS };
}

/** Resident set size (VmRSS) and its peak (VmHWM), in bytes. */
export function memory(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name: string): number =>
    Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024;
  return { rss: kb('VmRSS'), peak: kb('VmHWM') };
}
