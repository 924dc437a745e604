/**
 * How a setting that can hold a secret is shown: one rule for every message (configuration errors,
 * the start-up line, start-up failures, logs). A URL keeps where it points and loses how it logs in;
 * anything else secret is not shown at all.
 */

const MASK = '***';
/** Query parameters that carry a credential in the URLs these settings take (libpq, ioredis, ...). */
const SECRET_PARAMS = /([?&;](?:password|passwd|pass|pwd|token|secret)=)[^&;#]*/gi;

/** Where the credentials of a URL end: the last "@" (a password may hold "/" or "?" unencoded). */
function credentialsOf(value: string): { start: number; end: number } | undefined {
  const at = value.lastIndexOf('@');
  if (at < 0) return undefined;
  const scheme = value.indexOf('://');
  const start = scheme >= 0 && scheme < at ? scheme + 3 : 0;
  return { start, end: at };
}

/**
 * The text to show for a secret setting's value. `postgres://u:pw@db/x?password=pw` shows as
 * `postgres://***@db/x?password=***`; `u:pw@host` as `***@host`; a value that is not a URL with
 * credentials but has no "://" either (a key, a mangled URL) as `***`.
 */
export function redactSecret(value: string): string {
  const credentials = credentialsOf(value);
  if (credentials !== undefined) {
    const { start, end } = credentials;
    return `${value.slice(0, start)}${MASK}${value.slice(end)}`.replace(SECRET_PARAMS, `$1${MASK}`);
  }
  if (!value.includes('://')) return MASK;
  return value.replace(SECRET_PARAMS, `$1${MASK}`);
}

/** Credentials in any URL within free text: `redis://u:pw@h` becomes `redis://***@h`. */
const URL_CREDENTIALS = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/@"'<>]*@/gi;

/** Masks the credentials of every URL in a text, for messages whose secrets are not known by value. */
export function maskUrlCredentials(text: string): string {
  // Most log lines hold no URL at all: one scan for "://" spares them the regex.
  return text.includes('://') ? text.replace(URL_CREDENTIALS, `$1${MASK}@`) : text;
}

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Below this length a fragment is not searched for in free text: masking every "ab" in a log line
 * would garble it, and a password that short is no secret. The value as a whole is still masked.
 */
const MIN_FRAGMENT = 4;

function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * The pieces of a secret value that a driver might echo on their own: the whole value, the URL's
 * credentials, its password (as written and decoded) and credential parameters.
 */
export function secretFragments(value: string): string[] {
  const fragments = new Set<string>([value]);
  const credentials = credentialsOf(value);
  if (credentials !== undefined) {
    const userinfo = value.slice(credentials.start, credentials.end);
    fragments.add(userinfo);
    const colon = userinfo.indexOf(':');
    const password = colon < 0 ? userinfo : userinfo.slice(colon + 1);
    fragments.add(password).add(decoded(password));
  }
  for (const match of value.matchAll(SECRET_PARAMS)) {
    const param = match[0].slice(match[1]?.length ?? 0);
    fragments.add(param).add(decoded(param));
  }
  return [...fragments].filter((f) => f.length >= MIN_FRAGMENT);
}

/**
 * A function that removes the given secret values from any text, in any form a message may carry
 * them: whole, as fragments, or JSON-escaped (a log line). Longest first, so a whole URL is
 * replaced by its redacted form before its password alone would be.
 */
export function secretScrubber(values: readonly string[]): (text: string) => string {
  const replacements = new Map<string, string>();
  for (const value of values) {
    if (value.length < MIN_FRAGMENT) continue;
    replacements.set(value, redactSecret(value));
    for (const fragment of secretFragments(value))
      if (!replacements.has(fragment)) replacements.set(fragment, MASK);
  }
  for (const [from, to] of [...replacements]) {
    const escaped = JSON.stringify(from).slice(1, -1);
    if (escaped !== from && !replacements.has(escaped)) replacements.set(escaped, to);
  }
  if (replacements.size === 0) return maskUrlCredentials;
  // One pass over the text, whatever the number of secrets: it runs on every log line. Longest
  // alternatives first, so a whole URL wins over its password alone.
  const pattern = new RegExp(
    [...replacements.keys()]
      .sort((a, b) => b.length - a.length)
      .map(escapeRegExp)
      .join('|'),
    'g',
  );
  return (text) => maskUrlCredentials(text.replace(pattern, (found) => replacements.get(found) ?? MASK));
}
