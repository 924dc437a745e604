/**
 * The soak (issue 11, point 6): a real server process in sandbox mode (simulated locks, SQLite) under
 * mixed load for a while (test/support/mixed-load.ts: v3 reads, commands and result polls, v1 reads
 * and controls, sandbox changes, bad requests, plus a v1 login a minute), its webhooks going to a
 * local receiver. Samples the server's RSS (/proc), heap, event-loop delay, open fds and handles
 * (its metrics listener) and follows every webhook message through the delivery log to the receiver. Used by
 * `npm run soak` (scripts/soak.ts) and, short, by test/reliability/soak.test.ts.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Seed } from '../../src/app/seed/schema.ts';
import { LIMITED_ENDPOINTS } from '../../src/domain/rate-limit.ts';
import { eventually } from './eventually.ts';
import { MixedLoad, type Verdict } from './mixed-load.ts';
import { type ServerProcess, startProcess } from './process.ts';
import { type Receiver, startReceiver } from './webhook-receiver.ts';

export interface SoakOptions {
  /** How long the load runs; with `enough`, the longest it may run. */
  readonly durationMs: number;
  /**
   * Ends the load early once this holds (looked at every 2 s): a run measured in work done rather
   * than time, for a test that must not depend on how fast the machine is.
   */
  readonly enough?: (load: MixedLoad, webhooks: WebhookCounts) => boolean;
  /** How often a progress sample is taken and reported (default 30 s). */
  readonly reportEveryMs?: number;
  /** Concurrent clients (default 6). */
  readonly clients?: number;
  /** Pause of each client between two requests (default 20 ms): mixed load, not a flood. */
  readonly pauseMs?: number;
  /** When RSS is taken as warmed up (default: a tenth of the run, at least 5 s, at most 60 s). */
  readonly warmUpMs?: number;
  readonly onSample?: (sample: Sample, load: MixedLoad) => void;
}

export interface Sample {
  readonly elapsedMs: number;
  readonly requests: number;
  readonly verdicts: Readonly<Record<Verdict, number>>;
  readonly rssMb: number;
  readonly heapUsedMb: number;
  readonly loopDelayP99Ms: number;
  readonly openFds: number;
  readonly handles: number;
  readonly webhooks: WebhookCounts;
  readonly load1: number;
}

export interface WebhookCounts {
  /** Messages seen in the delivery log. */
  readonly logged: number;
  readonly delivered: number;
  readonly pending: number;
  readonly failed: number;
  /** Distinct webhook-ids the receiver got. */
  readonly received: number;
}

export interface SoakReport {
  readonly durationMs: number;
  readonly samples: readonly Sample[];
  readonly table: string;
  readonly verdicts: Readonly<Record<Verdict, number>>;
  /** Answers judged error, network or timeout, and 503s: none is expected without a fault. */
  readonly errors: number;
  readonly failures: readonly unknown[];
  readonly acceptedCommands: number;
  /** Accepted commands not ended at the end, or ended with an undocumented outcome. */
  readonly unfinishedCommands: number;
  readonly badOutcomes: number;
  readonly webhooks: WebhookCounts;
  /** Logged delivered but never received, failed, or still pending at the end. */
  readonly lostWebhooks: number;
  /** The delivery log (500 entries) overflowed between two looks: some messages were not followed. */
  readonly logOverflowed: boolean;
  /** The server's RSS at the start of the load, after warm-up and at the end, and when (ms into the run). */
  readonly rss: {
    readonly startMb: number;
    readonly warmMb: number;
    readonly warmAtMs: number;
    readonly endMb: number;
    readonly endAtMs: number;
  };
  readonly serverExit: string | null;
}

const EMAIL = 'soak@example.com';
const PASSWORD = 'soak-password';
const KEY = 'soak-api-key-0001';
const LOCKS = Array.from({ length: 8 }, (_, i) => `50a40000-0000-4000-8000-00000000000${i}`);
/** The delivery log is followed this often, well within its 500 entries at the soak's pace. */
const LOG_POLL_MS = 2000;

