import { isIP } from 'node:net';
import { parseArgs } from 'node:util';

export type Mode = 'sandbox' | 'production';
export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

export interface Config {
  readonly port: number;
  readonly host: string;
  readonly dataDir: string;
  /** A PostgreSQL database (postgres:// or postgresql://) for the store; undefined: SQLite in dataDir. */
  readonly databaseUrl: string | undefined;
  /** Connections to that database each process keeps at most. */
  readonly databasePoolSize: number;
  readonly seedFile: string | undefined;
  readonly mode: Mode;
  readonly rateLimit: boolean;
  readonly commandTimeoutMs: number;
  readonly lowBatteryThreshold: number;
  readonly logLevel: LogLevel;
  /** Where rate-limit buckets live: undefined for this process's memory, else a Redis URL. */
  readonly redisUrl: string | undefined;
  readonly redisPrefix: string;
  /** A JSON file overriding some of the default rate limits (docs/rate-limits.md). */
  readonly rateLimitsFile: string | undefined;
  /** Proxies whose X-Forwarded-For is believed: addresses or CIDR ranges; none by default. */
  readonly trustProxy: readonly string[];
  /** How long one webhook attempt may take. */
  readonly webhookTimeoutMs: number;
  /** Private ranges webhooks may reach anyway (CIDRs); loopback is allowed in sandbox mode. */
  readonly webhookAllow: readonly string[];
  /** Base64 key that seals webhook secrets; shared by every process. Else a key file in the data dir. */
  readonly secretKey: string | undefined;
  /** An external MQTT broker for the device link; undefined: the embedded broker. */
  readonly mqttUrl: string | undefined;
  /** Where the embedded broker listens (never 1883 by default: the machine's Mosquitto has it). */
  readonly mqttHost: string;
  readonly mqttPort: number;
  /** Prefix of every device topic (several deployments or test runs on one broker); '' or ending in '/'. */
  readonly mqttPrefix: string;
  /** With an external broker, the shared-subscription group the server processes of one deployment share. */
  readonly mqttShareGroup: string;
  /** Run the simulated devices of the seed or demo in this process (off: `lockcloud sim` runs them). */
  readonly simulator: boolean;
  /** SMTP server for the dashboard's mail (smtp:// or smtps://); undefined: mails are stored and logged. */
  readonly smtpUrl: string | undefined;
  /** The From address of that mail. */
  readonly mailFrom: string;
  /** At shutdown, how long requests in flight may take to finish before their connections are cut. */
  readonly shutdownGraceMs: number;
}

export class ConfigError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`invalid configuration:\n  ${problems.join('\n  ')}`);
    this.name = 'ConfigError';
  }
}

