import type { FastifyReply } from 'fastify';
import type { RateState } from '../app/rate-limits.ts';
import type { RatePolicy } from '../domain/rate-limit.ts';

/** The time a policy's whole burst takes to refill: its window, in whole seconds. */
function windowSeconds(policy: RatePolicy): number {
  return Math.max(1, Math.ceil((policy.burst * policy.intervalMs) / 1000));
}

/**
 * The IETF RateLimit-Policy and RateLimit fields (draft-ietf-httpapi-ratelimit-headers): the
 * tighter of the account's and the address's buckets, its quota and window, what remains of it
 * and the seconds until it is full again.
 */
export function setRateLimitHeaders(
  reply: { header(name: string, value: string): unknown },
  state: RateState,
): void {
  const { policy, decision } = state;
  reply.header('ratelimit-policy', `"endpoint";q=${policy.burst};w=${windowSeconds(policy)}`);
  reply.header('ratelimit', `"endpoint";r=${decision.remaining};t=${Math.ceil(decision.resetMs / 1000)}`);
}

/** A blocked address has nothing left until the block ends. */
export function setBlockedHeaders(reply: FastifyReply, seconds: number): void {
  reply.header('ratelimit-policy', `"blocked";q=0;w=${seconds}`);
  reply.header('ratelimit', `"blocked";r=0;t=${seconds}`);
  reply.header('retry-after', String(seconds));
}
