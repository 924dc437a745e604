/**
 * lockcloud's extension API (`/ext`), reached through {@link LockcloudClient.webhook}: the webhook
 * settings, its signing secret and its delivery log (docs/webhooks.md), with the client's API key.
 */
import type { Credential } from './credential.js';
import type { CallOptions, Http, KeyedSend } from './http.js';
import { keyedSend, segment } from './http.js';
import type {
  DeliveryAccepted,
  Webhook,
  WebhookDelivery,
  WebhookSecret,
  WebhookSettings,
} from './types-ext.js';

/**
 * The options of {@link WebhookApi.deliveries}.
 *
 * @example
 * const last10 = await client.webhook.deliveries({ limit: 10 });
 */
export interface DeliveriesOptions extends CallOptions {
  /** 1 to 500; the server's default is 50. */
  readonly limit?: number | undefined;
}

/**
 * The account's webhook, under `/ext/webhook`. Errors are the v3 classes, their message the
 * server's: `BadParamsError` (a bad field, named; no webhook set for `test`, `rotateSecret`,
 * `resend`), `UnauthorizedError`, `NotFoundError` (no webhook set for `get` and `delete`, no such
 * delivery), `ThrottledError` (test events and resends over the account's budget, with
 * `retryAfterSeconds`; waited out with `retry` on, since nothing was sent).
 *
 * @example
 * const { secret } = await client.webhook.set({ url: 'https://hooks.example.com/lock/{device_id}/{state}' });
 * const { delivery_id } = await client.webhook.test();
 * const [latest] = await client.webhook.deliveries({ limit: 1 });
 */
export class WebhookApi {
  readonly #send: KeyedSend;

  /** Made by {@link LockcloudClient}; not exported as a value. */
  constructor(http: Http, credential: Credential) {
    this.#send = keyedSend(http, credential, '/ext/webhook');
  }

  /**
   * `GET /ext/webhook`: the settings, never the secret; `NotFoundError` when none is set.
   *
   * @example
   * const { url, method, retries } = await client.webhook.get();
   */
  get(options?: CallOptions): Promise<Webhook> {
    return this.#send('GET', '', options);
  }

  /**
   * `PUT /ext/webhook`: sets all three settings (a field left out returns to its default). The
   * account's first `set` (or the first after a `delete`) answers the signing secret, that once.
   *
   * @example
   * const hook = await client.webhook.set({ url: 'https://hooks.example.com/{device_id}', method: 'POST', retries: true });
   * if (hook.secret !== undefined) console.log('keep this secret:', hook.secret);
   */
  set(settings: WebhookSettings, options?: CallOptions): Promise<Webhook> {
    return this.#send('PUT', '', options, settings);
  }

  /**
   * `DELETE /ext/webhook`: removes the webhook and its secret, and cancels its waiting messages;
   * `NotFoundError` when none is set.
   *
   * @example
   * await client.webhook.delete();
   */
  async delete(options?: CallOptions): Promise<void> {
    await this.#send<undefined>('DELETE', '', options);
  }

  /**
   * `POST /ext/webhook/rotate-secret`: a new signing secret, shown once; for 24 hours messages are
   * signed with both (verifyWebhook takes a list of secrets).
   *
   * @example
   * const { secret } = await client.webhook.rotateSecret();
   */
  rotateSecret(options?: CallOptions): Promise<WebhookSecret> {
    return this.#send('POST', '/rotate-secret', options);
  }

  /**
   * `POST /ext/webhook/test`: sends a test event (the account's first lock, its current state),
   * logged like a real message.
   *
   * @example
   * const { delivery_id } = await client.webhook.test();
   */
  test(options?: CallOptions): Promise<DeliveryAccepted> {
    return this.#send('POST', '/test', options);
  }

  /**
   * `GET /ext/webhook/deliveries`: the delivery log, newest first.
   *
   * @example
   * const failed = (await client.webhook.deliveries({ limit: 500 })).filter((d) => d.status === 'failed');
   */
  deliveries(options?: DeliveriesOptions): Promise<WebhookDelivery[]> {
    const query = options?.limit === undefined ? '' : `?limit=${encodeURIComponent(String(options.limit))}`;
    return this.#send('GET', `/deliveries${query}`, options);
  }

  /**
   * `POST /ext/webhook/deliveries/{id}/resend`: sends a logged message again, as a new message (a
   * new id), to the webhook's current URL; `NotFoundError` for an id not in the account's log.
   *
   * @example
   * const { delivery_id } = await client.webhook.resend(failedDelivery.id);
   */
  resend(deliveryId: string, options?: CallOptions): Promise<DeliveryAccepted> {
    return this.#send('POST', `/deliveries/${segment(deliveryId)}/resend`, options);
  }
}
