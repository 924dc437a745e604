import { createHmac, hkdfSync, randomInt } from 'node:crypto';
import { sameSecret } from '../../app/constant-time.ts';
import type { CodeHasher } from '../../app/ports.ts';
import { CODE_DIGITS } from '../../domain/one-time-code.ts';

/**
 * HMAC-SHA256 under a key derived from the server key. A plain hash of a six-digit code is reversed
 * by trying the million codes; without the server key the stored hashes reveal nothing.
 */
export function hmacCodeHasher(serverKey: Buffer): CodeHasher {
  const key = Buffer.from(hkdfSync('sha256', serverKey, Buffer.alloc(0), 'lockcloud one-time codes', 32));
  const hash = (code: string, salt: string): string =>
    createHmac('sha256', key).update(`${salt}:${code}`, 'utf8').digest('hex');
  return {
    newCode: () => String(randomInt(0, 10 ** CODE_DIGITS)).padStart(CODE_DIGITS, '0'),
    hash,
    matches: (code, salt, stored) => sameSecret(hash(code, salt), stored),
  };
}
