/**
 * Webhook endpoints (issue 21, point 4; docs/webhooks.md "Endpoints"): besides the one API Settings
 * webhook, an account registers receivers of its event log. Pure rules here: what an endpoint is,
 * which events it takes, the body it is sent. No I/O.
 */
import { EVENT_TYPES, type LockEvent } from './event.ts';
import { webhookUrlProblem } from './webhook.ts';

export const MAX_ENDPOINTS_PER_ACCOUNT = 10;
export const MAX_ENDPOINT_TYPES = 32;
export const MAX_ENDPOINT_DEVICES = 100;
/** Failing this long without one delivered message disables an endpoint (--webhook-endpoint-disable-days). */
export const DEFAULT_ENDPOINT_DISABLE_DAYS = 3;
export const ENDPOINT_ID_PREFIX = 'we_';
const ENDPOINT_ID = /^we_[0-9a-f]{32}$/;
const TYPE_TEXT = /^[a-z_.]{1,64}$/;

export interface WebhookEndpoint {
  /** `we_` and 32 hex digits. */
  readonly id: string;
  readonly accountId: string;
  readonly url: string;
  /** Event types or their starts (`lock.`); empty: every type. */
  readonly types: readonly string[];
  /** Locks (owned by the account) whose events it takes; empty: all, and account events too. */
  readonly deviceIds: readonly string[];
  /** On by default, unlike the API Settings webhook: the existing schedule (RETRY_DELAYS_MS). */
  readonly retries: boolean;
  readonly enabled: boolean;
  readonly disabledAt: number | null;
  readonly disabledReason: string | null;
  /** When the first of its failures since the last delivered message was; null when not failing. */
  readonly failingSince: number | null;
  /** The log position when it was made: it takes only the events after it. */
  readonly fromSeq: number;
  readonly createdAt: number;
}

export const isEndpointId = (value: string): boolean => ENDPOINT_ID.test(value);

/** Why a URL is refused as an endpoint's (the webhook's rules; no {device_id}/{state} there). */
export function endpointUrlProblem(url: string): string | undefined {
  if (url.includes('{') || url.includes('}'))
    return 'must not contain { or } (an endpoint URL has no placeholders)';
  return webhookUrlProblem(url);
}

/** Why a type filter entry is refused: it must be a known type or the start of one. */
export function endpointTypeProblem(type: string): string | undefined {
  if (!TYPE_TEXT.test(type)) return 'must be lowercase letters, "_" and ".", at most 64';
  if (!EVENT_TYPES.some((known) => known.startsWith(type)))
    return `"${type}" is no event type nor the start of one`;
  return undefined;
}

/**
 * Whether an endpoint takes an event. Only its own account's log (the account's events and its own
 * locks'): a lock shared with the account is the owner's to announce, and the lock filter names owned
 * locks only. Only events after the endpoint was made.
 */
export function endpointTakes(endpoint: WebhookEndpoint, seq: number, event: LockEvent): boolean {
  if (!endpoint.enabled || seq <= endpoint.fromSeq) return false;
  if (event.accountId !== endpoint.accountId) return false;
  if (endpoint.types.length > 0 && !endpoint.types.some((prefix) => event.type.startsWith(prefix)))
    return false;
  if (
    endpoint.deviceIds.length > 0 &&
    (event.deviceId === null || !endpoint.deviceIds.includes(event.deviceId))
  )
    return false;
  return true;
}

/** What an endpoint event says of the endpoint: never its URL's path or query, nor a secret. */
export function endpointEventData(endpoint: WebhookEndpoint): Record<string, unknown> {
  let host = '';
  try {
    host = new URL(endpoint.url).host;
  } catch {
    // A checked URL parses.
  }
  return { endpoint_id: endpoint.id, host, types: [...endpoint.types], device_ids: [...endpoint.deviceIds] };
}
