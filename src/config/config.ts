import { isIP } from 'node:net';
import { parseArgs } from 'node:util';

export type Mode = 'sandbox' | 'production';
export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

export interface Config {
  readonly port: number;
  readonly host: string;
  readonly dataDir: string;
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
} as const;

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

  const config: Config = {
    port: integer(problems, 'port', pick('port', 'port') ?? '', 0, 65535),
    host,
    dataDir,
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
  };
  if (problems.length > 0) throw new ConfigError(problems);
  return Object.freeze(config);
}

/** What the server prints at start: every setting, no secrets (none of these is one). */
export function describeConfig(config: Config): Record<string, unknown> {
  // A Redis URL may carry a password: show where it points, not how it logs in.
  const redisUrl = config.redisUrl?.replace(/\/\/[^@/]*@/, '//***@') ?? null;
  return {
    ...config,
    seedFile: config.seedFile ?? null,
    redisUrl,
    rateLimitsFile: config.rateLimitsFile ?? null,
  };
}
