/**
 * The Generic Cell Rate Algorithm: a token bucket kept as one number per key, the theoretical
 * arrival time (TAT) of the next request. `burst` requests may come at once; after that one every
 * `intervalMs`. Pure: the store that keeps TATs and the clock are the caller's.
 */
export interface RatePolicy {
  readonly burst: number;
  readonly intervalMs: number;
}

export interface RateDecision {
  readonly allowed: boolean;
  /** Requests still allowed right now after this one. */
  readonly remaining: number;
  /** When refused: how long until one request would be allowed. */
  readonly retryAfterMs: number;
  /** How long until the bucket is full again. */
  readonly resetMs: number;
}

export function gcra(
  tat: number | undefined,
  now: number,
  policy: RatePolicy,
): { decision: RateDecision; tat: number } {
  const { burst, intervalMs } = policy;
  const current = Math.max(tat ?? now, now);
  const next = current + intervalMs;
  const allowAt = next - burst * intervalMs;
  if (now < allowAt) {
    const decision = { allowed: false, remaining: 0, retryAfterMs: allowAt - now, resetMs: current - now };
    return { decision, tat: current };
  }
  const remaining = Math.floor((now - allowAt) / intervalMs);
  return { decision: { allowed: true, remaining, retryAfterMs: 0, resetMs: next - now }, tat: next };
}

/** Whole seconds for a Retry-After header: never 0 for a refusal. */
export function retryAfterSeconds(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}

/** The v3 endpoints that are limited, each with its own numbers (docs/decisions.md: limits are configuration). */
export const V3_LIMITED_ENDPOINTS = [
  'GET /public/locks',
  'GET /public/lock/{device_id}',
  'POST /public/lock/{device_id}',
  'GET /public/action-result',
  'POST /public/partners/automation',
] as const;

/** The extension API's endpoints (/ext), limited the same way and covered by the same block. */
export const EXT_LIMITED_ENDPOINTS = [
  'GET /ext/webhook',
  'PUT /ext/webhook',
  'DELETE /ext/webhook',
  'POST /ext/webhook/rotate-secret',
  'POST /ext/webhook/test',
  'GET /ext/webhook/deliveries',
  'POST /ext/webhook/deliveries/{id}/resend',
  'GET /ext/events',
  'GET /ext/events/stream',
  'POST /ext/webhook-endpoints',
  'GET /ext/webhook-endpoints',
  'GET /ext/webhook-endpoints/{id}',
  'PATCH /ext/webhook-endpoints/{id}',
  'DELETE /ext/webhook-endpoints/{id}',
  'POST /ext/webhook-endpoints/{id}/rotate-secret',
  'GET /ext/webhook-endpoints/{id}/deliveries',
  'POST /ext/webhook-endpoints/{id}/deliveries/{delivery_id}/resend',
  'GET /ext/locks',
  'GET /ext/locks/{device_id}',
  'PATCH /ext/locks/{device_id}',
  'GET /ext/keys',
  'POST /ext/keys',
  'DELETE /ext/keys/{id}',
  'GET /ext/locks/{device_id}/grants',
  'POST /ext/locks/{device_id}/grants',
  'PATCH /ext/locks/{device_id}/grants/{grant_id}',
  'DELETE /ext/locks/{device_id}/grants/{grant_id}',
  'GET /ext/invitations',
  'POST /ext/invitations/{grant_id}/accept',
  'POST /ext/invitations/{grant_id}/decline',
  'GET /ext/grants',
  'POST /ext/locks/{device_id}/commands',
  'GET /ext/tasks/{task_id}',
] as const;

export const LIMITED_ENDPOINTS = [...V3_LIMITED_ENDPOINTS, ...EXT_LIMITED_ENDPOINTS] as const;
export type LimitedEndpoint = (typeof LIMITED_ENDPOINTS)[number];

/**
 * The OAuth authorization server's endpoints that do work per request (issue 24): each request to
 * the authorization endpoint stores an interaction, each to the token endpoint checks a client and
 * a code or a token. No account is known before they answer, so they are limited per address only,
 * and under the same block. Discovery and the keys are fixed documents, not limited.
 */
