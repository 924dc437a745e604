/**
 * The composition root: the only file that picks backends, builds the application and its HTTP
 * front, and knows how to start and stop them. `src/bin/serve.ts` and the tests both come through here.
 */
import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { mosquittoPasswordHasher } from './adapters/devices/mqtt/mosquitto-password.ts';
import { memoryMailer } from './adapters/mail/memory-mailer.ts';
import { bothMailers, smtpMailer } from './adapters/mail/smtp-mailer.ts';
import { PrometheusMetrics } from './adapters/metrics/prometheus.ts';
import { MemoryRateLimitStore } from './adapters/rate-limit/memory.ts';
import { RedisRateLimitStore } from './adapters/rate-limit/redis.ts';
import { AdjustableClock } from './adapters/system/clock.ts';
import { hmacCodeHasher } from './adapters/system/code-hasher.ts';
import { cryptoRandom, scryptHasher, sha256Hasher } from './adapters/system/crypto.ts';
import { LocalEventBus } from './adapters/system/event-bus.ts';
import { MemoryMailbox } from './adapters/system/mailbox.ts';
import { RedisEventBus } from './adapters/system/redis-event-bus.ts';
import { addressPolicy } from './adapters/webhooks/address-policy.ts';
import { httpTransport } from './adapters/webhooks/http-transport.ts';
import { aesGcmBox, loadServerKey } from './adapters/webhooks/secret-box.ts';
import { standardWebhooksSigner } from './adapters/webhooks/signer.ts';
import { Lockcloud, type StartReport } from './app/lockcloud.ts';
import type {
  EventBus,
  Mailer,
  PasswordHasher,
  Logger as PortLogger,
  RateLimitStore,
  Store,
} from './app/ports.ts';
import { parseRateLimits } from './app/rate-limit-settings.ts';
import type { Seed } from './app/seed/schema.ts';
import { parseSeed } from './app/seed/validate.ts';
import { DEFAULT_DISPATCH_LIMITS } from './app/webhooks/dispatcher.ts';
import type { Config } from './config/config.ts';
import type { RateLimitSettings } from './domain/rate-limit.ts';
import { listenMetrics, type MetricsListener } from './http/metrics-listener.ts';
import { buildHttp } from './http/server.ts';
import { type DeviceLink, openDeviceLink } from './open-device-link.ts';
import { openLogger } from './open-logger.ts';
import { drainHttp, readinessChecks } from './open-ops.ts';
import { openStore } from './open-store.ts';
import { VERSION } from './version.ts';

export { VERSION };

export interface ServerOverrides {
  /** Tests pass a cheaper password hash; production keeps the default cost. */
  readonly passwords?: PasswordHasher;
  readonly logger?: Logger;
}

export interface LockcloudServer {
  readonly lockcloud: Lockcloud;
  readonly http: FastifyInstance;
  readonly clock: AdjustableClock;
  readonly report: StartReport;
  readonly devices: DeviceLink;
  /**
   * The store and the event bus this root opened: for tests and tools that look behind the API (the
   * application itself keeps its adapters to itself).
   */
  readonly store: Store;
  readonly events: EventBus;
  readonly logger: Logger;
  /** This server's metrics (each server its own registry). */
  readonly metrics: PrometheusMetrics;
  /** Where they are served once listening (`--metrics-port`); undefined: not served. */
  readonly metricsUrl: string | undefined;
  /**
   * Listens on the configured host and port (0: any free port), and for metrics on their own port
   * when configured; resolves to the base URL.
   */
  listen(): Promise<string>;
  /** Drains HTTP (up to --shutdown-grace-ms), then stops the application and the device link. */
  close(): Promise<void>;
}

export class StartupError extends Error {
  override name = 'StartupError';
}

export function readSeedFile(path: string): Seed {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new StartupError(`cannot read the seed file ${path}: ${(error as Error).message}`);
  }
  return parseSeed(text);
}

