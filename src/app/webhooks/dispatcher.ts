import { type Delivery, type DueMessage, refusedAsQueueFull } from '../../domain/delivery.ts';
import type { WebhookConfig } from '../../domain/webhook.ts';
import { DELIVERY_LOG_LIMIT } from '../../domain/webhook.ts';
import { webhookMessage } from '../../domain/webhook-message.ts';
import type { Cancel, Logger, Metrics, RandomSource, Store, WebhookTransport } from '../ports.ts';
import { attemptDelivery, type EndpointHooks } from './attempt.ts';
import { DEFAULT_DISPATCH_LIMITS, type DispatchLimits, InFlight, type Ticket } from './in-flight.ts';
import type { SecretDeps } from './secrets.ts';

export { DEFAULT_DISPATCH_LIMITS };
export type DispatcherLimits = DispatchLimits;

const RETRY_POLL_MS = 1_000;
// With several processes, a delivery `sending` for this long was cut short by a dead process (an
// attempt lasts at most the timeout); how often that is looked for.
const ABANDONED_AFTER_MS = 60_000;
const ABANDONED_POLL_MS = 30_000;
// The most due messages read in one query: enough to fill the free places past a few that may not
// start, without reading a long backlog on every pass (a pass runs each time a delivery ends).
const MAX_READ = 200;

export { queueFull } from '../../domain/delivery.ts';

export interface DispatcherDeps extends SecretDeps {
  readonly store: Store;
  readonly transport: WebhookTransport;
  readonly random: RandomSource;
  readonly logger: Logger;
  readonly limits: DispatchLimits;
  /** Counts each attempt's outcome; none by default. */
  readonly metrics?: Metrics;
  /** Other processes share the store and send its messages too (see failInterrupted). */
  readonly sharedStore?: boolean;
}

/** What feeds the outbox from the event log (relay.ts): run before a pass that must see all due. */
export interface OutboxFeed {
  relayNow(): Promise<void>;
}

/**
 * Sends the webhooks' messages from the outbox (which is also the delivery log), off the request
 * path: per lock and receiver in the order they were written, one attempt unless retries are on,
 * with the places shared fairly between accounts (in-flight.ts). The relay (relay.ts) writes the
 * messages of changes from the event log; test events and resends are written here.
 */
export class WebhookDispatcher {
  private readonly inFlight: InFlight;
  private draining = false;
  private again = false;
  private lastSeq = 0;
  private wakeUp: Cancel | undefined;
  private stopped = false;
  /** The dispatch pass under way, and the attempts in flight: what stop() waits for. */
  private pass: Promise<void> | undefined;
  private readonly attempts = new Set<Promise<void>>();
  private shutdown = new AbortController();
  private feed: OutboxFeed | undefined;
  private endpointHooks: EndpointHooks | undefined;

  constructor(private readonly deps: DispatcherDeps) {
    this.inFlight = new InFlight(deps.limits);
  }

  /** The relay that writes the messages of changes, and what endpoint messages need to be signed and kept healthy. */
  attachEndpoints(feed: OutboxFeed, hooks: EndpointHooks): void {
    this.feed = feed;
    this.endpointHooks = hooks;
  }

  /** New messages were written (the relay): start what may start. */
  wake(): void {
    this.kick();
  }

  async start(): Promise<void> {
    this.stopped = false;
    this.shutdown = new AbortController();
    await this.failInterrupted();
    // Retries come due on the clock; a real-time poll notices them (also after a sandbox jump).
    const stopPolling = this.deps.clock.every(RETRY_POLL_MS, () => this.kick());
    const stopSweeping = this.deps.sharedStore
      ? this.deps.clock.every(ABANDONED_POLL_MS, () => {
          this.failInterrupted().catch((error: unknown) =>
            this.deps.logger.error({ err: error }, 'ending abandoned webhook deliveries failed'),
          );
        })
      : () => undefined;
    this.wakeUp = () => {
      stopPolling();
      stopSweeping();
    };
    this.kick();
  }

  /**
   * Alone, every delivery left `sending` was cut short by this process's last run; with other
   * processes, only one taken long ago (theirs would have finished by now).
   */
  private async failInterrupted(): Promise<void> {
    const now = this.deps.clock.now();
    const before = this.deps.sharedStore ? now - ABANDONED_AFTER_MS : undefined;
    const interrupted = await this.deps.store.deliveries.failInterrupted(now, before);
    if (interrupted > 0)
      this.deps.logger.warn(
        { deliveries: interrupted },
        'webhook deliveries cut short by a restart were not sent again',
      );
  }

  /**
   * Stops listening and polling, and cuts the deliveries in flight short: they are logged failed as
   * interrupted and not sent again (at most once, as after a crash). Resolves once the dispatcher no
   * longer touches the store, so the store may close after it.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    this.wakeUp?.();
    this.shutdown.abort();
    while (this.pass !== undefined || this.attempts.size > 0) {
      await Promise.allSettled([this.pass, ...this.attempts]);
    }
  }

  /**
   * Starts now what is due, as the real-time poll would, and resolves once nothing more can start:
   * the messages due have been claimed (their log entries say `sending`) or wait for a free place.
   * The relay writes what the event log holds first. The sandbox clock calls
   * it after a move, so that POST /_sim/clock answers once the retries the move made due have
   * started (docs/webhooks.md, "The sandbox clock"), and a test can tell that nothing more will be sent.
   */
  async dispatchDue(): Promise<void> {
    await this.feed?.relayNow();
    this.kick();
    // A pass that ends with more to do starts the next one before it resolves.
    while (this.pass !== undefined) await this.pass;
  }