/** Every setting, its flag and its environment variable: one place to read them all. */
export const SETTINGS = {
  port: { flag: '--port', env: 'LOCKCLOUD_PORT', default: '8080' },
  host: { flag: '--host', env: 'LOCKCLOUD_HOST', default: '127.0.0.1' },
  dataDir: { flag: '--data', env: 'LOCKCLOUD_DATA', default: './data' },
  databaseUrl: { flag: '--database-url', env: 'DATABASE_URL', default: undefined },
  databasePoolSize: { flag: '--database-pool-size', env: 'LOCKCLOUD_DATABASE_POOL_SIZE', default: '10' },
  seedFile: { flag: '--seed', env: 'LOCKCLOUD_SEED', default: undefined },
  mode: { flag: '--sandbox | --production', env: 'LOCKCLOUD_MODE', default: 'sandbox' },
  rateLimit: { flag: '--no-rate-limit', env: 'LOCKCLOUD_RATE_LIMIT', default: 'on' },
  commandTimeoutMs: { flag: '--command-timeout-ms', env: 'LOCKCLOUD_COMMAND_TIMEOUT_MS', default: '15000' },
  lowBatteryThreshold: { flag: '--low-battery', env: 'LOCKCLOUD_LOW_BATTERY_THRESHOLD', default: '10' },
  logLevel: { flag: '--log-level', env: 'LOG_LEVEL', default: 'info' },
  redisUrl: { flag: '--redis-url', env: 'REDIS_URL', default: undefined },
  redisPrefix: { flag: '--redis-prefix', env: 'REDIS_PREFIX', default: 'lockcloud:' },
  rateLimitsFile: { flag: '--rate-limits', env: 'LOCKCLOUD_RATE_LIMITS', default: undefined },
  trustProxy: { flag: '--trust-proxy', env: 'LOCKCLOUD_TRUST_PROXY', default: '' },
  webhookTimeoutMs: { flag: '--webhook-timeout-ms', env: 'LOCKCLOUD_WEBHOOK_TIMEOUT_MS', default: '5000' },
  webhookAllow: { flag: '--webhook-allow', env: 'LOCKCLOUD_WEBHOOK_ALLOW', default: '' },
  secretKey: { flag: '(environment only)', env: 'LOCKCLOUD_SECRET_KEY', default: undefined },
  mqttUrl: { flag: '--mqtt-url', env: 'MQTT_URL', default: undefined },
  mqttHost: { flag: '--mqtt-host', env: 'LOCKCLOUD_MQTT_HOST', default: '127.0.0.1' },
  mqttPort: { flag: '--mqtt-port', env: 'LOCKCLOUD_MQTT_PORT', default: '1884' },
  mqttPrefix: { flag: '--mqtt-prefix', env: 'LOCKCLOUD_MQTT_PREFIX', default: '' },
  mqttShareGroup: { flag: '--mqtt-share-group', env: 'LOCKCLOUD_MQTT_SHARE_GROUP', default: 'lockcloud' },
  simulator: { flag: '--no-simulator', env: 'LOCKCLOUD_SIMULATOR', default: 'on' },
  smtpUrl: { flag: '--smtp-url', env: 'SMTP_URL', default: undefined },
  mailFrom: {
    flag: '--mail-from',
    env: 'LOCKCLOUD_MAIL_FROM',
    default: 'lockcloud <no-reply@lockcloud.invalid>',
  },
  shutdownGraceMs: { flag: '--shutdown-grace-ms', env: 'LOCKCLOUD_SHUTDOWN_GRACE_MS', default: '20000' },
} as const;

/** A URL's user and password give way to ***: it tells where it points, not how it logs in. */
const redact = (url: string): string =>
  url.replace(/\/\/[^@/]*@/, '//***@').replace(/([?&]password=)[^&]*/gi, '$1***');

const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

function integer(problems: string[], name: string, raw: string, min: number, max: number): number {
  const value = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || value < min || value > max) {
    problems.push(`${name}: "${raw}" is not a whole number from ${min} to ${max}`);
    return min;
  }
  return value;
}

/**
 * Reads the configuration from flags (which win) and environment variables. Pure: it reads nothing
 * but its arguments, reports every bad setting at once, and returns a frozen object.
 */
