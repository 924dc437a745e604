/**
 * The composition root: the only file that picks backends, builds the application and its HTTP
 * front, and knows how to start and stop them. `src/bin/serve.ts` and the tests both come through here.
 */
import { hkdfSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { mosquittoPasswordHasher } from './adapters/devices/mqtt/mosquitto-password.ts';
import { memoryMailer } from './adapters/mail/memory-mailer.ts';
import { bothMailers, smtpMailer } from './adapters/mail/smtp-mailer.ts';
import { PrometheusMetrics } from './adapters/metrics/prometheus.ts';
import { MemoryRateLimitStore } from './adapters/rate-limit/memory.ts';
import { RedisRateLimitStore } from './adapters/rate-limit/redis.ts';
import { StoreTraffic } from './adapters/stores/sql/store-traffic.ts';
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
  CodeHasher,
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
import { Closers } from './closers.ts';
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
  /** Tests wrap the code hasher to count the work each form does (test/security/enumeration). */
  readonly codeHasher?: (made: CodeHasher) => CodeHasher;
}

export interface LockcloudServer {
  readonly lockcloud: Lockcloud;
  readonly http: FastifyInstance;
  readonly clock: AdjustableClock;
  /** What the start found or made; the demo once listen() has made it (sandbox, empty store). */
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
   * when configured; then, in the sandbox over an empty store, makes the demo (its credentials in
   * `report`); resolves to the base URL. If either cannot listen (StartupError), everything is
   * closed as by close(), and the store is left as the start found it.
   */
  listen(): Promise<string>;
  /**
   * Drains HTTP (up to --shutdown-grace-ms), then closes everything else the server opened, last
   * opened first (the metrics listener last of all). Calling it again waits for the same closing.
   */
  close(): Promise<void>;
}

export class StartupError extends Error {
  override name = 'StartupError';
}

/**
 * A port that cannot be listened on, in one line: a taken port (a second lockcloud, or another
 * program) names the flag that picks another, since the default is the likeliest to be taken.
 */
function cannotListen(what: string, flag: string, error: unknown): StartupError {
  const { code, message } = error as NodeJS.ErrnoException;
  const hint =
    code === 'EADDRINUSE'
      ? `; another program (another lockcloud?) has the port: give another with ${flag} N, or ${flag} 0 for any free one`
      : '';
  return new StartupError(`${what}: ${message}${hint}`, { cause: error });
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
    return { events, close: () => events.close() };
  }
  try {
    const events = await RedisEventBus.connect(config.redisUrl, config.redisPrefix, logger);
    return { events, close: () => events.close() };
  } catch (error) {
    throw new StartupError(`cannot reach Redis for the event bus: ${(error as Error).message}`);
  }
}

