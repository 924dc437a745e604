import type { FastifyReply, FastifyRequest } from 'fastify';
import type { RateCheck, RateLimits } from '../../app/rate-limits.ts';
import { DomainError } from '../../domain/errors.ts';
import { LIMITED_ENDPOINTS, type LimitedEndpoint } from '../../domain/rate-limit.ts';
import { setBlockedHeaders, setRateLimitHeaders } from './rate-limit-headers.ts';

// Routes are few and fixed: each one's limit name is worked out once, not on every request.
const endpointsByRoute = new Map<string, LimitedEndpoint | null>();

/** `GET /public/lock/:device_id` (Fastify's route) -> `GET /public/lock/{device_id}` (the limit's name). */
export function endpointOf(request: FastifyRequest): LimitedEndpoint | undefined {
  const method = request.method === 'HEAD' ? 'GET' : request.method;
  const route = `${method} ${request.routeOptions.url ?? ''}`;
  let endpoint = endpointsByRoute.get(route);
  if (endpoint === undefined) {
    const name = route.replace(/:([a-z_]+)/g, '{$1}');
    endpoint = (LIMITED_ENDPOINTS as readonly string[]).includes(name) ? (name as LimitedEndpoint) : null;
    // Unmatched requests have no route url, so the map holds at most one entry per route and method.
    endpointsByRoute.set(route, endpoint);
  }
  return endpoint ?? undefined;
}

/** A blocked address is refused on every endpoint before anything else is looked at. */
export function refuseBlocked(
  limits: RateLimits | undefined,
  request: FastifyRequest,
  reply: FastifyReply,
): void {
  const seconds = limits?.blockedFor(request.ip);
  if (seconds === undefined) return;
  setBlockedHeaders(reply, seconds);
  throw new DomainError('BLOCKED', 'the client address is blocked', { retryAfterSeconds: seconds });
}

// The address's check, made when the request arrived, for the account's check once the key is read.
const addressChecks = new WeakMap<FastifyRequest, RateCheck>();

/**
 * Spends the request from its address's budget as soon as it arrives (onRequest), before its key
 * or body is read: a request refused later for a bad key or an unreadable body (as the partner
 * endpoint's can be) has still spent it, and carries the RateLimit headers.
 */
export async function limitAddress(
  limits: RateLimits | undefined,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<void> {
  const endpoint = endpointOf(request);
  if (!limits || !endpoint) return;
  const check = await limits.checkAddress(endpoint, request.ip);
  addressChecks.set(request, check);
  setRateLimitHeaders(reply, check);
}

/**
 * Authenticates, then spends the request from the account's budget. A request whose key fails has
 * spent its address's budget (limitAddress) but is answered 401 even when that is exhausted: the key
 * is checked first (DECISIONS.md). A throttled address or account answers 429 once the key is good.
 */
export async function authenticateAndLimit(
  limits: RateLimits | undefined,
  request: FastifyRequest,
  reply: FastifyReply,
  authenticate: () => Promise<{ accountId: string }>,
): Promise<void> {
  const { accountId } = await authenticate();
  const endpoint = endpointOf(request);
  const byAddress = addressChecks.get(request);
  if (!limits || !endpoint || !byAddress) return;
  const check = await limits.checkAccount(endpoint, accountId, request.ip, byAddress);
  setRateLimitHeaders(reply, check);
  if (check.kind === 'throttled') {
    reply.header('retry-after', String(check.retryAfterSeconds));
    throw new DomainError('THROTTLED', 'over the rate limit', { retryAfterSeconds: check.retryAfterSeconds });
  }
}