export const OAUTH_LIMITED_ENDPOINTS = [
  'GET /oauth/auth',
  'POST /oauth/auth',
  'POST /oauth/token',
  'POST /oauth/token/revocation',
] as const;
export type OAuthLimitedEndpoint = (typeof OAUTH_LIMITED_ENDPOINTS)[number];

export interface EndpointLimit {
  /** Per account (the API key's owner), over all its keys and addresses. */
  readonly account: RatePolicy;
  /** Per client address, over all the accounts it speaks for. */
  readonly ip: RatePolicy;
}

/**
 * When an address is blocked: after `excess` refused requests within about `windowMs` (itself a
 * GCRA bucket: refusals spend it, time refills it), for `blockMs`.
 */
export interface BlockPolicy {
  readonly excess: number;
  readonly windowMs: number;
  readonly blockMs: number;
}

export interface RateLimitSettings {
  readonly endpoints: Readonly<Record<LimitedEndpoint, EndpointLimit>>;
  /** Per client address. */
  readonly oauth: Readonly<Record<OAuthLimitedEndpoint, RatePolicy>>;
  /**
   * The command budget: per account and lock, over every surface that sends commands (v3, the
   * partner endpoint, v1 control, the dashboard), since each command moves the same motor.
   */
  readonly commands: RatePolicy;
  readonly block: BlockPolicy;
}

const perSecond = (burst: number, rate: number): RatePolicy => ({ burst, intervalMs: 1000 / rate });

/**
 * Defaults. Every steady rate is at least 1 request a second, so a client at 1/s or slower is never
 * throttled (docs/decisions.md); bursts cover a dashboard refresh or a poll loop; commands, which move
 * motors and drain batteries, get the least. The command budget equals v3's command endpoint per
 * account, so a v3 client alone never meets it first; it is what holds v1 control and the dashboard,
 * which have no endpoint limits, and a client that spreads one lock's commands over several surfaces.
 */
