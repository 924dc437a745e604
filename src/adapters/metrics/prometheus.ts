/**
 * The Metrics port and the HTTP request metrics over prom-client, exposed in Prometheus's text
 * format at /metrics. Every server instance has a registry of its own (tests run many servers in
 * one process); the process metrics (CPU, memory, event loop, GC) are the process's, collected once
 * per process into a registry of their own and appended to every scrape.
 */
import { Counter, collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import { DEVICE_CONNECTION_REFUSALS } from '../../app/ports/ops.ts';
import type {
  CommandOutcome,
  DeviceBrokerMetrics,
  DeviceConnectionRefusal,
  Metrics,
  WebhookAttemptOutcome,
} from '../../app/ports.ts';
import { LOCK_COMMANDS, type LockCommand } from '../../domain/lock.ts';
import { TASK_FAILURES } from '../../domain/task.ts';
import { RequestDurations } from './request-durations.ts';

/** Seconds; up to 30 since v1 control waits for its command (15 s by default) before answering. */
const WEBHOOK_OUTCOMES: readonly WebhookAttemptOutcome[] = [
  'delivered',
  'retry_scheduled',
  'failed',
  'interrupted',
];

const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15, 30];

let processRegistry: Registry | undefined;

/**
 * Lazily, once: collectDefaultMetrics starts an event-loop monitor and a GC observer that are
 * never stopped, so one per server would pile up in a test run.
 */
function processMetrics(): Registry {
  if (processRegistry === undefined) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

export interface PrometheusMetricsOptions {
  /** Read at every scrape: access points connected now (the store's view, shared by all processes). */
  readonly connectedAccessPoints: () => Promise<number>;
  /** Read at every scrape: what this process has sent its store so far (none: not exposed). */
  readonly storeTraffic?: () => {
    readonly statements: number;
    readonly calls: number;
    readonly fences: number;
    readonly commits: number;
  };
}

/**
 * A counter the store's connections keep as a plain number (no call into prom-client per
 * statement), handed over at scrape time.
 */
function storeCounter(name: string, help: string, read: () => number, registers: Registry[]): void {
  let reported = 0;
  new Counter({
    name,
    help,
    registers,
    collect() {
      const now = read();
      this.inc(now - reported);
      reported = now;
    },
  });
}

export class PrometheusMetrics implements Metrics, DeviceBrokerMetrics {
  readonly registry = new Registry();
  private readonly requests: RequestDurations;
  private readonly commands: Counter<'command' | 'outcome'>;
  private readonly webhooks: Counter<'outcome'>;
  private readonly rateLimitFallbacks: Counter;
  private readonly deviceRefusals: Counter<'reason'>;
  private readonly deviceConnections: Gauge;

  constructor(options: PrometheusMetricsOptions) {
    const registers = [this.registry];
    this.requests = new RequestDurations(
      'http_request_duration_seconds',
      'HTTP requests by method, route pattern and status code, and how long they took',
      LATENCY_BUCKETS,
    );
    this.registry.registerMetric(this.requests.asMetric());
    this.commands = new Counter({
      name: 'lockcloud_commands_total',
      help: 'Lock commands ended by this process, by command and outcome (success or the task error)',
      labelNames: ['command', 'outcome'],
      registers,
    });
    this.webhooks = new Counter({
      name: 'lockcloud_webhook_attempts_total',
      help: 'Webhook delivery attempts by outcome (delivered, retry_scheduled, failed, interrupted)',
      labelNames: ['outcome'],
      registers,
    });
    this.rateLimitFallbacks = new Counter({
      name: 'lockcloud_rate_limit_fallbacks_total',
      help: "Rate-limit checks answered from this process's memory because Redis could not answer",
      registers,
    });
    this.deviceRefusals = new Counter({
      name: 'lockcloud_device_connections_refused_total',
      help: 'Connections the embedded device broker refused or closed before authentication, by reason',
      labelNames: ['reason'],
      registers,
    });
    this.deviceConnections = new Gauge({
      name: 'lockcloud_device_connections_open',
      help: "Connections open to this process's embedded device broker, authenticated or not",
      registers,
    });
    // Every known series from 0, so rate() and alerts see the first one happen.
    for (const reason of DEVICE_CONNECTION_REFUSALS) this.deviceRefusals.inc({ reason }, 0);
    for (const command of LOCK_COMMANDS)
      for (const outcome of ['success' as const, ...TASK_FAILURES])
        this.commands.inc({ command, outcome }, 0);
    for (const outcome of WEBHOOK_OUTCOMES) this.webhooks.inc({ outcome }, 0);
    new Gauge({
      name: 'lockcloud_access_points_connected',
      help: 'Access points connected to the broker now (the same in every process of one database)',
      registers,
      async collect() {
        // The store unreachable must not fail the whole scrape: readiness reports it.
        const connected = await options.connectedAccessPoints().catch(() => undefined);
        if (connected !== undefined) this.set(connected);
      },
    });
    const { storeTraffic } = options;
    if (storeTraffic !== undefined) {
      storeCounter(
        'lockcloud_store_statements_total',
        'Statements this process sent its store, BEGIN and COMMIT included (on PostgreSQL, round trips)',
        () => storeTraffic().statements,
        registers,
      );
      storeCounter(
        'lockcloud_store_calls_total',
        'Store calls this process made: a statement on its own, or a whole transaction',
        () => storeTraffic().calls,
        registers,
      );
      storeCounter(
        'lockcloud_store_commits_total',
        'Of the statements, the COMMITs: on SQLite one carries every transaction finished in the same turn of the event loop',
        () => storeTraffic().commits,
        registers,
      );
      storeCounter(
        'lockcloud_store_fences_total',
        "Of the statements, the PostgreSQL read cache's fences: SELECT 1 on its listening connection before answering from memory",
        () => storeTraffic().fences,
        registers,
      );
    }
  }

  commandEnded(command: LockCommand, outcome: CommandOutcome): void {
    this.commands.inc({ command, outcome });
  }

  webhookAttempted(outcome: WebhookAttemptOutcome): void {
    this.webhooks.inc({ outcome });
  }

  deviceConnectionRefused(reason: DeviceConnectionRefusal): void {
    this.deviceRefusals.inc({ reason });
  }

  deviceConnectionsOpen(count: number): void {
    this.deviceConnections.set(count);
  }

  /** A rate-limit check answered from memory, Redis away (adapters/rate-limit/redis.ts). */
  rateLimitFallback(): void {
    this.rateLimitFallbacks.inc();
  }

  observeRequest(method: string, route: string, statusCode: number, seconds: number): void {
    this.requests.observe(method, route, statusCode, seconds);
  }

  async scrape(): Promise<{ readonly contentType: string; readonly body: string }> {
    const [own, process] = await Promise.all([this.registry.metrics(), processMetrics().metrics()]);
    return { contentType: this.registry.contentType, body: `${own}\n${process}` };
  }
}