function seed(receiverUrl: string): Seed {
  return {
    accounts: [{ email: EMAIL, password: PASSWORD, verified: true }],
    api_keys: [{ account: EMAIL, key: KEY }],
    locks: LOCKS.map((device_id, i) => ({
      device_id,
      serial: `SOAK${i}`,
      nickname: `Soak door ${i}`,
      owner: EMAIL,
      latency_ms: i % 3 === 0 ? 50 : 0,
    })),
    webhooks: [{ account: EMAIL, url: `${receiverUrl}/hook/{device_id}/{state}` }],
  };
}

function rssMb(pid: number | undefined): number {
  if (pid === undefined) return Number.NaN;
  try {
    const kb = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb === undefined ? Number.NaN : Number(kb) / 1024;
  } catch {
    return Number.NaN;
  }
}

function metric(text: string, name: string): number {
  const match = new RegExp(`^${name}(?:\\{[^}]*\\})? ([0-9.e+-]+)$`, 'm').exec(text);
  return match?.[1] === undefined ? Number.NaN : Number(match[1]);
}

interface Delivery {
  readonly id: string;
  readonly status: string;
}

/** Follows the webhook messages: the log (by id, latest status) against what the receiver got. */
class WebhookFollower {
  private readonly statuses = new Map<string, string>();
  overflowed = false;

  constructor(
    private readonly url: string,
    private readonly receiver: Receiver,
  ) {}

  async look(): Promise<void> {
    const res = await fetch(`${this.url}/ext/webhook/deliveries?limit=500`, {
      headers: { authorization: KEY },
    });
    if (res.status !== 200) return;
    const log = (await res.json()) as Delivery[];
    if (log.length === 500 && !this.statuses.has(log[log.length - 1]?.id ?? '')) this.overflowed = true;
    for (const d of log) this.statuses.set(d.id, d.status);
  }

  counts(): WebhookCounts {
    const received = new Set(this.receiver.requests.map((r) => String(r.headers['webhook-id'])));
    let delivered = 0;
    let pending = 0;
    let failed = 0;
    for (const status of this.statuses.values()) {
      if (status === 'delivered') delivered++;
      else if (status === 'failed') failed++;
      else pending++;
    }
    return { logged: this.statuses.size, delivered, pending, failed, received: received.size };
  }

  lost(): number {
    const received = new Set(this.receiver.requests.map((r) => String(r.headers['webhook-id'])));
    let lost = 0;
    for (const [id, status] of this.statuses) if (status !== 'delivered' || !received.has(id)) lost++;
    return lost;
  }
}