export const DEFAULT_RATE_LIMITS: RateLimitSettings = {
  endpoints: {
    'GET /public/locks': { account: perSecond(10, 2), ip: perSecond(20, 4) },
    'GET /public/lock/{device_id}': { account: perSecond(30, 5), ip: perSecond(60, 10) },
    'POST /public/lock/{device_id}': { account: perSecond(10, 1), ip: perSecond(20, 2) },
    'GET /public/action-result': { account: perSecond(30, 5), ip: perSecond(60, 10) },
    'POST /public/partners/automation': { account: perSecond(10, 1), ip: perSecond(20, 2) },
    // Settings reads and changes: a script or the SDK sets a webhook now and then.
    'GET /ext/webhook': { account: perSecond(10, 2), ip: perSecond(20, 4) },
    'PUT /ext/webhook': { account: perSecond(10, 1), ip: perSecond(20, 2) },
    'DELETE /ext/webhook': { account: perSecond(10, 1), ip: perSecond(20, 2) },
    'POST /ext/webhook/rotate-secret': { account: perSecond(10, 1), ip: perSecond(20, 2) },
    // Test events and resends have their own budget of messages (30, then one every 2 s); the
    // endpoints' are roomier, so a person sees that budget's answer, and only a flood meets these.
    'POST /ext/webhook/test': { account: perSecond(60, 2), ip: perSecond(120, 4) },
    // The delivery log is polled like task results.
    'GET /ext/webhook/deliveries': { account: perSecond(30, 5), ip: perSecond(60, 10) },
    'POST /ext/webhook/deliveries/{id}/resend': { account: perSecond(60, 2), ip: perSecond(120, 4) },
    // The event log is paged through (a burst) and polled like the delivery log.
    'GET /ext/events': { account: perSecond(30, 5), ip: perSecond(60, 10) },
    // Opening a stream counts as one request; a client that reconnects after each close stays far under.
    'GET /ext/events/stream': { account: perSecond(30, 5), ip: perSecond(60, 10) },
    // Webhook endpoints: settings as the webhook's, their logs and resends as its.
    'POST /ext/webhook-endpoints': { account: perSecond(10, 1), ip: perSecond(20, 2) },
    'GET /ext/webhook-endpoints': { account: perSecond(10, 2), ip: perSecond(20, 4) },
    'GET /ext/webhook-endpoints/{id}': { account: perSecond(10, 2), ip: perSecond(20, 4) },
    'PATCH /ext/webhook-endpoints/{id}': { account: perSecond(10, 1), ip: perSecond(20, 2) },
    'DELETE /ext/webhook-endpoints/{id}': { account: perSecond(10, 1), ip: perSecond(20, 2) },
    'POST /ext/webhook-endpoints/{id}/rotate-secret': { account: perSecond(10, 1), ip: perSecond(20, 2) },
    'GET /ext/webhook-endpoints/{id}/deliveries': { account: perSecond(30, 5), ip: perSecond(60, 10) },
    'POST /ext/webhook-endpoints/{id}/deliveries/{delivery_id}/resend': {
      account: perSecond(60, 2),
      ip: perSecond(120, 4),
    },
    // Locks with their health: listed like v3's list, read like v3's status (polled), set like settings.
    'GET /ext/locks': { account: perSecond(10, 2), ip: perSecond(20, 4) },
    'GET /ext/locks/{device_id}': { account: perSecond(30, 5), ip: perSecond(60, 10) },
    'PATCH /ext/locks/{device_id}': { account: perSecond(10, 1), ip: perSecond(20, 2) },
    // API keys are settings: made and deleted now and then, as the webhook is.
    'GET /ext/keys': { account: perSecond(10, 2), ip: perSecond(20, 4) },
    'POST /ext/keys': { account: perSecond(10, 1), ip: perSecond(20, 2) },
    'DELETE /ext/keys/{id}': { account: perSecond(10, 1), ip: perSecond(20, 2) },
    // Grants and invitations (issue 23): read and changed like settings.
    'GET /ext/locks/{device_id}/grants': { account: perSecond(10, 2), ip: perSecond(20, 4) },
    'POST /ext/locks/{device_id}/grants': { account: perSecond(10, 1), ip: perSecond(20, 2) },
    'PATCH /ext/locks/{device_id}/grants/{grant_id}': { account: perSecond(10, 1), ip: perSecond(20, 2) },
    'DELETE /ext/locks/{device_id}/grants/{grant_id}': { account: perSecond(10, 1), ip: perSecond(20, 2) },
    'GET /ext/invitations': { account: perSecond(10, 2), ip: perSecond(20, 4) },
    'POST /ext/invitations/{grant_id}/accept': { account: perSecond(10, 1), ip: perSecond(20, 2) },
    'POST /ext/invitations/{grant_id}/decline': { account: perSecond(10, 1), ip: perSecond(20, 2) },
    'GET /ext/grants': { account: perSecond(10, 2), ip: perSecond(20, 4) },
    // Commands and their tasks as v3's: the command budget holds each lock, whoever sends.
    'POST /ext/locks/{device_id}/commands': { account: perSecond(10, 1), ip: perSecond(20, 2) },
    'GET /ext/tasks/{task_id}': { account: perSecond(30, 5), ip: perSecond(60, 10) },
  },
  oauth: {
    // People authorizing apps in their browsers: a page, a login, a consent. A whole office behind
    // one address stays under it; a flood of interactions does not.
    'GET /oauth/auth': perSecond(20, 2),
    'POST /oauth/auth': perSecond(20, 2),
    // App servers: one address refreshes the tokens of all its users, an hour apart each.
    'POST /oauth/token': perSecond(60, 10),
    'POST /oauth/token/revocation': perSecond(60, 10),
  },
  commands: perSecond(10, 1),
  block: { excess: 100, windowMs: 60_000, blockMs: 30 * 60_000 },
};

/** The excess bucket as a GCRA policy: `excess` refusals at once, refilled over the window. */
export function excessPolicy(block: BlockPolicy): RatePolicy {
  return { burst: block.excess, intervalMs: block.windowMs / block.excess };
}

/** A client address refused on every limited endpoint until `until` (the 30-minute block). */
export interface IpBlock {
  readonly ip: string;
  readonly blockedAt: number;
  readonly until: number;
}
