/**
 * Request and response types of lockcloud's extension API (`/ext`): the webhook settings, its
 * signing secret and its delivery log (docs/webhooks.md). Checked against `/openapi.json` by
 * `test/sdk/drift.test.ts`, and their unions against the server's own by `test/sdk/types.test.ts`.
 */

/**
 * How a webhook message is sent: `POST` with a JSON body, or `GET` with the state in the URL.
 *
 * @example
 * const method: WebhookMethod = 'POST';
 */
export type WebhookMethod = 'GET' | 'POST';

/**
 * The body of `PUT /ext/webhook`. A `PUT` replaces all three settings: a field left out returns to
 * its default.
 *
 * @example
 * const settings: WebhookSettings = { url: 'https://hooks.example.com/lock/{device_id}/{state}', retries: true };
 */
export interface WebhookSettings {
  /** http or https, at most 256 characters; `{device_id}` and `{state}` are substituted. */
  url: string;
  /** Default `POST`. */
  method?: WebhookMethod | undefined;
  /** Opt-in retries with back-off; default `false` (one attempt). */
  retries?: boolean | undefined;
}

/**
 * `GET` and `PUT /ext/webhook`: the webhook's settings; the signing secret only in the answer to the
 * account's first `PUT` (or the first after a `DELETE`), shown that once.
 *
 * @example
 * const { secret } = await client.webhook.set({ url });
 * if (secret !== undefined) saveSecret(secret); // shown once
 */
export interface Webhook {
  url: string;
  method: WebhookMethod;
  retries: boolean;
  /** `whsec_…`: only when this answer made the secret. */
  secret?: string;
}

/**
 * `POST /ext/webhook/rotate-secret`: the new signing secret, shown once; the previous one signs
 * too for 24 hours.
 *
 * @example
 * const { secret }: WebhookSecret = await client.webhook.rotateSecret();
 */
export interface WebhookSecret {
  secret: string;
}

/**
 * `POST /ext/webhook/test` and `.../resend`: the message made, to find in the delivery log.
 *
 * @example
 * const { delivery_id }: DeliveryAccepted = await client.webhook.test();
 */
export interface DeliveryAccepted {
  delivery_id: string;
}

/**
 * What a logged message reports: a lock's state change, or a test event.
 *
 * @example
 * const event: WebhookEvent = 'lock.state_changed';
 */
export type WebhookEvent = 'lock.state_changed' | 'test';

/**
 * Where a logged message is: `pending` (not tried yet, or waiting for a retry), `sending`,
 * `delivered` or `failed`.
 *
 * @example
 * const done = (status: DeliveryStatus) => status === 'delivered' || status === 'failed';
 */
export type DeliveryStatus = 'pending' | 'sending' | 'delivered' | 'failed';

/**
 * An element of `GET /ext/webhook/deliveries` (newest first; the last 500 are kept).
 *
 * @example
 * for (const d of await client.webhook.deliveries()) console.log(d.id, d.status, d.error ?? d.response_status);
 */
export interface WebhookDelivery {
  /** The message's `webhook-id` header; the same for every attempt. */
  id: string;
  event: WebhookEvent;
  device_id: string;
  /** The URL used, after substitution. */
  url: string;
  method: WebhookMethod;
  status: DeliveryStatus;
  attempts: number;
  /** The receiver's HTTP status on the last attempt, when it answered. */
  response_status: number | null;
  /** Why the message failed (docs/webhooks.md lists the texts). */
  error: string | null;
  latency_ms: number | null;
  /** ISO 8601 UTC, as are the other times. */
  created_at: string;
  last_attempt_at: string | null;
  /** When a `pending` message is tried next; null otherwise. */
  next_attempt_at: string | null;
}

/**
 * Who made a change (docs/events.md): `api_key`, `partner`, `v1_token`, `dashboard_session`,
 * `account`, `device`, `system`, `grant` or `oauth_app`; for a key, its display prefix only, never
 * the key. A guest sees only the kind of the owner's side.
 *
 * @example
 * const who = (a: EventActor) => (a.key_prefix ? `API key ${a.key_prefix}…` : a.kind);
 */
export interface EventActor {
  kind: string;
  account_id?: string;
  key_prefix?: string;
  /** For `grant`: the grant a guest acted through (`account_id` is the guest's). */
  grant_id?: string;
  /** For `oauth_app`: the app (its OAuth client id) that acted for `account_id`. */
  app_id?: string;
  /** For `oauth_app`: the app's name when it acted (a later rename does not change it). */
  app_name?: string;
}

/**
 * An event of the log (`GET /ext/events`): a lock moved, a command ended, a key made, ...
 *
 * @example
 * if (e.type === 'lock.unlocked' && e.method === 'manual') console.log('unlocked by hand at', e.occurred_at);
 */
export interface LockcloudEvent {
  /** Unique, sorts by time (`evt_` and 28 hex digits). */
  id: string;
  /** `lock.unlocked`, `command.failed`, ... (docs/events.md lists them). */
  type: string;
  /** RFC 3339. */
  occurred_at: string;
  device_id: string | null;
  actor: EventActor;
  /** How a lock moved or a command came: `api_v3`, `api_v1`, `partner`, `dashboard`, `manual`, `auto`. */
  method: string | null;
  task_id: string | null;
  data: Record<string, unknown>;
}

/**
 * A page of `GET /ext/events`; `next_cursor` (null: no more for now) continues it.
 *
 * @example
 * const { events, next_cursor } = await client.events.page({ type: 'lock.' });
 */
export interface EventPage {
  events: LockcloudEvent[];
  next_cursor: string | null;
}
