import type { FastifyReply, FastifyRequest } from 'fastify';
import type { RateLimits } from '../../app/rate-limits.ts';
import { DomainError } from '../../domain/errors.ts';
import { LIMITED_ENDPOINTS, type LimitedEndpoint } from '../../domain/rate-limit.ts';
import { setBlockedHeaders, setRateLimitHeaders } from './rate-limit-headers.ts';

/** `GET /public/lock/:device_id` (Fastify's route) -> `GET /public/lock/{device_id}` (the limit's name). */
export function endpointOf(request: FastifyRequest): LimitedEndpoint | undefined {
  const method = request.method === 'HEAD' ? 'GET' : request.method;
  const name = `${method} ${request.routeOptions.url ?? ''}`.replace(/:([a-z_]+)/g, '{$1}');
  return (LIMITED_ENDPOINTS as readonly string[]).includes(name) ? (name as LimitedEndpoint) : undefined;
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

/**
 * Authenticates, then spends the request from the rate limits. A request whose key fails still
 * spends its address's budget (so a flood of bad keys is throttled and blocked too) but is answered
 * 401: the key is checked first (DECISIONS.md).
 */
export async function authenticateAndLimit(
  limits: RateLimits | undefined,
  request: FastifyRequest,
  reply: FastifyReply,
  authenticate: () => Promise<{ accountId: string }>,
): Promise<void> {
  const endpoint = endpointOf(request);
  let accountId: string;
  try {
    accountId = (await authenticate()).accountId;
  } catch (error) {
    if (limits && endpoint) setRateLimitHeaders(reply, await limits.check(endpoint, undefined, request.ip));
    throw error;
  }
  if (!limits || !endpoint) return;
  const check = await limits.check(endpoint, accountId, request.ip);
  setRateLimitHeaders(reply, check);
  if (check.kind === 'throttled') {
    reply.header('retry-after', String(check.retryAfterSeconds));
    throw new DomainError('THROTTLED', 'over the rate limit', { retryAfterSeconds: check.retryAfterSeconds });
  }
}
