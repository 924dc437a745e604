/**
 * Mosquitto 2's password hashes, as `mosquitto_passwd` writes them:
 * `$7$<iterations>$<base64 salt>$<base64 hash>`, PBKDF2-HMAC-SHA512 over the password's UTF-8
 * bytes with a 12-byte random salt, a 64-byte hash, standard base64 with padding. Mosquitto's own
 * default is 101 iterations; device secrets carry 192 random bits, so stretching adds nothing.
 */
import { pbkdf2Sync, randomBytes } from 'node:crypto';
import { sameBytes } from '../../../app/constant-time.ts';
import type { BrokerPasswordHasher } from '../../../app/ports.ts';

export const MOSQUITTO_DEFAULT_ITERATIONS = 101;
const SALT_BYTES = 12;
const HASH_BYTES = 64;
/** Bounds a stored hash's cost, so a corrupt line cannot make one check take minutes. */
const MAX_ITERATIONS = 10_000_000;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

function derive(password: string, salt: Buffer, iterations: number): Buffer {
  return pbkdf2Sync(Buffer.from(password, 'utf8'), salt, iterations, HASH_BYTES, 'sha512');
}

export function mosquittoHash(
  password: string,
  options: { iterations?: number; salt?: Buffer } = {},
): string {
  const iterations = options.iterations ?? MOSQUITTO_DEFAULT_ITERATIONS;
  if (!Number.isInteger(iterations) || iterations < 1 || iterations > MAX_ITERATIONS)
    throw new RangeError(`iterations must be a whole number from 1 to ${MAX_ITERATIONS}`);
  const salt = options.salt ?? randomBytes(SALT_BYTES);
  return `$7$${iterations}$${salt.toString('base64')}$${derive(password, salt, iterations).toString('base64')}`;
}

/** Whether the password matches a `$7$` hash; false for any other format (Mosquitto 1's `$6$` too). */
export function verifyMosquittoHash(password: string, stored: string): boolean {
  const parts = stored.split('$');
  if (parts.length !== 5 || parts[0] !== '' || parts[1] !== '7') return false;
  const [, , iterationsText = '', saltText = '', hashText = ''] = parts;
  if (!/^\d{1,8}$/.test(iterationsText)) return false;
  const iterations = Number(iterationsText);
  if (iterations < 1 || iterations > MAX_ITERATIONS) return false;
  if (!BASE64.test(saltText) || !BASE64.test(hashText)) return false;
  const expected = Buffer.from(hashText, 'base64');
  if (expected.length !== HASH_BYTES) return false;
  const got = derive(password, Buffer.from(saltText, 'base64'), iterations);
  return sameBytes(got, expected);
}

export function mosquittoPasswordHasher(iterations = MOSQUITTO_DEFAULT_ITERATIONS): BrokerPasswordHasher {
  return { hash: (secret) => mosquittoHash(secret, { iterations }) };
}
