import { type Delivery, notTriedYet } from '../../domain/delivery.ts';
import { DomainError } from '../../domain/errors.ts';
import { type Actor, accountEvent, type EventType } from '../../domain/event.ts';
import { SECRET_OVERLAP_MS, urlHost } from '../../domain/webhook.ts';
import {
  ENDPOINT_ID_PREFIX,
  endpointEventData,
  isEndpointId,
  MAX_ENDPOINTS_PER_ACCOUNT,
  type WebhookEndpoint,
} from '../../domain/webhook-endpoint.ts';
import type { EventLog } from '../event-log.ts';
import type { Clock, RandomSource, SecretBox, Store, WebhookSigner, WebhookTransport } from '../ports.ts';
import type { WebhookDispatcher } from './dispatcher.ts';
import { checkEndpointInput, type EndpointInput, invalidEndpointInput } from './endpoint-input.ts';
import type { ManualSends } from './manual-sends.ts';
import type { WebhookReceivers } from './receivers.ts';

export const ENDPOINT_DISABLED_ERROR = 'the endpoint was disabled; not sent';

export interface WebhookEndpointsDeps {
  readonly store: Store;
  readonly box: SecretBox;
  readonly signer: WebhookSigner;
  readonly clock: Clock;
  readonly random: RandomSource;
  readonly transport: WebhookTransport;
  readonly dispatcher: WebhookDispatcher;
  readonly manualSends: ManualSends;
  /** Told of an account given an enabled endpoint, so that the relay writes its messages at once. */
  readonly receivers: Pick<WebhookReceivers, 'added'>;
  readonly eventLog?: EventLog;
}

export interface DeliveryPage {
  readonly deliveries: readonly Delivery[];
  readonly nextCursor: string | null;
}

const notFound = (): never => {
  throw new DomainError('DELIVERY_NOT_FOUND', 'no such endpoint', { field: 'id' });
};

/** An account's webhook endpoints: the extension API's /ext/webhook-endpoints (docs/webhooks.md). */
export class WebhookEndpoints {
  constructor(private readonly deps: WebhookEndpointsDeps) {}

