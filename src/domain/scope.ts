/**
 * Scoped, expiring API keys (issue 23): a key may be limited to scopes, to a list of locks and to an
 * expiry. Keys made before this had none of it and keep full access: their limits are all null
 * (FULL_ACCESS), which is also what a new key gets for each limit it is not given, so a migration
 * adds nullable columns and rewrites no row. Pure rules; keyAllows runs on every request, so it
 * allocates nothing.
 */
import { checkFields, DomainError } from './errors.ts';
import { parseRfc3339 } from './rfc3339.ts';

export const SCOPES = [
  'locks:read',
  'locks:operate',
  'events:read',
  'webhooks:manage',
  'keys:manage',
] as const;
export type Scope = (typeof SCOPES)[number];

export interface KeyLimits {
  /**
   * null: every scope, also those added later (a key from before scopes did everything its account
   * could, and keeps doing so). Otherwise one or more, each once, in SCOPES order.
   */
  readonly scopes: readonly Scope[] | null;
  /** The device ids of the locks the key reaches; null: every lock of the account. */
  readonly lockIds: readonly string[] | null;
  /** Epoch ms from which the key no longer works; null: never expires. */
  readonly expiresAt: number | null;
}

/** A key from before scopes: no limit at all. */
export const FULL_ACCESS: KeyLimits = Object.freeze({ scopes: null, lockIds: null, expiresAt: null });

/** Whether a key has no limit at all (every key made before limits): nothing to check per request. */
export function isUnlimited(limits: KeyLimits): boolean {
  return limits.scopes === null && limits.lockIds === null && limits.expiresAt === null;
}

/** As many locks as a webhook endpoint's filter names (MAX_ENDPOINT_DEVICES). */
export const MAX_KEY_LOCKS = 100;

/** A device id's shape (as the event log's filter takes it); whose lock it is, the use case checks. */
const DEVICE_ID = /^[A-Za-z0-9_-]{1,128}$/;

/** The API's body (a new key's limits), unchecked. */
export interface KeyLimitsInput {
  readonly scopes?: unknown;
  readonly lock_ids?: unknown;
  readonly expires_at?: unknown;
}

const invalid = (field: string, message: string): DomainError =>
  new DomainError('INVALID_INPUT', `${field}: ${message}`, { field });

/** A non-empty list of distinct strings, each passing `valid`, else a refusal naming `field`. */
const distinctList = (
  field: string,
  value: unknown,
  max: number,
  valid: (item: unknown) => item is string,
  what: string,
): string[] => {
  if (!Array.isArray(value) || value.length === 0 || value.length > max)
    throw invalid(field, `must be a list of 1 to ${max} ${what}s, or null for no limit`);
  const seen = new Set<string>();
  for (const item of value) {
    if (!valid(item)) throw invalid(field, `${JSON.stringify(item)?.slice(0, 40)} is no ${what}`);
    if (seen.has(item)) throw invalid(field, `"${item}" is given twice`);
    seen.add(item);
  }
  return value as string[];
};

const isScope = (item: unknown): item is Scope => SCOPES.includes(item as Scope);
const isDeviceId = (item: unknown): item is string => typeof item === 'string' && DEVICE_ID.test(item);

const scopesOf = (value: unknown): readonly Scope[] | null => {
  if (value === null) return null;
  const given = distinctList('scopes', value, SCOPES.length, isScope, 'scope');
  return SCOPES.filter((scope) => given.includes(scope));
};

const lockIdsOf = (value: unknown): readonly string[] | null =>
  value === null ? null : distinctList('lock_ids', value, MAX_KEY_LOCKS, isDeviceId, 'lock device id');

const expiryOf = (value: unknown, nowMs: number): number | null => {
  if (value === null) return null;
  const at = typeof value === 'string' ? parseRfc3339(value) : null;
  if (at === null)
    throw invalid(
      'expires_at',
      'must be an RFC 3339 date-time with an offset (2026-12-31T00:00:00Z), or null',
    );
  if (at <= nowMs) throw invalid('expires_at', 'must be in the future');
  return at;
};

