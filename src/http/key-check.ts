/**
 * The per-route check of an API key's limits (issue 23, docs/security.md): after the key is
 * authenticated, the route's declared scope and the lock of its path (`device_id`) are held against
 * the key's limits. Each surface words the refusal in its own table. Runs on every request: a key
 * without limits (every key made before them) is let through after three null checks, and no check
 * reads the database (the limits came with the key).
 */
import type { FastifyRequest } from 'fastify';
import type { CredentialKind } from '../app/auth.ts';
import { DomainError } from '../domain/errors.ts';
import { isUnlimited, type KeyDenial, type KeyLimits, keyAllows, type Scope } from '../domain/scope.ts';
import { routeScope } from './route-scope.ts';

/** What a refusal needs to be worded: why, and the scope the route wanted. */
export interface KeyRefusal {
  readonly reason: KeyDenial;
  readonly scope: Scope | undefined;
}

/**
 * Why the key may not make this request, or undefined when it may. `deviceId` is the lock the
 * request is about when it names one (the path's, or the partner body's), compared lowercased as the
 * routes look locks up. A route that declares no scope (none should: requireRouteScopes) is refused
 * to every key limited in scopes: failing closed.
 */
export function keyRefusal(
  request: FastifyRequest,
  limits: KeyLimits,
  nowMs: number,
  deviceId?: string,
): KeyRefusal | undefined {
  if (isUnlimited(limits)) return undefined;
  const scope = routeScope(request);
  if (scope === undefined) {
    if (limits.expiresAt !== null && nowMs >= limits.expiresAt) return { reason: 'expired', scope };
    return limits.scopes === null ? undefined : { reason: 'missing_scope', scope };
  }
  const decision = keyAllows(
    limits,
    deviceId === undefined || limits.lockIds === null
      ? { scope }
      : { scope, deviceId: deviceId.toLowerCase() },
    nowMs,
  );
  return decision.ok ? undefined : { reason: decision.reason, scope };
}

/** The `device_id` of the route's path, when it has one. */
export function pathDeviceId(request: FastifyRequest): string | undefined {
  const id = (request.params as { device_id?: unknown } | undefined)?.device_id;
  return typeof id === 'string' ? id : undefined;
}

/** The domain error of an expiry or a missing scope (a lock outside the key is the surface's to word). */
export function keyRefusalError(refusal: KeyRefusal, credential: CredentialKind = 'api_key'): DomainError {
  if (refusal.reason === 'expired') return new DomainError('UNAUTHENTICATED');
  // An app's token was granted scopes by the owner: "lacks" says the same of it as of a key.
  const what = credential === 'access_token' ? 'the access token' : 'the API key';
  return new DomainError(
    'SCOPE_MISSING',
    refusal.scope === undefined
      ? `${what} is limited to scopes, and this route takes only a key without that limit`
      : `${what} lacks the scope ${refusal.scope}`,
  );
}
