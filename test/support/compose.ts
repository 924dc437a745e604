/**
 * compose.yaml as Compose reads it, for the tests that check it (no Compose runs on this machine):
 * parsed with its merge keys (`<<: *anchor`), and its variables substituted from an environment as
 * the Compose specification says (`$$`, `$NAME`, `${NAME}`, `${NAME:-default}`, `${NAME-default}`,
 * `${NAME:?error}`, `${NAME?error}`).
 */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';

export interface ComposeService {
  readonly image?: string;
  readonly build?: { readonly context: string; readonly dockerfile: string };
  readonly user?: string;
  readonly restart?: string;
  readonly entrypoint?: readonly string[];
  readonly command?: readonly string[];
  readonly environment?: Readonly<Record<string, string>>;
  readonly volumes?: readonly string[];
  readonly ports?: readonly string[];
  readonly depends_on?: Readonly<Record<string, { readonly condition: string }>>;
  readonly healthcheck?: { readonly test?: readonly string[]; readonly disable?: boolean };
  readonly stop_grace_period?: string;
}

export interface ComposeFile {
  readonly name: string;
  readonly services: Readonly<Record<string, ComposeService>>;
  readonly volumes?: Readonly<Record<string, unknown>>;
}

export const COMPOSE_FILE = 'compose.yaml';

/** The file, parsed, its variables not yet substituted. */
export function loadCompose(file = COMPOSE_FILE): ComposeFile {
  return parse(readFileSync(file, 'utf8'), { merge: true }) as ComposeFile;
}

export class InterpolationError extends Error {
  override name = 'InterpolationError';
}

const VARIABLE = /\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?])([^}]*))?\}|\$([A-Za-z_][A-Za-z0-9_]*)/g;

/** One string with its variables substituted; a missing required variable throws its message. */
export function interpolate(text: string, env: Readonly<Record<string, string | undefined>>): string {
  return text.replace(VARIABLE, (match, braced?: string, op?: string, arg?: string, bare?: string) => {
    if (match === '$$') return '$';
    const name = braced ?? bare ?? '';
    const value = env[name];
    const missing = op?.startsWith(':') === true ? value === undefined || value === '' : value === undefined;
    if (op === undefined || !missing) return value ?? '';
    if (op.endsWith('-')) return arg ?? '';
    throw new InterpolationError(`${name}: ${arg ?? 'required'}`);
  });
}

/** Every string of a value (a service, the whole file) with its variables substituted. */
export function interpolateAll<T>(value: T, env: Readonly<Record<string, string | undefined>>): T {
  if (typeof value === 'string') return interpolate(value, env) as T;
  if (Array.isArray(value)) return value.map((item: unknown) => interpolateAll(item, env)) as T;
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value).map(([k, v]: [string, unknown]) => [k, interpolateAll(v, env)]),
    ) as T;
  return value;
}
