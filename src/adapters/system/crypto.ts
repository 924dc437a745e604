import { createHash, randomBytes, randomUUID, scrypt, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';
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

/** SHA-256 for random secrets of 128 bits or more: no salt or stretching needed, and lookups stay indexed. */
export const sha256Hasher: SecretHasher = {
  hash: (secret) => createHash('sha256').update(secret, 'utf8').digest('hex'),
};

export interface ScryptCost {
  readonly N: number;
  readonly r: number;
  readonly p: number;
}

/** OWASP's scrypt minimum (N=2^17, r=8, p=1). Tests may pass a lower cost. */
export const DEFAULT_SCRYPT_COST: ScryptCost = { N: 2 ** 17, r: 8, p: 1 };
const KEY_LENGTH = 32;

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
      const [scheme, n, r, p, salt, expected] = stored.split('$');
      if (scheme !== 'scrypt' || !salt || !expected) return false;
      const want = Buffer.from(expected, 'base64url');
      const got = await derive(password, Buffer.from(salt, 'base64url'), {
        N: Number(n),
        r: Number(r),
        p: Number(p),
      });
      return got.length === want.length && timingSafeEqual(got, want);
    },
  };
}