export async function runSoak(options: SoakOptions): Promise<SoakReport> {
  const dir = mkdtempSync(join(tmpdir(), 'lockcloud-soak-'));
  const receiver = await startReceiver({ status: 204 });
  let server: ServerProcess | undefined;
  let load: MixedLoad | undefined;
  try {
    writeFileSync(join(dir, 'seed.json'), JSON.stringify(seed(receiver.url)));
    // One heavy client on one address: room for it on every v3 endpoint (the limiter still runs).
    const roomy = { burst: 10_000, per_second: 10_000 };
    const limits = {
      endpoints: Object.fromEntries(LIMITED_ENDPOINTS.map((e) => [e, { account: roomy, ip: roomy }])),
      commands: roomy,
    };
    writeFileSync(join(dir, 'limits.json'), JSON.stringify(limits));
    server = await startProcess([
      '--data',
      dir,
      '--seed',
      join(dir, 'seed.json'),
      '--rate-limits',
      join(dir, 'limits.json'),
      '--command-timeout-ms',
      '5000',
      '--metrics-port',
      '0',
    ]);
    const { url, metricsUrl } = server;
    if (metricsUrl === undefined) throw new Error('the server printed no metrics URL');
    const pid = server.child.pid;
    let exited: string | null = null;
    server.child.once('exit', (code, signal) => {
      exited = `exited ${code ?? signal}`;
    });
    const follower = new WebhookFollower(url, receiver);
    load = new MixedLoad({
      url,
      apiKey: KEY,
      locks: LOCKS,
      email: EMAIL,
      password: PASSWORD,
      pauseMs: options.pauseMs ?? 20,
      // Logins have limits of their own (10 per e-mail, then one a minute): one a minute, below.
      mix: { 'v1-login': 0 },
    });
    const started = Date.now();
    const startMb = rssMb(pid);
    const warmUpMs = options.warmUpMs ?? Math.min(60_000, Math.max(5_000, options.durationMs / 10));
    let warmMb = Number.NaN;
    let warmAtMs = 0;
    const samples: Sample[] = [];
    const sample = async (): Promise<Sample> => {
      const text = await (await fetch(metricsUrl)).text();
      const s: Sample = {
        elapsedMs: Date.now() - started,
        requests: load?.requests ?? 0,
        verdicts: { ...(load?.verdicts ?? ({} as Record<Verdict, number>)) },
        rssMb: rssMb(pid),
        heapUsedMb: metric(text, 'nodejs_heap_size_used_bytes') / 2 ** 20,
        loopDelayP99Ms: metric(text, 'nodejs_eventloop_lag_p99_seconds') * 1000,
        openFds: metric(text, 'process_open_fds'),
        handles: metric(text, 'nodejs_active_handles_total'),
        webhooks: follower.counts(),
        load1: loadavg()[0] ?? Number.NaN,
      };
      samples.push(s);
      return s;
    };

    await load.start(options.clients ?? 6);
    const reportEvery = options.reportEveryMs ?? 30_000;
    let nextReport = started + reportEvery;
    let nextLogin = started + 60_000;
    const done = (): boolean => options.enough?.(load as MixedLoad, follower.counts()) ?? false;
    while (Date.now() - started < options.durationMs && exited === null && !done()) {
      // The soak's own cadence: it runs for a duration, looking at the log and sampling as it goes.
      await sleep(Math.min(LOG_POLL_MS, Math.max(0, started + options.durationMs - Date.now())));
      await follower.look().catch(() => undefined);
      if (Number.isNaN(warmMb) && Date.now() - started >= warmUpMs) {
        warmMb = rssMb(pid);
        warmAtMs = Date.now() - started;
      }
      if (Date.now() >= nextLogin) {
        nextLogin += 60_000;
        await load.login().catch(() => undefined);
      }
      if (Date.now() >= nextReport) {
        nextReport += reportEvery;
        options.onSample?.(await sample(), load);
      }
    }
    await load.stop();
    if (Number.isNaN(warmMb)) {
      warmMb = rssMb(pid);
      warmAtMs = Date.now() - started;
    }
    // The commands still running end (result, or their deadline); the last messages go out.
    const left = await load.settle(15_000);
    await eventually(
      'every webhook message to have its outcome',
      async () => {
        await follower.look().catch(() => undefined);
        return follower.counts().pending === 0;
      },
      { timeoutMs: 20_000, everyMs: 250 },
    ).catch(() => undefined); // the report counts what is still pending as lost

    const end = await sample();
    options.onSample?.(end, load);
    const { verdicts } = load;
    return {
      durationMs: Date.now() - started,
      samples,
      table: load.table(),
      verdicts: { ...verdicts },
      errors: verdicts.error + verdicts.network + verdicts.timeout + verdicts.unavailable,
      failures: load.failures,
      acceptedCommands: load.accepted.length,
      unfinishedCommands: left.length,
      badOutcomes: load.badOutcomes.length,
      webhooks: follower.counts(),
      lostWebhooks: follower.lost(),
      logOverflowed: follower.overflowed,
      rss: { startMb, warmMb, warmAtMs, endMb: end.rssMb, endAtMs: end.elapsedMs },
      serverExit: exited,
    };
  } finally {
    await load?.stop();
    await server?.stop();
    await receiver.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