  /** Makes an endpoint; its signing secret is answered, in clear, this once. */
  async create(
    accountId: string,
    input: EndpointInput,
    actor: Actor,
  ): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
    const { store, clock } = this.deps;
    if (input.url === undefined) invalidEndpointInput('url', 'is required');
    const checked = checkEndpointInput(input, (url) => this.refused(url));
    await this.requireOwned(accountId, checked.deviceIds ?? []);
    if ((await store.webhookEndpoints.count(accountId)) >= MAX_ENDPOINTS_PER_ACCOUNT)
      invalidEndpointInput('url', `an account has at most ${MAX_ENDPOINTS_PER_ACCOUNT} endpoints`);
    const endpoint: WebhookEndpoint = {
      id: ENDPOINT_ID_PREFIX + this.deps.random.uuid().replace(/-/g, ''),
      accountId,
      url: checked.url ?? '',
      types: checked.types ?? [],
      deviceIds: checked.deviceIds ?? [],
      retries: checked.retries ?? true,
      enabled: checked.enabled ?? true,
      disabledAt: checked.enabled === false ? clock.now() : null,
      disabledReason: checked.enabled === false ? 'disabled by the account' : null,
      failingSince: null,
      // Only what is logged from now on: the relay may still be behind the log's head.
      fromSeq: await store.events.head(),
      createdAt: clock.now(),
    };
    const secret = this.deps.signer.newSecret();
    const events = this.events('webhook.endpoint_created', endpoint, actor);
    await store.webhookEndpoints.insert(
      endpoint,
      { current: this.deps.box.seal(secret), previous: null, previousUntil: null },
      events,
    );
    if (endpoint.enabled) this.deps.receivers.added(accountId);
    return { endpoint, secret };
  }

  list(accountId: string): Promise<WebhookEndpoint[]> {
    return this.deps.store.webhookEndpoints.list(accountId);
  }

  async get(accountId: string, id: string): Promise<WebhookEndpoint> {
    if (!isEndpointId(id)) notFound();
    return (await this.deps.store.webhookEndpoints.get(accountId, id)) ?? notFound();
  }

  /**
   * Changes what is given. `enabled: true` enables a disabled endpoint again (its failing time
   * starts afresh); `enabled: false` disables it, and its waiting messages are not sent.
   */
  async update(accountId: string, id: string, input: EndpointInput, actor: Actor): Promise<WebhookEndpoint> {
    const { store, clock } = this.deps;
    const current = await this.get(accountId, id);
    const checked = checkEndpointInput(input, (url) => this.refused(url));
    if (checked.deviceIds) await this.requireOwned(accountId, checked.deviceIds);
    const enabling = checked.enabled === true && !current.enabled;
    const next: WebhookEndpoint = {
      ...current,
      url: checked.url ?? current.url,
      types: checked.types ?? current.types,
      deviceIds: checked.deviceIds ?? current.deviceIds,
      retries: checked.retries ?? current.retries,
      ...(enabling ? { enabled: true, disabledAt: null, disabledReason: null, failingSince: null } : {}),
    };
    if (!(await store.webhookEndpoints.update(next, this.events('webhook.endpoint_updated', next, actor))))
      notFound();
    if (enabling) this.deps.receivers.added(accountId);
    if (checked.enabled === false && current.enabled) {
      const reason = 'disabled by the account';
      await store.webhookEndpoints.disable(id, clock.now(), reason, ENDPOINT_DISABLED_ERROR, [
        ...this.events('webhook.endpoint_disabled', next, actor, { reason }),
      ]);
    }
    return this.get(accountId, id);
  }

  async remove(accountId: string, id: string, actor: Actor): Promise<void> {
    const current = await this.get(accountId, id);
    const events = this.events('webhook.endpoint_removed', current, actor);
    if (!(await this.deps.store.webhookEndpoints.remove(accountId, id, events))) notFound();
  }

  /** A new current secret, answered once; the old one keeps signing for 24 h. */
  async rotateSecret(accountId: string, id: string): Promise<string> {
    await this.get(accountId, id);
    const { store, box, clock } = this.deps;
    const stored = await store.webhookEndpoints.getSecrets(id);
    const fresh = this.deps.signer.newSecret();
    await store.webhookEndpoints.setSecrets(id, {
      current: box.seal(fresh),
      previous: stored?.current ?? null,
      previousUntil: stored ? clock.now() + SECRET_OVERLAP_MS : null,
    });
    return fresh;
  }

  /** The endpoint's log, newest first; `cursor` is the last entry of the page before. */
  async deliveries(accountId: string, id: string, limit: number, cursor?: string): Promise<DeliveryPage> {
    await this.get(accountId, id);
    const deliveries = this.deps.store.deliveries;
    let beforeSeq: number | undefined;
    if (cursor !== undefined) {
      const last = await deliveries.get(accountId, cursor, id);
      if (!last) invalidEndpointInput('cursor', "must be a delivery id of this endpoint's log");
      beforeSeq = last.seq;
    }
    const rows = await deliveries.listForAccount(accountId, limit + 1, id, beforeSeq);
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    return { deliveries: page, nextCursor: rows.length > limit && last ? last.id : null };
  }

  /** Sends a logged message again, as a new entry, to the endpoint's current URL. */
  async resend(accountId: string, id: string, deliveryId: string): Promise<Delivery> {
    const endpoint = await this.get(accountId, id);
    const original = await this.deps.store.deliveries.get(accountId, deliveryId, id);
    if (!original) throw new DomainError('DELIVERY_NOT_FOUND', 'no such delivery', { field: 'delivery_id' });
    if (!endpoint.enabled) throw new DomainError('NOT_CONFIGURED', 'the endpoint is disabled');
    await this.deps.manualSends.spend(accountId);
    const now = this.deps.clock.now();
    // The same event (and so the same webhook-id: a receiver that has it drops it), to the current URL.
    return this.deps.dispatcher.submit({
      ...original,
      id: `msg_${this.deps.random.uuid().replace(/-/g, '')}`,
      url: endpoint.url,
      host: urlHost(endpoint.url),
      retries: endpoint.retries,
      ...notTriedYet(now),
    });
  }

  private refused(url: string): boolean {
    return this.deps.transport.refusesLiteral?.(url) ?? false;
  }

  private async requireOwned(accountId: string, deviceIds: readonly string[]): Promise<void> {
    for (const deviceId of deviceIds) {
      const lock = await this.deps.store.locks.get(deviceId);
      if (lock?.ownerId !== accountId)
        invalidEndpointInput('device_ids', `${deviceId} is not a lock of this account`);
    }
  }

  private events(
    type: EventType,
    endpoint: WebhookEndpoint,
    actor: Actor,
    extra: Record<string, unknown> = {},
  ) {
    return (
      this.deps.eventLog?.stampAll([
        accountEvent(type, endpoint.accountId, actor, { ...endpointEventData(endpoint), ...extra }),
      ]) ?? []
    );
  }
}