  /** "Send test event": a message as for a real change of this lock, marked as a test. */
  sendTest(config: WebhookConfig, deviceId: string, locked: boolean): Promise<Delivery> {
    return this.enqueue(config, deviceId, locked, 'test');
  }

  /** Sends a logged message again, as a new message to the webhook's current URL and method. */
  resend(config: WebhookConfig, original: Delivery): Promise<Delivery> {
    return this.enqueue(
      config,
      original.deviceId,
      original.locked,
      original.event === 'test' ? 'test' : 'lock.state_changed',
    );
  }

  /**
   * Writes a message made elsewhere (an endpoint's resend) to the outbox, after this process's
   * earlier messages, and keeps its log to its bound.
   */
  async submit(message: Delivery): Promise<Delivery> {
    this.lastSeq = Math.max(this.lastSeq + 1, message.createdAt * 1000);
    const delivery: Delivery = { ...message, seq: this.lastSeq };
    await this.deps.store.deliveries.insert(delivery);
    await this.deps.store.deliveries.trim(
      delivery.accountId,
      DELIVERY_LOG_LIMIT,
      delivery.endpointId ?? undefined,
    );
    this.kick();
    return delivery;
  }

  private async enqueue(
    config: WebhookConfig,
    deviceId: string,
    locked: boolean,
    event: 'lock.state_changed' | 'test',
  ): Promise<Delivery> {
    const now = this.deps.clock.now();
    const id = `msg_${this.deps.random.uuid().replace(/-/g, '')}`;
    const message = webhookMessage(config, deviceId, locked, event, id, now);
    // An account's backlog is bounded; a message past it is logged with the reason, never dropped.
    const { queuePerAccount } = this.deps.limits;
    const full =
      (await this.deps.store.deliveries.countOpen(config.accountId, queuePerAccount)) >= queuePerAccount;
    if (full)
      this.deps.logger.warn(
        { account: config.accountId, waiting: queuePerAccount },
        "webhook queue full: the account's new message is logged, not sent",
      );
    return this.submit(full ? refusedAsQueueFull(message, queuePerAccount) : message);
  }

  /** Starts what may start now; runs again whenever a delivery ends or a new one arrives. */
  private kick(): void {
    if (this.stopped) return;
    if (this.draining) {
      this.again = true;
      return;
    }
    this.draining = true;
    this.pass = this.drain()
      .catch((error: unknown) => this.deps.logger.error({ err: error }, 'webhook dispatch failed'))
      .finally(() => {
        this.draining = false;
        this.pass = undefined;
        if (this.again) {
          this.again = false;
          this.kick();
        }
      });
  }

  /**
   * Starts what may start now. First one read with only the full accounts and hosts left out: when
   * it comes back short of its limit it holds every message that may start, and `pick` serves the
   * least busy accounts first from it without asking again (the common case: one read a pass, where
   * a pass used to end with an empty read per level). When it comes back full, a backlog may hide
   * another account's message past the limit, so the store is asked level by level, least busy
   * accounts first (accounts with nothing out, then those with one out, ...): a long backlog of one
   * account never stands between another account's message and a free place.
   */
  private async drain(): Promise<void> {
    const { store, clock } = this.deps;
    for (;;) {
      if (this.stopped || this.inFlight.room <= 0) return;
      const limit = Math.min(MAX_READ, this.inFlight.room * 2);
      const levels = this.inFlight.levels();
      const widest = await store.deliveries.due(clock.now(), limit, this.inFlight.skip(Math.max(...levels)));
      if (widest.length < limit) {
        // Every message that may start is here: none is left to find by asking again, unless a
        // claim was lost to another process and gave its place back.
        const { lost } = await this.claimAndLaunch(this.inFlight.pick(widest));
        if (lost === 0) return;
        continue;
      }
      let started = 0;
      for (const level of levels) {
        const due = await store.deliveries.due(clock.now(), limit, this.inFlight.skip(level));
        const picked = this.inFlight.pick(due);
        started += (await this.claimAndLaunch(picked)).started;
        if (picked.length > 0) break;
      }
      if (started === 0) return;
    }
  }

  /** Claims each picked message and launches the ones claimed; a place not used is given back. */
  private async claimAndLaunch(picked: readonly { candidate: DueMessage; ticket: Ticket }[]): Promise<{
    started: number;
    lost: number;
  }> {
    let started = 0;
    for (const { candidate, ticket } of picked) {
      const taken = this.stopped
        ? undefined
        : await this.deps.store.deliveries.claim(candidate.id, this.deps.clock.now());
      if (taken) {
        this.launch(taken, ticket);
        started++;
      } else {
        this.inFlight.end(ticket);
      }
    }
    return { started, lost: picked.length - started };
  }

  private launch(delivery: Delivery, ticket: Ticket): void {
    const deps = { ...this.deps, timeoutMs: this.deps.limits.timeoutMs, endpointHooks: this.endpointHooks };
    const admit = (receiverHost: string): boolean => this.inFlight.admit(ticket, receiverHost);
    const attempt = attemptDelivery(deps, delivery, admit, this.shutdown.signal).then((end) => {
      this.attempts.delete(attempt);
      this.inFlight.end(ticket);
      // Given back because its receiver host is full: not kicked, since the host is now known and
      // left out until a message there ends, which kicks (as do new messages and the poll).
      if (end === 'done') this.kick();
    });
    this.attempts.add(attempt);
  }
}