/**
 * Checks a new key's limits (the API's names: scopes, lock_ids, expires_at). Absent or null: no
 * limit of that kind, so a key made without limits does what keys always did. An empty list is
 * refused rather than read as "nothing" or "everything": a key that can do nothing is a mistake, and
 * one that can do everything says so with null. Throws INVALID_INPUT naming the field (each wrong
 * one in `fields`). Whether the locks are the account's is the use case's to check.
 */
export function checkKeyLimitsInput(input: KeyLimitsInput, nowMs: number): KeyLimits {
  const [scopes, lockIds, expiresAt] = checkFields(
    () => scopesOf(input.scopes ?? null),
    () => lockIdsOf(input.lock_ids ?? null),
    () => expiryOf(input.expires_at ?? null, nowMs),
  );
  return { scopes, lockIds, expiresAt };
}

/**
 * Whether scopes (null: all) include `scope`. locks:operate implies locks:read of the same locks: a
 * command answers the lock's state anyway, and no client can operate a lock it may not look up. No
 * other scope implies another (keys:manage and webhooks:manage read no lock). The implication is
 * applied here, not written into the stored list, so the list shows what the owner chose.
 */
export function hasScope(scopes: readonly Scope[] | null, scope: Scope): boolean {
  if (scopes === null || scopes.includes(scope)) return true;
  return scope === 'locks:read' && scopes.includes('locks:operate');
}

/** Whether the key reaches a lock: for filtering a list (GET of every lock, events of every lock). */
export function keyCoversLock(limits: KeyLimits, deviceId: string): boolean {
  return limits.lockIds === null || limits.lockIds.includes(deviceId);
}

/** What a request needs of its key: a scope, and the lock it is about when there is one. */
export interface KeyNeed {
  readonly scope: Scope;
  readonly deviceId?: string;
}

export type KeyDenial = 'expired' | 'missing_scope' | 'lock_not_allowed';
export type KeyDecision = { readonly ok: true } | { readonly ok: false; readonly reason: KeyDenial };

const ALLOWED: KeyDecision = Object.freeze({ ok: true });
const EXPIRED: KeyDecision = Object.freeze({ ok: false, reason: 'expired' });
const MISSING_SCOPE: KeyDecision = Object.freeze({ ok: false, reason: 'missing_scope' });
const LOCK_NOT_ALLOWED: KeyDecision = Object.freeze({ ok: false, reason: 'lock_not_allowed' });

/**
 * Whether a key with `limits` may make a request needing `need` at `nowMs`. The first reason that
 * applies: expired (from `expiresAt` on), then a missing scope, then a lock outside the key's list.
 * A request about no single lock passes the lock check: its answer is filtered with keyCoversLock.
 * Answers one of four frozen objects.
 */
export function keyAllows(limits: KeyLimits, need: KeyNeed, nowMs: number): KeyDecision {
  if (limits.expiresAt !== null && nowMs >= limits.expiresAt) return EXPIRED;
  if (!hasScope(limits.scopes, need.scope)) return MISSING_SCOPE;
  if (need.deviceId !== undefined && !keyCoversLock(limits, need.deviceId)) return LOCK_NOT_ALLOWED;
  return ALLOWED;
}

/**
 * Whether `inner` asks for no more than `outer` has: every scope (with the implication), every lock,
 * and an expiry no later. A key with keys:manage makes keys through /ext only within its own limits,
 * or a key limited to one lock could mint one for every lock.
 */
export function keyLimitsWithin(inner: KeyLimits, outer: KeyLimits): boolean {
  if (
    outer.scopes !== null &&
    (inner.scopes === null || !inner.scopes.every((s) => hasScope(outer.scopes, s)))
  )
    return false;
  if (
    outer.lockIds !== null &&
    (inner.lockIds === null || !inner.lockIds.every((id) => keyCoversLock(outer, id)))
  )
    return false;
  return outer.expiresAt === null || (inner.expiresAt !== null && inner.expiresAt <= outer.expiresAt);
}