/** The key that seals webhook secrets: given, or a file in the data directory (made on first start). */
function openServerKey(config: Config): Buffer {
  try {
    return loadServerKey(config.secretKey, config.dataDir);
  } catch (error) {
    throw new StartupError(`cannot read or make the server key: ${(error as Error).message}`, {
      cause: error,
    });
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
  // Read before anything opens: a bad file stops the start with nothing to close.
  const seed = config.seedFile === undefined ? undefined : readSeedFile(config.seedFile);
  const rateLimitSettings =
    config.rateLimitsFile === undefined ? undefined : readRateLimitsFile(config.rateLimitsFile);

  // Each part is pushed as it opens; a step that throws closes what was opened before it (closers.ts).
  const closers = new Closers();
  const starting = <T>(step: () => Promise<T>): Promise<T> =>
    closers.starting(step, (error) => logger.error({ err: error }, 'closing after a failed start failed'));
  let metricsListener: MetricsListener | undefined;
  // Opened last (listen), pushed first so it closes last: a scrape during the drain still answers.
  closers.push('metrics listener', () => metricsListener?.close());

  return starting(async () => {
    // An unreachable database or a failed migration: a one-line reason and exit 2, not a stack trace.
    const onCheckpointError = (error: Error) =>
      logger.warn({ err: error }, 'a WAL checkpoint in the background failed; commits checkpoint instead');
    const storeTraffic = new StoreTraffic();
    const store = await openStore(config, { readCache: true, onCheckpointError, storeTraffic }).catch(
      (error: unknown) => {
        throw new StartupError(`cannot open the store: ${(error as Error).message}`, { cause: error });
      },
    );
    closers.push('store', () => store.close());
    const bus = await openEventBus(config, logger);
    closers.push('event bus', () => bus.close());
    const clock = new AdjustableClock();
    const mailbox = new MemoryMailbox();
    const mail = openMailer(config, mailbox, clock, logger);
    closers.push('mailer', () => mail.close());
    const serverKey = openServerKey(config);
    const secretBox = aesGcmBox(serverKey);
    const metrics = new PrometheusMetrics({
      connectedAccessPoints: () => store.accessPoints.countOnline(),
      storeTraffic: () => storeTraffic,
    });
    const devices = await openDeviceLink(config, {
      store,
      clock,
      logger,
      random: cryptoRandom,
      secrets: sha256Hasher,
      secretBox,
      metrics,
    }).catch((error: unknown) => {
      throw cannotListen('cannot start the device link', '--mqtt-port', error);
    });
    // The simulated devices, then the embedded broker; after the gateway (pushed next) closes: the
    // devices switching off with the server must not end the tasks they were carrying (those end
    // TIMEOUT at the next start) nor mark their locks unreachable.
    closers.push('device link', () => devices.close());
    closers.push('device gateway', () => devices.gateway.close());
    const rateLimits = openRateLimitStore(config, logger, metrics);
    if (rateLimits !== undefined) closers.push('rate-limit store', () => rateLimits.close());
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
      codeHasher: (overrides.codeHasher ?? ((made) => made))(hmacCodeHasher(serverKey)),
      logger,
      policy: { commandTimeoutMs: config.commandTimeoutMs, lowBatteryThreshold: config.lowBatteryThreshold },
      rateLimits,
      rateLimitSettings,
      secretBox,
      brokerPasswords: mosquittoPasswordHasher(),
      webhookSigner: standardWebhooksSigner,
      webhookTransport: httpTransport(addressPolicy({ allowLoopback: sandbox, allow: config.webhookAllow })),
      webhookLimits: { ...DEFAULT_DISPATCH_LIMITS, timeoutMs: config.webhookTimeoutMs },
      eventRetentionDays: config.eventRetentionDays,
      offlineGraceMs: config.offlineGraceSeconds * 1000,
      streamLimits: {
        heartbeatMs: config.eventStreamHeartbeatMs,
        perAccount: config.eventStreamsPerAccount,
        bufferBytes: config.eventStreamBufferBytes,
      },
      endpointDisableDays: config.webhookEndpointDisableDays,
      metrics,
    });
    // Before starting: a start that fails halfway stops the timers it had started.
    closers.push('application', () => lockcloud.stop());
    let report = await lockcloud.start({ seed, sandbox, refuseDemoData: !sandbox });
    if (report.kind === 'existing' && report.seedIgnored) {
      logger.warn(
        { dataDir: config.dataDir },
        'the data directory already holds data: the seed file was not loaded',
      );
    }
    if (report.kind === 'refused-demo-data') {
      throw new StartupError(
        `--production refuses to start with demo data: ${config.dataDir} holds the sandbox demo. Use another --data directory.`,
      );
    }

    // The simulated devices connect and announce themselves once the store holds them (seed, demo).
    await devices.simulator.start().catch((error: unknown) => {
      throw new StartupError(`cannot start the simulated devices: ${(error as Error).message}`, {
        cause: error,
      });
    });
    logger.info({ broker: devices.brokerUrl, embedded: devices.broker !== undefined }, 'device link up');

    const http = await buildHttp({
      lockcloud,
      logger,
      sandbox,
      version: VERSION,
      trustProxy: config.trustProxy,
      // The OAuth server's keys come from the server key: every process of one database agrees.
      oauth: {
        publicUrl: config.publicUrl,
        keyMaterial: new Uint8Array(hkdfSync('sha256', serverKey, new Uint8Array(0), 'lockcloud oauth', 32)),
      },
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
    // Drains the requests in flight (up to --shutdown-grace-ms) before anything else closes.
    closers.push('HTTP', () => drainHttp(http, config.shutdownGraceMs, logger));
    const server: LockcloudServer = {
      lockcloud,
      http,
      clock,
      get report() {
        return report;
      },
      devices,
      store,
      events: bus.events,
      logger,
      metrics,
      get metricsUrl() {
        return metricsListener?.url;
      },
      listen: () =>
        starting(async () => {
          const { host, port } = config;
          await http.listen({ port, host }).catch((error: unknown) => {
            throw cannotListen(`cannot listen on ${host}:${port}`, '--port', error);
          });
          if (config.metricsPort !== undefined) {
            const { metricsHost, metricsPort } = config;
            metricsListener = await listenMetrics({
              host: metricsHost,
              port: metricsPort,
              metrics,
              onError: (error) => logger.error({ err: error }, 'metrics scrape failed'),
            }).catch((error: unknown) => {
              throw cannotListen(
                `cannot serve metrics on ${metricsHost}:${metricsPort}`,
                '--metrics-port',
                error,
              );
            });
          }
          // Only now that the server listens: a start that cannot leaves no demo whose one-time
          // credentials nobody saw (issue 20). Its devices join the simulator before the answer.
          const demo = sandbox && report.kind === 'empty' ? await lockcloud.createDemo() : undefined;
          if (demo !== undefined) {
            await devices.simulator.start().catch((error: unknown) => {
              throw new StartupError(`cannot start the simulated devices: ${(error as Error).message}`, {
                cause: error,
              });
            });
            report = { kind: 'demo', demo };
          }
          const address = http.server.address();
          const bound = typeof address === 'object' && address !== null ? address.port : port;
          return `http://${host.includes(':') ? `[${host}]` : host}:${bound}`;
        }),
      close: () => closers.closeAll(),
    };
    return server;
  });
}
