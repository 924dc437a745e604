/**
 * The account's webhook endpoints (`/ext/webhook-endpoints`, docs/webhooks.md "Endpoints"), reached
 * through {@link LockcloudClient.webhookEndpoints}: receivers of the event log, each with its own
 * secret, filters, delivery log and resend. Errors are the v3 classes: `BadParamsError` (a bad
 * field, named), `UnauthorizedError`, `NotFoundError` (no such endpoint or delivery),
 * `ThrottledError`.
 *
 * @example
 * const { id, secret } = await client.webhookEndpoints.create({ url: 'https://hooks.example.com/in', types: ['lock.'] });
 */
import type { Credential } from './credential.js';
import { type CallOptions, type Http, type KeyedSend, keyedSend, segment } from './http.js';
import type {
  WebhookEndpoint,
  WebhookEndpointDeliveryPage,
  WebhookEndpointInput,
  WebhookEndpointList,
} from './types-endpoints.js';
import type { DeliveryAccepted, WebhookSecret } from './types-ext.js';

/**
 * A page of an endpoint's delivery log: 1 to 500 (50), and the last page's `next_cursor`.
 *
 * @example
 * const options: EndpointDeliveriesOptions = { limit: 100, cursor: page.next_cursor ?? undefined };
 */
export interface EndpointDeliveriesOptions extends CallOptions {
  limit?: number | undefined;
  cursor?: string | undefined;
}

/**
 * The account's webhook endpoints, as {@link LockcloudClient.webhookEndpoints}.
 *
 * @example
 * const { endpoints } = await client.webhookEndpoints.list();
 */
export class WebhookEndpointsApi {
  readonly #send: KeyedSend;

  /** Made by {@link LockcloudClient}; not exported as a value. */
  constructor(http: Http, credential: Credential) {
    this.#send = keyedSend(http, credential, '/ext/webhook-endpoints');
  }

  /**
   * `POST /ext/webhook-endpoints`: a new endpoint; its `secret` is in this answer only.
   *
   * @example
   * const { id, secret } = await client.webhookEndpoints.create({ url: 'https://hooks.example.com/in' });
   */
  create(input: WebhookEndpointInput, options?: CallOptions): Promise<WebhookEndpoint> {
    return this.#send('POST', '', options, input);
  }

  /**
   * `GET /ext/webhook-endpoints`: the account's endpoints, oldest first.
   *
   * @example
   * const { endpoints } = await client.webhookEndpoints.list();
   */
  list(options?: CallOptions): Promise<WebhookEndpointList> {
    return this.#send('GET', '', options);
  }

  /**
   * `GET /ext/webhook-endpoints/{id}`.
   *
   * @example
   * const { enabled, disabled_reason } = await client.webhookEndpoints.get(id);
   */
  get(id: string, options?: CallOptions): Promise<WebhookEndpoint> {
    return this.#send('GET', `/${segment(id)}`, options);
  }

  /**
   * `PATCH /ext/webhook-endpoints/{id}`: changes the fields given; `{ enabled: true }` enables a
   * disabled endpoint again.
   *
   * @example
   * await client.webhookEndpoints.update(id, { enabled: true });
   */
  update(
    id: string,
    changes: Partial<WebhookEndpointInput>,
    options?: CallOptions,
  ): Promise<WebhookEndpoint> {
    return this.#send('PATCH', `/${segment(id)}`, options, changes);
  }

  /**
   * `DELETE /ext/webhook-endpoints/{id}`: the endpoint, its secret and its log.
   *
   * @example
   * await client.webhookEndpoints.delete(id);
   */
  async delete(id: string, options?: CallOptions): Promise<void> {
    await this.#send('DELETE', `/${segment(id)}`, options);
  }

  /**
   * `POST /ext/webhook-endpoints/{id}/rotate-secret`: a new secret, shown once; the old one signs
   * too for 24 hours.
   *
   * @example
   * const { secret } = await client.webhookEndpoints.rotateSecret(id);
   */
  rotateSecret(id: string, options?: CallOptions): Promise<WebhookSecret> {
    return this.#send('POST', `/${segment(id)}/rotate-secret`, options);
  }

  /**
   * `GET /ext/webhook-endpoints/{id}/deliveries`: a page of its log, newest first.
   *
   * @example
   * const { deliveries, next_cursor } = await client.webhookEndpoints.deliveries(id, { limit: 100 });
   */
  deliveries(id: string, options?: EndpointDeliveriesOptions): Promise<WebhookEndpointDeliveryPage> {
    const query = new URLSearchParams();
    if (options?.limit !== undefined) query.set('limit', String(options.limit));
    if (options?.cursor !== undefined) query.set('cursor', options.cursor);
    const text = query.toString();
    return this.#send('GET', `/${segment(id)}/deliveries${text === '' ? '' : `?${text}`}`, options);
  }

  /**
   * `POST /ext/webhook-endpoints/{id}/deliveries/{delivery_id}/resend`: the logged event again,
   * as a new log entry (the same `webhook-id`, the event's id).
   *
   * @example
   * const { delivery_id } = await client.webhookEndpoints.resend(id, failed.id);
   */
  resend(id: string, deliveryId: string, options?: CallOptions): Promise<DeliveryAccepted> {
    return this.#send('POST', `/${segment(id)}/deliveries/${segment(deliveryId)}/resend`, options);
  }
}
