import type { KeyLimits } from './scope.ts';

/**
 * API keys are random secrets shown once. Only a hash and a short display prefix are stored, so a
 * database leak reveals no usable key, and lookups by hash stay O(1) through a unique index.
 */
export const API_KEY_PREFIX = 'lck_';

/** Builds a key from random bytes given by the caller (the domain draws no randomness itself). */
export function formatApiKey(randomBase64Url: string): string {
  return `${API_KEY_PREFIX}${randomBase64Url}`;
}

/** The part of a key that may be shown again: enough to tell keys apart, too little to use. */
export function displayPrefix(key: string): string {
  return key.slice(0, Math.min(10, Math.max(1, Math.floor(key.length / 3))));
}

/** The header value to key: v3 sends the bare key; some clients prefix it with `Bearer ` (any case, as HTTP auth schemes are). */
export function keyFromAuthorizationHeader(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const value = /^bearer /i.test(header) ? header.slice(7) : header;
  const trimmed = value.trim();
  return trimmed === '' ? undefined : trimmed;
}

export interface ApiKey {
  readonly id: string;
  readonly accountId: string;
  readonly prefix: string;
  readonly createdAt: number;
  readonly lastUsedAt: number | null;
  /** Its scopes, locks and expiry (scope.ts); FULL_ACCESS for a key made before them. */
  readonly limits: KeyLimits;
  /** The owner's label for it; null: none given. */
  readonly name: string | null;
  /** The client address of its last use (written with lastUsedAt); null: none recorded. */
  readonly lastUsedIp: string | null;
}
