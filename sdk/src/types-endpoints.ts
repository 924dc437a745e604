/**
 * Request and response types of the webhook endpoints (`/ext/webhook-endpoints`, docs/webhooks.md
 * "Endpoints"). Checked against `/openapi.json` by `test/sdk/drift.test.ts`.
 */

/**
 * The body of `POST /ext/webhook-endpoints` (and, every field optional, of `PATCH`).
 *
 * @example
 * const input: WebhookEndpointInput = { url: 'https://hooks.example.com/in', types: ['lock.'] };
 */
export interface WebhookEndpointInput {
  /** http or https, at most 256 characters, no credentials, no placeholders. */
  url: string;
  /** Event types or their starts (`lock.`); empty or left out: every type. */
  types?: string[] | undefined;
  /** Locks the account owns; empty or left out: every lock's events and the account's. */
  device_ids?: string[] | undefined;
  /** Retries on the schedule; on by default. */
  retries?: boolean | undefined;
  /** `false` disables the endpoint; `true` enables a disabled one again. */
  enabled?: boolean | undefined;
}

/**
 * A webhook endpoint; `secret` only in the answer to its creation, shown that once.
 *
 * @example
 * const { id, secret } = await client.webhookEndpoints.create({ url: 'https://hooks.example.com/in' });
 */
export interface WebhookEndpoint {
  id: string;
  url: string;
  types: string[];
  device_ids: string[];
  retries: boolean;
  enabled: boolean;
  disabled_at: string | null;
  disabled_reason: string | null;
  failing_since: string | null;
  created_at: string;
  /** `whsec_…`: only when this answer made the endpoint. */
  secret?: string;
}

/**
 * `GET /ext/webhook-endpoints`.
 *
 * @example
 * const { endpoints }: WebhookEndpointList = await client.webhookEndpoints.list();
 */
export interface WebhookEndpointList {
  endpoints: WebhookEndpoint[];
}

/**
 * One message of an endpoint's delivery log; its `webhook-id` header is `event_id`.
 *
 * @example
 * const failed = page.deliveries.filter((d: WebhookEndpointDelivery) => d.status === 'failed');
 */
export interface WebhookEndpointDelivery {
  id: string;
  event: string;
  event_id: string;
  device_id: string | null;
  url: string;
  status: string;
  attempts: number;
  response_status: number | null;
  error: string | null;
  latency_ms: number | null;
  created_at: string;
  last_attempt_at: string | null;
  next_attempt_at: string | null;
}

/**
 * A page of an endpoint's delivery log, newest first; pass `next_cursor` as `cursor` for the next.
 *
 * @example
 * const page: WebhookEndpointDeliveryPage = await client.webhookEndpoints.deliveries(id, { limit: 50 });
 */
export interface WebhookEndpointDeliveryPage {
  deliveries: WebhookEndpointDelivery[];
  next_cursor: string | null;
}
