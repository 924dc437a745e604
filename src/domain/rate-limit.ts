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