function readRateLimitsFile(path: string): RateLimitSettings {
  try {
    return parseRateLimits(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new StartupError(`${path}: ${(error as Error).message}`);
  }
}

/**
 * Memory for one process; Redis when several processes must share the limits, falling back to
 * memory (logged and counted) while Redis is away.
 */
function openRateLimitStore(
  config: Config,
  logger: PortLogger,
  metrics: PrometheusMetrics,
): RateLimitStore | undefined {
  if (!config.rateLimit) return undefined;
  return config.redisUrl === undefined
    ? new MemoryRateLimitStore()
    : new RedisRateLimitStore(config.redisUrl, config.redisPrefix, {
        logger,
        onFallback: () => metrics.rateLimitFallback(),
      });
}

/**
 * One process alone keeps its events in memory; with Redis, task ends and state changes reach every
 * process (a v1 control waiting on A for a device whose answer came to B).
 */
async function openEventBus(
  config: Config,
  logger: PortLogger,
): Promise<{ events: EventBus; close: () => Promise<void> }> {
  if (config.redisUrl === undefined) {
    const events = new LocalEventBus((error) => logger.error({ err: error }, 'event listener failed'));
    return { events, close: async () => undefined };
  }
  try {
    const events = await RedisEventBus.connect(config.redisUrl, config.redisPrefix, logger);
    return { events, close: () => events.close() };
  } catch (error) {
    throw new StartupError(`cannot reach Redis for the event bus: ${(error as Error).message}`);
  }
}

/**
 * The dashboard's mail: SMTP when SMTP_URL is set (and, in the sandbox, a copy in the mailbox for
 * /_sim/mailbox); otherwise stored in the mailbox and logged.
 */
function openMailer(
  config: Config,
  mailbox: MemoryMailbox,
  clock: AdjustableClock,
  logger: PortLogger,
): { mailer: Mailer; close: () => void } {
  const stored = memoryMailer(mailbox, clock, logger);
  if (config.smtpUrl === undefined) {
    if (config.mode === 'production')
      logger.warn(
        {},
        'no SMTP_URL: dashboard mails (sign-up and reset codes) are only logged, not delivered',
      );
    return { mailer: stored, close: () => undefined };
  }
  const smtp = smtpMailer(config.smtpUrl, config.mailFrom, logger);
  return { mailer: config.mode === 'sandbox' ? bothMailers(smtp, stored) : smtp, close: () => smtp.close() };
}

export async function createServer(
  config: Config,
  overrides: ServerOverrides = {},
): Promise<LockcloudServer> {
  const logger = overrides.logger ?? openLogger(config);
  const sandbox = config.mode === 'sandbox';
  const seed = config.seedFile === undefined ? undefined : readSeedFile(config.seedFile);
  const rateLimitSettings =
    config.rateLimitsFile === undefined ? undefined : readRateLimitsFile(config.rateLimitsFile);

  // An unreachable database or a failed migration: a one-line reason and exit 2, not a stack trace.
  const store = await openStore(config, { readCache: true }).catch((error: unknown) => {
    throw new StartupError(`cannot open the store: ${(error as Error).message}`, { cause: error });
  });
  let bus: Awaited<ReturnType<typeof openEventBus>>;
  try {
    bus = await openEventBus(config, logger);
  } catch (error) {
    await store.close();
    throw error;
  }
  const clock = new AdjustableClock();
  const mailbox = new MemoryMailbox();
  const mail = openMailer(config, mailbox, clock, logger);
  const serverKey = loadServerKey(config.secretKey, config.dataDir);
  const secretBox = aesGcmBox(serverKey);
  const metrics = new PrometheusMetrics({ connectedAccessPoints: () => store.accessPoints.countOnline() });
  let devices: DeviceLink;
  try {
    devices = await openDeviceLink(config, {
      store,
      clock,
      logger,
      random: cryptoRandom,
      secrets: sha256Hasher,
      secretBox,
      metrics,
    });
  } catch (error) {
    await store.close();
    await bus.close();
    throw new StartupError(`cannot start the device link: ${(error as Error).message}`);
  }
  const rateLimits = openRateLimitStore(config, logger, metrics);
  const lockcloud = new Lockcloud({
    store,
    gateway: devices.gateway,
    simulator: devices.simulator,
    clock,
    clockControl: clock,
    random: cryptoRandom,
    secrets: sha256Hasher,
    passwords: overrides.passwords ?? scryptHasher(),
    events: bus.events,
    // On PostgreSQL other server processes may share the store; SQLite is one process's own.
    sharedStore: config.databaseUrl !== undefined,
    mailbox,
    mailer: mail.mailer,
    codeHasher: hmacCodeHasher(serverKey),
    logger,
    policy: { commandTimeoutMs: config.commandTimeoutMs, lowBatteryThreshold: config.lowBatteryThreshold },
    rateLimits,
    rateLimitSettings,
    secretBox,
    brokerPasswords: mosquittoPasswordHasher(),
    webhookSigner: standardWebhooksSigner,
    webhookTransport: httpTransport(addressPolicy({ allowLoopback: sandbox, allow: config.webhookAllow })),
    webhookLimits: { ...DEFAULT_DISPATCH_LIMITS, timeoutMs: config.webhookTimeoutMs },
    metrics,
  });

  const report = await lockcloud.start({ seed, demo: sandbox, sandbox, refuseDemoData: !sandbox });
  if (report.kind === 'existing' && report.seedIgnored) {
    logger.warn(
      { dataDir: config.dataDir },
      'the data directory already holds data: the seed file was not loaded',
    );
  }
  if (report.kind === 'refused-demo-data') {
    await lockcloud.stop();
    await bus.close();
    await devices.close();
    throw new StartupError(
      `--production refuses to start with demo data: ${config.dataDir} holds the sandbox demo. Use another --data directory.`,
    );
  }

  // The simulated devices connect and announce themselves once the store holds them (seed, demo).
  await devices.simulator.start();
  logger.info({ broker: devices.brokerUrl, embedded: devices.broker !== undefined }, 'device link up');

  const http = await buildHttp({
    lockcloud,
    logger,
    sandbox,
    version: VERSION,
    trustProxy: config.trustProxy,
    ops: {
      checks: readinessChecks(
        store,
        devices.readiness,
        rateLimits?.readinessChecks?.(),
        bus.events.readinessChecks?.(),
      ),
      metrics,
    },
  });
  let metricsListener: MetricsListener | undefined;
  return {
    lockcloud,
    http,
    clock,
    report,
    devices,
    store,
    events: bus.events,
    logger,
    metrics,
    get metricsUrl() {
      return metricsListener?.url;
    },
    async listen() {
      await http.listen({ port: config.port, host: config.host });
      if (config.metricsPort !== undefined) {
        const { metricsHost: host, metricsPort: port } = config;
        metricsListener = await listenMetrics({
          host,
          port,
          metrics,
          onError: (error) => logger.error({ err: error }, 'metrics scrape failed'),
        }).catch((error: unknown) => {
          // The API listens already: close() stops it with the rest.
          throw new StartupError(`cannot serve metrics on ${host}:${port}: ${(error as Error).message}`);
        });
      }
      const address = http.server.address();
      const port = typeof address === 'object' && address !== null ? address.port : config.port;
      const host = config.host.includes(':') ? `[${config.host}]` : config.host;
      return `http://${host}:${port}`;
    },
    async close() {
      await drainHttp(http, config.shutdownGraceMs, logger);
      // The cloud side first: the simulated devices switching off with the server must not end the
      // tasks they were carrying (those end TIMEOUT at the next start) nor mark their locks unreachable.
      await lockcloud.stop();
      await bus.close();
      await devices.close();
      mail.close();
      // Last: a scrape during the drain still sees it.
      await metricsListener?.close();
    },
  };
}
