/**
 * The kinds of value a setting takes, each a parser from the text given (a flag's value, an
 * environment variable, or the default) to the value the server uses. A parser throws `Invalid`
 * with what is wrong; the loader adds the setting's name and collects every problem.
 */
import { isIP } from 'node:net';

export class Invalid extends Error {
  constructor(readonly reasons: readonly string[]) {
    super(reasons.join('; '));
    this.name = 'Invalid';
  }
}

export interface ParseContext {
  /** The value as a message may show it, quoted: redacted for a secret setting. */
  quote(value: string): string;
  /** Where the value came from: the flag (`--port`) or the environment variable. */
  readonly source: string;
}

export type Parser<T> = (raw: string, context: ParseContext) => T;

const invalid = (reason: string): never => {
  throw new Invalid([reason]);
};

export const wholeNumber =
  (min: number, max: number): Parser<number> =>
  (raw, { quote }) => {
    const value = Number(raw);
    if (!/^\d+$/.test(raw.trim()) || value < min || value > max)
      invalid(`${quote(raw)} is not a whole number from ${min} to ${max}`);
    return value;
  };

export const oneOf =
  <T extends string>(values: readonly T[], what = `one of ${values.join(', ')}`): Parser<T> =>
  (raw, { quote }) => {
    if (!(values as readonly string[]).includes(raw)) invalid(`${quote(raw)} is not ${what}`);
    return raw as T;
  };

const ON = ['on', 'true', '1'];
const OFF = ['off', 'false', '0'];
/** A switch: on, true, 1 / off, false, 0. */
export const onOff: Parser<boolean> = (raw, { quote }) => {
  if (ON.includes(raw)) return true;
  if (OFF.includes(raw)) return false;
  return invalid(`${quote(raw)} is not on or off`);
};

/** Any text but blank. */
export const nonEmpty: Parser<string> = (raw) => {
  if (raw.trim() === '') invalid('must not be empty');
  return raw;
};

/** One line of text, not blank (it goes into a mail header). */
export const oneLine: Parser<string> = (raw) => {
  if (raw.trim() === '' || /[\r\n]/.test(raw)) invalid('must be one line, not empty');
  return raw;
};

/** Text that must match `pattern`, else `rule` says what it must be. */
export const matching =
  (pattern: RegExp, rule: string): Parser<string> =>
  (raw, { quote }) => {
    if (!pattern.test(raw)) invalid(`${quote(raw)} ${rule}`);
    return raw;
  };

/** Free text that may be empty, such as a path. */
export const anyText: Parser<string> = (raw) => raw;

/**
 * A URL of one of `schemes` with a host; the port, if any, a real one. Only its shape is checked:
 * whether it answers is the start-up's business.
 */
export const url =
  (schemes: readonly string[], article: 'a' | 'an' = 'a'): Parser<string> =>
  (raw, { quote }) => {
    const names = schemes.map((s) => `${s}://`);
    const what = `${article} ${names.slice(0, -1).join(', ')}${names.length > 1 ? ' or ' : ''}${names.at(-1)} URL`;
    let parsed: URL | undefined;
    try {
      parsed = new URL(raw);
    } catch {
      parsed = undefined;
    }
    const scheme = parsed?.protocol.slice(0, -1) ?? '';
    // "postgres:/db" parses, with no host: the "//" is required, and a host after it.
    if (!schemes.includes(scheme) || !/^[a-z]+:\/\/[^/]/i.test(raw) || parsed?.hostname === '')
      invalid(`${quote(raw)} is not ${what}`);
    return raw;
  };

/** A comma-separated list, each item checked by `item` (which throws an Invalid naming it). */
export const list =
  (item: Parser<string>): Parser<readonly string[]> =>
  (raw, context) => {
    const items = raw
      .split(',')
      .map((p) => p.trim())
      .filter((p) => p !== '');
    const reasons: string[] = [];
    for (const one of items) {
      try {
        item(one, context);
      } catch (error) {
        if (!(error instanceof Invalid)) throw error;
        reasons.push(...error.reasons);
      }
    }
    if (reasons.length > 0) throw new Invalid(reasons);
    return items;
  };

/** A CIDR range whose address is one and whose prefix fits its family (node's BlockList would throw). */
export const cidr: Parser<string> = (raw, { quote }) => {
  const [, address = '', prefix = ''] = /^([^/]+)\/(\d{1,3})$/.exec(raw) ?? [];
  const family = isIP(address);
  if (family === 0 || Number(prefix) > (family === 6 ? 128 : 32))
    invalid(`${quote(raw)} is not a CIDR range`);
  return raw;
};

/** A key of `bytes` bytes, base64-encoded. */
export const base64Key =
  (bytes: number): Parser<string> =>
  (raw, { source }) => {
    if (Buffer.from(raw, 'base64').length !== bytes)
      invalid(`${source} must be ${bytes} bytes, base64-encoded`);
    return raw;
  };
