/** The status-change webhook's rules (docs/decisions.md "Webhook"; Standard Webhooks for signing). */
export type WebhookMethod = 'GET' | 'POST';
export const WEBHOOK_URL_MAX = 256;

export interface WebhookConfig {
  readonly accountId: string;
  readonly url: string;
  readonly method: WebhookMethod;
  /** Opt-in: retry failed deliveries with backoff (the documented behaviour is one attempt). */
  readonly retries: boolean;
}

/** Signing secrets as stored: sealed by the SecretBox, never in clear. */
export interface StoredSecrets {
  readonly current: string;
  readonly previous: string | null;
  /** The previous secret signs too until then (24 h after a rotation). */
  readonly previousUntil: number | null;
}

/** Why a webhook URL is refused, or undefined when it is acceptable. */
export function webhookUrlProblem(url: string): string | undefined {
  if (url.length === 0) return 'must not be empty';
  if (url.length > WEBHOOK_URL_MAX) return `must be at most ${WEBHOOK_URL_MAX} characters`;
  let parsed: URL;
  try {
    // The placeholders are not URL characters; fill them in to check the rest.
    parsed = new URL(substitute(url, '00000000-0000-0000-0000-000000000000', 'locked'));
  } catch {
    return 'is not a URL';
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return 'must be http or https';
  if (parsed.username !== '' || parsed.password !== '') return 'must not carry credentials';
  return undefined;
}

/** A URL's host and port as a message keeps it (the per-host places), '' for one that does not parse. */
export function urlHost(url: string): string {
  try {
    return new URL(url).host.toLowerCase();
  } catch {
    return '';
  }
}

export function isWebhookMethod(value: unknown): value is WebhookMethod {
  return value === 'GET' || value === 'POST';
}

export type LockState = 'locked' | 'unlocked';
export const stateName = (locked: boolean): LockState => (locked ? 'locked' : 'unlocked');

/** `{device_id}` becomes the lock's UUID, `{state}` becomes locked or unlocked, wherever they stand. */
export function substitute(url: string, deviceId: string, state: LockState): string {
  return url.split('{device_id}').join(deviceId).split('{state}').join(state);
}

/** The POST body, exactly as docs/decisions.md gives it. */
export function deliveryBody(deviceId: string, locked: boolean): string {
  return JSON.stringify({ device_id: deviceId, locked, state: stateName(locked) });
}

/** Opt-in retries: how long after attempt `attempt` (1-based) the next one goes, or undefined for none. */
export const RETRY_DELAYS_MS = [5_000, 30_000, 120_000, 600_000, 3_600_000] as const;
export const MAX_RETRY_AFTER_MS = 3_600_000;

export function nextAttemptDelay(
  attempt: number,
  status: number | undefined,
  retryAfterMs: number | undefined,
): number | undefined {
  if (status === 410) return undefined; // Gone: the receiver asks us to stop
  if (status !== undefined && status >= 200 && status < 300) return undefined;
  // Other 4xx but 408 and 429 will not get better by asking again.
  if (status !== undefined && status >= 400 && status < 500 && status !== 408 && status !== 429)
    return undefined;
  const base = RETRY_DELAYS_MS[attempt - 1];
  if (base === undefined) return undefined;
  return retryAfterMs === undefined ? base : Math.min(Math.max(base, retryAfterMs), MAX_RETRY_AFTER_MS);
}

/** After a rotation, the previous secret keeps signing this long, so receivers can switch over. */
export const SECRET_OVERLAP_MS = 24 * 60 * 60 * 1000;
export const SECRET_PREFIX = 'whsec_';

/** Delivery log size per account: older entries are dropped. */
export const DELIVERY_LOG_LIMIT = 500;
