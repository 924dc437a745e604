/**
 * The system ports: time, randomness, hashing and sealing of secrets, and the log. Re-exported by
 * app/ports.ts.
 */

export type Cancel = () => void;

/** Time, always read through here so tests and the sandbox can move it. */
export interface Clock {
  now(): number;
  /** Runs fn once the clock reads `when` or later, even if the clock is moved forward past it. */
  at(when: number, fn: () => void): Cancel;
  /**
   * Runs fn every `intervalMs` of real time, whatever the sandbox does to the clock: for polling
   * what other processes changed, which moving the clock does not make happen sooner.
   */
  every(intervalMs: number, fn: () => void): Cancel;
}

/** The sandbox's hold on time. */
export interface ClockControl {
  /**
   * Moves time forward as if it had really passed: resolves to the new time once every timer due on
   * the way has fired, in time order, and what each set off has settled before the next fired.
   */
  advance(ms: number): Promise<number>;
  reset(): void;
}

export interface RandomSource {
  uuid(): string;
  /** `bytes` random bytes, base64url encoded. */
  secret(bytes: number): string;
}

/** For high-entropy secrets (API keys, tokens): a fast one-way hash, the same every time. */
export interface SecretHasher {
  hash(secret: string): string;
}

/** For passwords, which are guessable: a slow salted hash. */
export interface PasswordHasher {
  hash(password: string): Promise<string>;
  verify(password: string, hash: string): Promise<boolean>;
}

/** One-time codes: drawn at random and kept only as a keyed hash, since six digits are guessable. */
export interface CodeHasher {
  newCode(): string;
  /** `salt` is the code's id, so two equal codes never share a hash. */
  hash(code: string, salt: string): string;
  matches(code: string, salt: string, hash: string): boolean;
}

/** Encrypts secrets that must be used again (webhook signing keys) under the server's key. */
export interface SecretBox {
  seal(plain: string): string;
  open(sealed: string): string;
}

export interface Logger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}
