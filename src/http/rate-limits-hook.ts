import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { andThen, type MaybePromise } from '../app/maybe-async.ts';
import type { RateCheck, RateLimits } from '../app/rate-limits.ts';
import { DomainError, isDomainError } from '../domain/errors.ts';
import { LIMITED_ENDPOINTS, type LimitedEndpoint } from '../domain/rate-limit.ts';
import { setBlockedHeaders, setRateLimitHeaders } from './rate-limit-headers.ts';

/**
 * The rate limits of the surfaces that take API keys (v3 and the extension API): a blocked address
 * refused first, then the address's bucket, the key, the account's bucket (docs/rate-limits.md).
 */

// Routes are few and fixed: each one's limit name is worked out once, not on every request, and
// found by the route's URL and method as they are (no key string built per request).
const endpointsByRoute = new Map<string, Map<string, LimitedEndpoint | null>>();

/** `GET /public/lock/:device_id` (Fastify's route) -> `GET /public/lock/{device_id}` (the limit's name). */
export function endpointOf(request: FastifyRequest): LimitedEndpoint | undefined {
  const method = request.method === 'HEAD' ? 'GET' : request.method;
  const url = request.routeOptions.url ?? '';
  let byMethod = endpointsByRoute.get(url);
  if (byMethod === undefined) {
    byMethod = new Map();
    endpointsByRoute.set(url, byMethod);
  }
  let endpoint = byMethod.get(method);
  if (endpoint === undefined) {
    const name = `${method} ${url}`.replace(/:([a-z_]+)/g, '{$1}');
    endpoint = (LIMITED_ENDPOINTS as readonly string[]).includes(name) ? (name as LimitedEndpoint) : null;
    // Unmatched requests have no route url, so the maps hold at most one entry per route and method.
    byMethod.set(method, endpoint);
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
  throw new DomainError(
    'BLOCKED',
    `this client address is blocked for exceeding the rate limits again and again; try again in ${seconds} s`,
    { retryAfterSeconds: seconds },
  );
}

// The address's check, made when the request arrived, for the account's check once the key is read.
const addressChecks = new WeakMap<FastifyRequest, RateCheck>();
// Requests the limits refused themselves: their refusal has spent the address's excess already.
const refusedByLimits = new WeakSet<FastifyRequest>();

function refuse(request: FastifyRequest, reply: FastifyReply, seconds: number): never {
  refusedByLimits.add(request);
  reply.header('retry-after', String(seconds));
  throw new DomainError('THROTTLED', `over this endpoint's rate limit; try again in ${seconds} s`, {
    retryAfterSeconds: seconds,
  });
}

/**
 * Spends the request from its address's budget as soon as it arrives (onRequest), before its key
 * or body is read, and sets the RateLimit headers. v3 answers an address over its limit only once
 * the key is good (`refuseAtOnce` false: its published order puts the key first, docs/decisions.md), but
 * the request has spent the budget, and the refusal the excess. The extension API, ours to order,
 * refuses it at once (`refuseAtOnce`), so a flood of bad keys is answered 429 without a key lookup.
 */
export function limitAddress(
  limits: RateLimits | undefined,
  request: FastifyRequest,
  reply: FastifyReply,
  refuseAtOnce = false,
): MaybePromise<void> {
  const endpoint = endpointOf(request);
  if (!limits || !endpoint) return;
  return andThen(limits.checkAddress(endpoint, request.ip), (check) => {
    addressChecks.set(request, check);
    setRateLimitHeaders(reply, check);
    if (refuseAtOnce && check.kind === 'throttled') refuse(request, reply, check.retryAfterSeconds);
  });
}

/**
 * Runs an onRequest hook's work as a callback-style hook: work answered at once (the in-memory
 * limits) calls `done` at once, with no promise made; work that waits calls it when it settles. A
 * throw or a rejection reaches Fastify's error handling as an async hook's would.
 */
export function hookDone(work: () => MaybePromise<void>, done: (error?: Error) => void): void {
  let pending: MaybePromise<void>;
  try {
    pending = work();
  } catch (error) {
    done(error as Error);
    return;
  }
  if (pending instanceof Promise) pending.then(() => done(), done);
  else done();
}

/**
 * Authenticates, then spends the request from the account's budget. A request whose key fails has
 * spent its address's budget (limitAddress) but is answered 401 even when that is exhausted: the key
 * is checked first (docs/decisions.md). A throttled address or account answers 429 once the key is good.
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
  const checked = limits.checkAccount(endpoint, accountId, request.ip, byAddress);
  const check = checked instanceof Promise ? await checked : checked;
  setRateLimitHeaders(reply, check);
  if (check.kind === 'throttled') refuse(request, reply, check.retryAfterSeconds);
}

/**
 * The budgets the use cases keep (a lock's commands, an account's test events and resends) refuse
 * after the limits above have let the request through. Such a refusal spends the address's excess
 * too, as every refusal does (docs/rate-limits.md): a client that ignores Retry-After on them is
 * blocked like one that ignores it on the endpoint's limit. onError runs before the answer is sent,
 * so the next request already sees a block this refusal made.
 */
export function countBudgetRefusals(app: FastifyInstance, limits: RateLimits | undefined): void {
  if (!limits) return;
  app.addHook('onError', async (request, _reply, error) => {
    if (!isDomainError(error) || refusedByLimits.has(request)) return;
    if (error.code !== 'TOO_MANY_COMMANDS' && error.code !== 'THROTTLED') return;
    try {
      await limits.countRefusal(request.ip);
    } catch (failure) {
      // The refusal is answered either way; the block store being away only delays a block.
      request.log.warn({ err: failure }, 'counting a refusal toward the address block failed');
    }
  });
}
