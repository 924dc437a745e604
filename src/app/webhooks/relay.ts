import { type Delivery, notTriedYet } from '../../domain/delivery.ts';
import type { LockEvent } from '../../domain/event.ts';
import { eventJson } from '../../domain/event.ts';
import { DELIVERY_LOG_LIMIT, urlHost } from '../../domain/webhook.ts';
import { endpointTakes, type WebhookEndpoint } from '../../domain/webhook-endpoint.ts';
import type { Cancel, Clock, Logger, RandomSource, RelayPlan, Store } from '../ports.ts';
import type { OutboxFeed, WebhookDispatcher } from './dispatcher.ts';

// How often the log is looked at: events are committed by every process, and the relay follows
// the log itself rather than each process's own commits, so it notices them all the same way.
const RELAY_POLL_MS = 200;
const BATCH = 200;

export interface RelayDeps {
  readonly store: Store;
  readonly clock: Clock;
  readonly random: RandomSource;
  readonly logger: Logger;
  readonly dispatcher: WebhookDispatcher;
}

/** One endpoint's message for one event: the event as GET /ext/events lists it, POSTed. */
export function relayedMessage(
  endpoint: WebhookEndpoint,
  event: LockEvent,
  id: string,
  now: number,
): Delivery {
  return {
    id,
    accountId: endpoint.accountId,
    deviceId: event.deviceId ?? '',
    event: event.type,
    endpointId: endpoint.id,
    eventId: event.id,
    url: endpoint.url,
    host: urlHost(endpoint.url),
    method: 'POST',
    body: JSON.stringify(eventJson(event)),
    locked: false,
    retries: endpoint.retries,
    seq: now * 1000,
    ...notTriedYet(now),
  };
}

/**
 * The reader of the event log that feeds webhook endpoints: turns each event, in commit order, into
 * one message per enabled endpoint that takes it (domain/webhook-endpoint.ts), through the outbox the
 * API Settings webhook uses. The position it has reached is kept in the store and moved in the
 * transaction that writes the messages, so each event is relayed once whichever process does it.
 */
export class EndpointRelay implements OutboxFeed {
  private stopPolling: Cancel | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private seenHead = -1;

  constructor(private readonly deps: RelayDeps) {}

  start(): void {
    this.stopPolling = this.deps.clock.every(RELAY_POLL_MS, () => this.kick());
    this.kick();
  }

  async stop(): Promise<void> {
    this.stopPolling?.();
    this.stopPolling = undefined;
    while (this.running) await this.running;
  }

  /** Relays what the log holds past the position now, then lets the dispatcher start it. */
  async relayNow(): Promise<void> {
    this.again = true;
    this.kick();
    while (this.running) await this.running;
  }

  private kick(): void {
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.pass()
      .catch((error: unknown) =>
        this.deps.logger.error({ err: error }, 'relaying events to webhook endpoints failed'),
      )
      .finally(() => {
        this.running = undefined;
        if (this.again) {
          this.again = false;
          this.kick();
        }
      });
  }

  private async pass(): Promise<void> {
    const { store, clock, random } = this.deps;
    // A cheap look first: most polls find nothing new.
    const head = await store.events.head();
    if (head === this.seenHead && !this.again) return;
    this.again = false;
    const touched = new Map<string, string>();
    const plan: RelayPlan = (batch, endpoints) => {
      const now = clock.now();
      const messages: Delivery[] = [];
      for (const { seq, event } of batch)
        for (const endpoint of endpoints)
          if (endpointTakes(endpoint, seq, event)) {
            touched.set(endpoint.id, endpoint.accountId);
            messages.push(relayedMessage(endpoint, event, `msg_${random.uuid().replace(/-/g, '')}`, now));
          }
      return messages;
    };
    while ((await store.webhookEndpoints.relay(BATCH, plan)) === BATCH) {}
    this.seenHead = head;
    for (const [endpointId, accountId] of touched)
      await store.deliveries.trim(accountId, DELIVERY_LOG_LIMIT, endpointId);
    if (touched.size > 0) this.deps.dispatcher.wake();
  }
}
