/**
 * What one setting is: how it is given (a flag, switches, an environment variable), its default,
 * how its text becomes a value, and whether it can hold a secret. The parser, the `Config` type,
 * redaction, `--help` and the README's table are all read off these.
 */
import type { Parser } from './parsers.ts';

export type Flag = `--${string}`;

export interface Setting<T, D extends string | undefined = string | undefined> {
  /** The flag that takes the value (`--port`); absent for a setting given by switches or the environment only. */
  readonly flag?: Flag;
  /** The flag's value as --help and the README name it: `N`, `URL`, `DIR`. */
  readonly arg?: string;
  /** Flags without a value, each standing for one value of the setting (`--no-rate-limit`: off). */
  readonly switches?: Readonly<Record<Flag, string>>;
  readonly env: string;
  /** For a switch-like setting, how the README shows the variable: `LOCKCLOUD_RATE_LIMIT=off`. */
  readonly envShown?: string;
  /** The text used when neither flag nor variable is given (parsed like them); undefined: unset. */
  readonly default: D;
  /** How --help and the README show the default when the text itself would not say it. */
  readonly defaultShown?: string;
  readonly parse: Parser<T>;
  /**
   * The value can hold a credential (a URL's password, a key): every message shows it through
   * `redactSecret`, and the server's logs are scrubbed of it.
   */
  readonly secret?: true;
  /** What it does, one line of Markdown (the README); --help shows it as plain text. */
  readonly help: string;
}

/**
 * Declares a setting, keeping what it declares as written (its flag, its default's presence, its
 * parser's type) for `Config` and for those who read the table.
 */
export const setting = <const S extends Setting<unknown>>(spec: S): S => spec;

/** The value a setting gives: its parser's type, or undefined too when it has no default. */
export type ValueOf<S> = S extends { readonly parse: Parser<infer T>; readonly default: infer D }
  ? D extends string
    ? T
    : T | undefined
  : never;
