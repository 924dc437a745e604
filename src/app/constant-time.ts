/**
 * Comparisons of secrets (tokens, hashes, codes, signatures) whose time does not depend on where the
 * two values first differ: `===` stops at the first different character, so a caller who can time
 * many answers learns a secret one character at a time. Every such comparison in the server goes
 * through these two functions (docs/security.md lists them).
 */
import { hash, timingSafeEqual } from 'node:crypto';

/**
 * Byte strings of a length that is public (digests, derived keys of a fixed size): false at once
 * when the lengths differ, otherwise every byte is compared whatever the first difference.
 */
export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

const digest = (text: string): Buffer => hash('sha256', text, 'buffer');

/**
 * Text from a caller against the secret it must equal (a CSRF token, a broker password, a hex
 * digest). Both sides are reduced to SHA-256 first, so the comparison itself always runs over 32
 * bytes: neither where they differ nor whether the caller's guess had the right length shows.
 */
export function sameSecret(given: string, expected: string): boolean {
  return timingSafeEqual(digest(given), digest(expected));
}
