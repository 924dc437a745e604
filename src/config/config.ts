/**
 * The server's configuration, read once from flags and environment variables through the one
 * table of settings (settings.ts). Nothing else in the server reads process.env.
 */
import { parseArgs } from 'node:util';
import { Invalid, type ParseContext } from './parsers.ts';
import { redactSecret, secretScrubber } from './redact.ts';
import type { Flag, Setting, ValueOf } from './setting.ts';
import { SETTINGS, type SettingName } from './settings.ts';

export { redactSecret } from './redact.ts';
export type { Setting } from './setting.ts';
export type { LogLevel, Mode, SettingName } from './settings.ts';
export { SETTINGS } from './settings.ts';

export type Config = { readonly [K in SettingName]: ValueOf<(typeof SETTINGS)[K]> };

type Environment = Readonly<Record<string, string | undefined>>;

export class ConfigError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`invalid configuration:\n  ${problems.join('\n  ')}`);
    this.name = 'ConfigError';
  }
}

const entries = Object.entries(SETTINGS) as [SettingName, Setting<unknown>][];

/** parseArgs's options, from every flag and switch of the table. */
const FLAG_OPTIONS = Object.fromEntries(
  entries.flatMap(([, s]) => [
    ...(s.flag === undefined ? [] : [[s.flag.slice(2), { type: 'string' as const }]]),
    ...Object.keys(s.switches ?? {}).map((flag) => [flag.slice(2), { type: 'boolean' as const }]),
  ]),
);

const nonEmpty = (value: string | undefined): string | undefined => (value === '' ? undefined : value);

/**
 * The values given for the secret settings, valid or not, by flag or variable: what a message about
 * the configuration, or one echoing it later, must not show.
 */
export function secretInputs(env: Environment, argv: readonly string[]): string[] {
  const values: string[] = [];
  for (const [, s] of entries) {
    if (s.secret !== true) continue;
    const fromEnv = nonEmpty(env[s.env]);
    if (fromEnv !== undefined) values.push(fromEnv);
    const { flag } = s;
    if (flag === undefined) continue;
    argv.forEach((arg, i) => {
      const next = argv[i + 1];
      if (arg === flag && next !== undefined) values.push(next);
      if (arg.startsWith(`${flag}=`)) values.push(arg.slice(flag.length + 1));
    });
  }
  return values.filter((v) => v !== '');
}

interface Given {
  readonly raw: string | undefined;
  /** The flag or variable it came from, for messages. */
  readonly source: string;
}

/** Which text a setting gets: its flag (or a switch), else its variable (empty is unset), else the default. */
function given(
  name: SettingName,
  s: Setting<unknown>,
  flags: Record<string, string | boolean | undefined>,
  env: Environment,
  problems: string[],
): Given {
  const fromFlag = s.flag === undefined ? undefined : flags[s.flag.slice(2)];
  if (typeof fromFlag === 'string') return { raw: fromFlag, source: s.flag as string };
  const switched = (Object.entries(s.switches ?? {}) as [Flag, string][]).filter(
    ([flag]) => flags[flag.slice(2)] === true,
  );
  if (new Set(switched.map(([, value]) => value)).size > 1)
    problems.push(`${name}: ${switched.map(([flag]) => flag).join(' and ')} exclude each other`);
  const [first] = switched;
  if (first !== undefined) return { raw: first[1], source: first[0] };
  const fromEnv = nonEmpty(env[s.env]);
  if (fromEnv !== undefined) return { raw: fromEnv, source: s.env };
  return { raw: s.default, source: 'the default' };
}

/** Checks between settings, once each is valid on its own. */
function crossChecks(config: Config): string[] {
  const problems: string[] = [];
  if (config.metricsPort !== undefined && config.metricsPort !== 0 && config.metricsPort === config.port)
    problems.push(`metricsPort: ${config.metricsPort} is the API's port: metrics are never served there`);
  return problems;
}

/**
 * Reads the configuration from flags (which win) and environment variables. Pure: it reads nothing
 * but its arguments, reports every bad setting at once (never showing a secret), and returns a
 * frozen object.
 */
export function loadConfig(env: Environment, argv: readonly string[]): Config {
  const problems: string[] = [];
  let flags: Record<string, string | boolean | undefined> = {};
  try {
    // No option is `multiple`: every value is a string or a boolean.
    flags = parseArgs({ args: [...argv], strict: true, allowPositionals: false, options: FLAG_OPTIONS })
      .values as typeof flags;
  } catch (error) {
    problems.push((error as Error).message);
  }
  const values: Record<string, unknown> = {};
  for (const [name, s] of entries) {
    const { raw, source } = given(name, s, flags, env, problems);
    const context: ParseContext = {
      source,
      quote: (value) => `"${s.secret === true ? redactSecret(value) : value}"`,
    };
    try {
      values[name] = raw === undefined ? undefined : s.parse(raw, context);
    } catch (error) {
      if (!(error instanceof Invalid)) throw error;
      for (const reason of error.reasons) problems.push(`${name}: ${reason}`);
    }
    if (Array.isArray(values[name])) Object.freeze(values[name]);
  }
  const config = values as Config;
  if (problems.length === 0) problems.push(...crossChecks(config));
  if (problems.length > 0) {
    // The parsers show secrets redacted; a message of parseArgs's own (a stray argument) may still
    // hold one given by flag.
    const scrub = secretScrubber(secretInputs(env, argv));
    throw new ConfigError(problems.map(scrub));
  }
  return Object.freeze(config);
}

/** What the server prints at start: every setting, unset ones as null, secrets redacted. */
export function describeConfig(config: Config): Record<string, unknown> {
  const described: Record<string, unknown> = {};
  for (const [name, s] of entries) {
    const value = config[name];
    if (value === undefined) described[name] = null;
    // The server key: whether it is set, never its value (the start-up line printed
    // LOCKCLOUD_SECRET_KEY in clear until test/security/secrets found it).
    else if (s.secret === true) described[name] = redactSecret(String(value));
    else described[name] = value;
  }
  return described;
}

/**
 * A function that takes every secret setting's value out of a text, for logs and start-up errors;
 * undefined when no secret setting is set (nothing to take out).
 */
export function configScrubber(config: Config): ((text: string) => string) | undefined {
  const secrets = entries.flatMap(([name, s]) => {
    const value = config[name];
    return s.secret === true && typeof value === 'string' ? [value] : [];
  });
  return secrets.length === 0 ? undefined : secretScrubber(secrets);
}
