import { hash, randomBytes, randomUUID, scrypt } from 'node:crypto';
import { promisify } from 'node:util';
import { sameBytes } from '../../app/constant-time.ts';
import type { PasswordHasher, RandomSource, SecretHasher } from '../../app/ports.ts';

const scryptAsync = promisify(scrypt) as (
  password: string,
  salt: Buffer,
  keylen: number,
  options: { N: number; r: number; p: number; maxmem: number },
) => Promise<Buffer>;

export const cryptoRandom: RandomSource = {
  uuid: () => randomUUID(),
  secret: (bytes) => randomBytes(bytes).toString('base64url'),
};

/**
 * SHA-256 for random secrets of 128 bits or more: no salt or stretching needed, and lookups stay
 * indexed. Every v3 request hashes its key: the one-shot `crypto.hash` costs about a third of a
 * `createHash` object's round trip.
 */
export const sha256Hasher: SecretHasher = {
  hash: (secret) => hash('sha256', secret, 'hex'),
};

export interface ScryptCost {
  readonly N: number;
  readonly r: number;
  readonly p: number;
}

/** OWASP's scrypt minimum (N=2^17, r=8, p=1). Tests may pass a lower cost. */
export const DEFAULT_SCRYPT_COST: ScryptCost = { N: 2 ** 17, r: 8, p: 1 };
const KEY_LENGTH = 32;

// Bounds on a stored hash's own cost: a corrupt row must not make one login take gigabytes of
// memory or minutes of CPU, nor make node's scrypt throw (a 500) instead of answering false.
const MAX_N = 2 ** 20;
const MAX_R = 32;
const MAX_P = 16;
const MAX_MEMORY_BYTES = 2 ** 30;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

function wholeNumber(text: string | undefined, min: number, max: number): number | undefined {
  if (text === undefined || !/^\d{1,10}$/.test(text)) return undefined;
  const value = Number(text);
  return value >= min && value <= max ? value : undefined;
}

/** Splits `scrypt$N$r$p$salt$hash`; undefined for anything else, so verify answers false. */
function parseStoredHash(stored: string): { cost: ScryptCost; salt: Buffer; key: Buffer } | undefined {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return undefined;
  const [, n, r, p, salt, key] = parts;
  const N = wholeNumber(n, 2, MAX_N);
  const R = wholeNumber(r, 1, MAX_R);
  const P = wholeNumber(p, 1, MAX_P);
  if (N === undefined || R === undefined || P === undefined || (N & (N - 1)) !== 0) return undefined;
  if (128 * N * R > MAX_MEMORY_BYTES) return undefined;
  if (salt === undefined || key === undefined || !BASE64URL.test(salt) || !BASE64URL.test(key))
    return undefined;
  const keyBytes = Buffer.from(key, 'base64url');
  if (keyBytes.length !== KEY_LENGTH) return undefined;
  return { cost: { N, r: R, p: P }, salt: Buffer.from(salt, 'base64url'), key: keyBytes };
}

/** Format: `scrypt$N$r$p$salt$hash`, base64url parts, so the cost can be raised later per hash. */
export function scryptHasher(cost: ScryptCost = DEFAULT_SCRYPT_COST): PasswordHasher {
  const derive = (password: string, salt: Buffer, c: ScryptCost): Promise<Buffer> =>
    scryptAsync(password.normalize('NFC'), salt, KEY_LENGTH, { ...c, maxmem: 256 * c.N * c.r });
  return {
    async hash(password) {
      const salt = randomBytes(16);
      const key = await derive(password, salt, cost);
      return ['scrypt', cost.N, cost.r, cost.p, salt.toString('base64url'), key.toString('base64url')].join(
        '$',
      );
    },
    async verify(password, stored) {
      const parsed = parseStoredHash(stored);
      if (parsed === undefined) return false;
      let got: Buffer;
      try {
        got = await derive(password, parsed.salt, parsed.cost);
      } catch {
        return false; // parameters node refuses (e.g. over its memory limit): no password matches
      }
      return sameBytes(got, parsed.key);
    },
  };
}
