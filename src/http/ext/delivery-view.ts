import type { Delivery } from '../../domain/delivery.ts';

export const iso = (t: number | null): string | null => (t === null ? null : new Date(t).toISOString());

/** What every delivery log entry says of its attempts: the API Settings webhook's and an endpoint's. */
export const deliveryProgress = (d: Delivery) => ({
  status: d.status,
  attempts: d.attempts,
  response_status: d.responseStatus,
  error: d.error,
  latency_ms: d.latencyMs,
  created_at: new Date(d.createdAt).toISOString(),
  last_attempt_at: iso(d.lastAttemptAt),
  next_attempt_at: d.status === 'pending' ? iso(d.nextAttemptAt) : null,
});
