import { type Delivery, notTriedYet, openKey, refusedAsQueueFull } from '../../domain/delivery.ts';
import type { LockEvent } from '../../domain/event.ts';
import { eventJson } from '../../domain/event.ts';
import { DELIVERY_LOG_LIMIT, urlHost } from '../../domain/webhook.ts';
import { endpointTakes, type WebhookEndpoint } from '../../domain/webhook-endpoint.ts';
import { webhookMessage, webhookTakes } from '../../domain/webhook-message.ts';
import type {
  Cancel,
  Clock,
  EventBus,
  Logger,
  RandomSource,
  RelayedMessage,
  RelayPlan,
  RelayTargets,
  SequencedEvent,
  Store,
} from '../ports.ts';
import type { OutboxFeed, WebhookDispatcher } from './dispatcher.ts';
import type { WebhookReceivers } from './receivers.ts';

// How often the log is looked at besides the wake-ups: events are committed by every process, and
// a lock change stored by this process wakes the relay at once when its account has a webhook or
// an endpoint (receivers.ts); the rest is noticed by the poll, many changes in one batch.
const RELAY_POLL_MS = 200;
const BATCH = 200;
// With no receiver anywhere nothing is written for the log's events, and a receiver made later
// takes only events past its `from_seq`: the position need not follow the log at every poll. Moved
// this often, it keeps the read of a new receiver's first pass short.
const SKIP_EVERY_MS = 1_000;

export interface RelayDeps {
  readonly store: Store;
  readonly clock: Clock;
  readonly random: RandomSource;
  readonly logger: Logger;
  readonly events: EventBus;
  /** Woken when messages were written. */
  readonly dispatcher: Pick<WebhookDispatcher, 'wake'>;
  /** The accounts whose lock changes have messages to write at once. */
  readonly receivers: Pick<WebhookReceivers, 'has' | 'none'>;
  /** Messages waiting or out per webhook or endpoint; past it a new one is logged failed. */
  readonly queuePerAccount: number;
}

/**
 * The messages for a batch of the log, in the events' order: the API Settings webhook's for each
 * lock change of an account that has one, and one per enabled endpoint that takes the event. A
 * message past its webhook's or endpoint's backlog bound is logged failed with the reason.
 */
export function relayPlan(
  batch: readonly SequencedEvent[],
  targets: RelayTargets,
  limit: number,
  now: number,
  newId: () => string,
): RelayedMessage[] {
  const open = new Map(targets.open);
  const messages: RelayedMessage[] = [];
  const add = (message: Delivery, eventId: string): void => {
    const key = openKey(message.accountId, message.endpointId);
    const waiting = open.get(key) ?? 0;
    if (waiting < limit) open.set(key, waiting + 1);
    messages.push({ message: waiting < limit ? message : refusedAsQueueFull(message, limit), eventId });
  };
  for (const { seq, event } of batch) {
    const webhook = targets.webhooks.get(event.accountId);
    if (
      webhook &&
      event.deviceId !== null &&
      webhookTakes(seq, event, targets.webhookFrom.get(event.accountId) ?? 0)
    ) {
      const locked = event.type === 'lock.locked';
      add(webhookMessage(webhook, event.deviceId, locked, 'lock.state_changed', newId(), now), event.id);
    }
    for (const endpoint of targets.endpoints)
      if (endpointTakes(endpoint, seq, event)) add(relayedMessage(endpoint, event, newId(), now), event.id);
  }
  return messages;
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
 * The reader of the event log that feeds the webhooks: turns each event, in commit order, into the
 * API Settings webhook's message for a lock change and one message per enabled endpoint that takes
 * it (relayPlan), written to the outbox the dispatcher sends from. The position it has reached is
 * kept in the store and moved in the transaction that writes the messages, so each event is
 * relayed once whichever process does it, and a change committed is never without its message,
 * also across a crash.
 */
export class WebhookRelay implements OutboxFeed {
  private stopPolling: Cancel | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private stopListening: Cancel | undefined;
  private seenHead = -1;
  private skippedAt = Number.NEGATIVE_INFINITY;

  constructor(private readonly deps: RelayDeps) {}

  start(): void {
    this.stopPolling = this.deps.clock.every(RELAY_POLL_MS, () => this.kick());
    // A lock change stored here is a webhook message to write now, not at the next poll, when its
    // account has somewhere to send it. Without one, a relay transaction per change would read
    // the change back only to write nothing: the poll moves past it with many others.
    this.stopListening = this.deps.events.onLockStateChanged(({ ownerId }) => {
      if (this.deps.receivers.has(ownerId)) this.kick();
    }, 'here');
    this.kick();
  }

  async stop(): Promise<void> {
    this.stopPolling?.();
    this.stopPolling = undefined;
    this.stopListening?.();
    this.stopListening = undefined;
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
    const skip = this.deps.receivers.none();
    if (skip && !this.again && clock.now() - this.skippedAt < SKIP_EVERY_MS) return;
    if (skip) this.skippedAt = clock.now();
    this.again = false;
    const touched = new Map<string, { accountId: string; endpointId: string | undefined }>();
    // Messages past a full backlog, per webhook or endpoint: one log line each, not one per message.
    const refused = new Map<string, { account: string; endpoint: string | undefined; messages: number }>();
    const { queuePerAccount } = this.deps;
    const newId = (): string => `msg_${random.uuid().replace(/-/g, '')}`;
    const plan: RelayPlan = (batch, targets) => {
      const planned = relayPlan(batch, targets, queuePerAccount, clock.now(), newId);
      for (const { message } of planned) {
        const key = openKey(message.accountId, message.endpointId);
        const endpointId = message.endpointId ?? undefined;
        touched.set(key, { accountId: message.accountId, endpointId });
        if (message.status !== 'failed') continue;
        const entry = refused.get(key) ?? { account: message.accountId, endpoint: endpointId, messages: 0 };
        refused.set(key, { ...entry, messages: entry.messages + 1 });
      }
      return planned;
    };
    // Without receivers, the events are not read at all: before, a fleet with no webhook paid for
    // reading each batch of its changes only to write nothing (docs/performance-notes.md).
    const limits = { batch: BATCH, open: queuePerAccount, skipWithoutReceivers: skip };
    while ((await store.webhookEndpoints.relay(limits, plan)) === BATCH) {}
    for (const entry of refused.values())
      this.deps.logger.warn(
        { ...entry, waiting: queuePerAccount },
        'webhook queue full: the new messages are logged, not sent',
      );
    this.seenHead = head;
    for (const { accountId, endpointId } of touched.values())
      await store.deliveries.trim(accountId, DELIVERY_LOG_LIMIT, endpointId);
    if (touched.size > 0) this.deps.dispatcher.wake();
  }
}