export function loadConfig(
  env: Readonly<Record<string, string | undefined>>,
  argv: readonly string[],
): Config {
  const problems: string[] = [];
  let flags: Record<string, string | boolean | undefined> = {};
  try {
    flags = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        port: { type: 'string' },
        host: { type: 'string' },
        data: { type: 'string' },
        'database-url': { type: 'string' },
        'database-pool-size': { type: 'string' },
        seed: { type: 'string' },
        sandbox: { type: 'boolean' },
        production: { type: 'boolean' },
        'no-rate-limit': { type: 'boolean' },
        'command-timeout-ms': { type: 'string' },
        'low-battery': { type: 'string' },
        'log-level': { type: 'string' },
        'redis-url': { type: 'string' },
        'redis-prefix': { type: 'string' },
        'rate-limits': { type: 'string' },
        'trust-proxy': { type: 'string' },
        'webhook-timeout-ms': { type: 'string' },
        'webhook-allow': { type: 'string' },
        'mqtt-url': { type: 'string' },
        'mqtt-host': { type: 'string' },
        'mqtt-port': { type: 'string' },
        'mqtt-prefix': { type: 'string' },
        'mqtt-share-group': { type: 'string' },
        'no-simulator': { type: 'boolean' },
        'smtp-url': { type: 'string' },
        'mail-from': { type: 'string' },
        'shutdown-grace-ms': { type: 'string' },
      },
    }).values;
  } catch (error) {
    problems.push((error as Error).message);
  }
  const pick = (flag: string, key: keyof typeof SETTINGS): string | undefined => {
    const fromFlag = flags[flag];
    if (typeof fromFlag === 'string') return fromFlag;
    const fromEnv = env[SETTINGS[key].env];
    return fromEnv === undefined || fromEnv === '' ? SETTINGS[key].default : fromEnv;
  };

  if (flags.sandbox === true && flags.production === true)
    problems.push('mode: --sandbox and --production exclude each other');
  let mode: Mode = flags.production === true ? 'production' : flags.sandbox === true ? 'sandbox' : 'sandbox';
  if (flags.production !== true && flags.sandbox !== true) {
    const raw = env[SETTINGS.mode.env];
    const fromEnv = raw === undefined || raw === '' ? SETTINGS.mode.default : raw;
    if (fromEnv === 'sandbox' || fromEnv === 'production') mode = fromEnv;
    else problems.push(`mode: ${SETTINGS.mode.env}="${fromEnv}" is neither sandbox nor production`);
  }

  let rateLimit = true;
  if (flags['no-rate-limit'] === true) rateLimit = false;
  else {
    const raw = env[SETTINGS.rateLimit.env] ?? 'on';
    if (['off', 'false', '0'].includes(raw)) rateLimit = false;
    else if (!['on', 'true', '1', ''].includes(raw))
      problems.push(`rateLimit: ${SETTINGS.rateLimit.env}="${raw}" is not on or off`);
  }

  const logLevel = pick('log-level', 'logLevel') as LogLevel;
  if (!LOG_LEVELS.includes(logLevel))
    problems.push(`logLevel: "${logLevel}" is not one of ${LOG_LEVELS.join(', ')}`);
  const host = pick('host', 'host') ?? '';
  if (host.trim() === '') problems.push('host: must not be empty');
  const dataDir = pick('data', 'dataDir') ?? '';
  if (dataDir.trim() === '') problems.push('dataDir: must not be empty');
  const databaseUrl = pick('database-url', 'databaseUrl');
  if (databaseUrl !== undefined && !/^postgres(ql)?:\/\/[^/]/.test(databaseUrl))
    problems.push(`databaseUrl: "${redact(databaseUrl)}" is not a postgres:// or postgresql:// URL`);

  const redisUrl = pick('redis-url', 'redisUrl');
  if (redisUrl !== undefined && !/^rediss?:\/\//.test(redisUrl)) {
    problems.push(`redisUrl: "${redisUrl}" is not a redis:// or rediss:// URL`);
  }
  const trustProxy = (pick('trust-proxy', 'trustProxy') ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '');
  for (const proxy of trustProxy) {
    if (!/^(loopback|linklocal|uniquelocal|[0-9a-fA-F.:]+(\/\d{1,3})?)$/.test(proxy)) {
      problems.push(
        `trustProxy: "${proxy}" is not an address, a CIDR range, loopback, linklocal or uniquelocal`,
      );
    }
  }

  const webhookAllow = (pick('webhook-allow', 'webhookAllow') ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '');
  for (const range of webhookAllow) {
    // The address must be one and the prefix fit its family: node's BlockList would throw at start.
    const [, address = '', prefix = ''] = /^([^/]+)\/(\d{1,3})$/.exec(range) ?? [];
    const family = isIP(address);
    if (family === 0 || Number(prefix) > (family === 6 ? 128 : 32))
      problems.push(`webhookAllow: "${range}" is not a CIDR range`);
  }
  const secretKey = env[SETTINGS.secretKey.env] === '' ? undefined : env[SETTINGS.secretKey.env];
  if (secretKey !== undefined && Buffer.from(secretKey, 'base64').length !== 32) {
    problems.push(`secretKey: ${SETTINGS.secretKey.env} must be 32 bytes, base64-encoded`);
  }

  const smtpUrl = pick('smtp-url', 'smtpUrl');
  if (smtpUrl !== undefined && !/^smtps?:\/\/[^/]/.test(smtpUrl))
    problems.push(`smtpUrl: "${smtpUrl.replace(/\/\/[^@/]*@/, '//***@')}" is not an smtp:// or smtps:// URL`);
  const mailFrom = pick('mail-from', 'mailFrom') ?? '';
  if (mailFrom.trim() === '' || /[\r\n]/.test(mailFrom))
    problems.push('mailFrom: must be one line, not empty');

  const mqttUrl = pick('mqtt-url', 'mqttUrl');
  if (mqttUrl !== undefined && !/^mqtts?:\/\/[^/]/.test(mqttUrl))
    problems.push(`mqttUrl: "${mqttUrl.replace(/\/\/[^@/]*@/, '//***@')}" is not an mqtt:// or mqtts:// URL`);
  const mqttHost = pick('mqtt-host', 'mqttHost') ?? '';
  if (mqttHost.trim() === '') problems.push('mqttHost: must not be empty');
  const mqttPrefix = pick('mqtt-prefix', 'mqttPrefix') ?? '';
  if (mqttPrefix !== '' && (!mqttPrefix.endsWith('/') || /[+#\s]/.test(mqttPrefix)))
    problems.push(`mqttPrefix: "${mqttPrefix}" must end with "/" and hold no wildcards or spaces`);
  const mqttShareGroup = pick('mqtt-share-group', 'mqttShareGroup') ?? '';
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(mqttShareGroup))
    problems.push(`mqttShareGroup: "${mqttShareGroup}" must be 1 to 64 letters, digits, "_" or "-"`);
  let simulator = true;
  if (flags['no-simulator'] === true) simulator = false;
  else {
    const raw = env[SETTINGS.simulator.env] ?? 'on';
    if (['off', 'false', '0'].includes(raw)) simulator = false;
    else if (!['on', 'true', '1', ''].includes(raw))
      problems.push(`simulator: ${SETTINGS.simulator.env}="${raw}" is not on or off`);
  }

  const config: Config = {
    port: integer(problems, 'port', pick('port', 'port') ?? '', 0, 65535),
    host,
    dataDir,
    databaseUrl,
    databasePoolSize: integer(
      problems,
      'databasePoolSize',
      pick('database-pool-size', 'databasePoolSize') ?? '',
      1,
      1000,
    ),
    seedFile: pick('seed', 'seedFile'),
    mode,
    rateLimit,
    commandTimeoutMs: integer(
      problems,
      'commandTimeoutMs',
      pick('command-timeout-ms', 'commandTimeoutMs') ?? '',
      100,
      600_000,
    ),
    lowBatteryThreshold: integer(
      problems,
      'lowBatteryThreshold',
      pick('low-battery', 'lowBatteryThreshold') ?? '',
      0,
      100,
    ),
    logLevel,
    redisUrl,
    redisPrefix: pick('redis-prefix', 'redisPrefix') ?? 'lockcloud:',
    rateLimitsFile: pick('rate-limits', 'rateLimitsFile'),
    trustProxy,
    webhookTimeoutMs: integer(
      problems,
      'webhookTimeoutMs',
      pick('webhook-timeout-ms', 'webhookTimeoutMs') ?? '',
      100,
      60_000,
    ),
    webhookAllow,
    secretKey,
    mqttUrl,
    mqttHost,
    mqttPort: integer(problems, 'mqttPort', pick('mqtt-port', 'mqttPort') ?? '', 0, 65535),
    mqttPrefix,
    mqttShareGroup,
    simulator,
    smtpUrl,
    mailFrom,
    shutdownGraceMs: integer(
      problems,
      'shutdownGraceMs',
      pick('shutdown-grace-ms', 'shutdownGraceMs') ?? '',
      0,
      600_000,
    ),
  };
  if (problems.length > 0) throw new ConfigError(problems);
  return Object.freeze(config);
}

/** What the server prints at start: every setting, no secrets (those it has are masked). */
export function describeConfig(config: Config): Record<string, unknown> {
  // A Redis URL may carry a password: show where it points, not how it logs in.
  const databaseUrl = config.databaseUrl === undefined ? null : redact(config.databaseUrl);
  const redisUrl = config.redisUrl?.replace(/\/\/[^@/]*@/, '//***@') ?? null;
  const smtpUrl = config.smtpUrl?.replace(/\/\/[^@/]*@/, '//***@') ?? null;
  const mqttUrl = config.mqttUrl?.replace(/\/\/[^@/]*@/, '//***@') ?? null;
  return {
    ...config,
    seedFile: config.seedFile ?? null,
    databaseUrl,
    redisUrl,
    smtpUrl,
    mqttUrl,
    rateLimitsFile: config.rateLimitsFile ?? null,
    // The server key seals webhook secrets and keys the code HMACs: whether it is set, never its value
    // (the start-up line printed LOCKCLOUD_SECRET_KEY in clear until test/security/secrets found it).
    secretKey: config.secretKey === undefined ? null : '***',
  };
}
