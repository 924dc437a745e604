import {
  DELIVERY_LOG_LIMIT,
  deliveryBody,
  type LockState,
  nextAttemptDelay,
  stateName,
  substitute,
} from '../../domain/webhook.ts';
import { NO_METRICS } from '../ops-ports.ts';
import type {
  Cancel,
  Delivery,
  EventBus,
  LockStateChanged,
  Logger,
  Metrics,
  RandomSource,
  Store,
  WebhookConfig,
  WebhookTransport,
} from '../ports.ts';
import { type SecretDeps, signingSecrets } from './secrets.ts';

export interface DispatcherLimits {
  /** Deliveries in flight in this process. */
  readonly total: number;
  /** Deliveries in flight to one receiver host: a slow receiver holds no more than these. */
  readonly perHost: number;
  readonly timeoutMs: number;
}

const RETRY_POLL_MS = 1_000;
// With several processes, a delivery `sending` for this long was cut short by a dead process (an
// attempt lasts at most the timeout); how often that is looked for.
const ABANDONED_AFTER_MS = 60_000;
const ABANDONED_POLL_MS = 30_000;

export const DEFAULT_DISPATCH_LIMITS: DispatcherLimits = { total: 32, perHost: 4, timeoutMs: 5_000 };

export interface DispatcherDeps extends SecretDeps {
  readonly store: Store;
  readonly events: EventBus;
  readonly transport: WebhookTransport;
  readonly random: RandomSource;
  readonly logger: Logger;
  readonly limits: DispatcherLimits;
  /** Counts each attempt's outcome; none by default. */
  readonly metrics?: Metrics;
  /** Other processes share the store and send its messages too (see failInterrupted). */
  readonly sharedStore?: boolean;
}

const hostOf = (url: string): string => {
  try {
    return new URL(url).host.toLowerCase();
  } catch {
    return '';
  }
};

/**
 * Sends the status-change webhook. A change is written to the outbox (which is also the delivery
 * log) and sent off the request path: per lock in the order of its changes, with bounded
 * concurrency per receiver and overall, one attempt unless the account opted into retries.
 */
export class WebhookDispatcher {
  private readonly inFlightHosts = new Map<string, number>();
  private readonly inFlightDevices = new Set<string>();
  private inFlight = 0;
  private draining = false;
  private again = false;
  private lastSeq = 0;
  private stopListening: Cancel | undefined;
  private wakeUp: Cancel | undefined;
  private stopped = false;
  /** The dispatch pass under way, and the attempts in flight: what stop() waits for. */
  private pass: Promise<void> | undefined;
  private readonly attempts = new Set<Promise<void>>();
  private shutdown = new AbortController();

  constructor(private readonly deps: DispatcherDeps) {}

  async start(): Promise<void> {
    this.stopped = false;
    this.shutdown = new AbortController();
    await this.failInterrupted();
    // Only the changes stored here: each change is written to the outbox once, by its own process.
    this.stopListening = this.deps.events.onLockStateChanged((change) => {
      this.enqueueChange(change).catch((error: unknown) =>
        this.deps.logger.error({ err: error }, 'queueing a webhook failed'),
      );
    }, 'here');
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
    this.stopListening?.();
    this.wakeUp?.();
    this.shutdown.abort();
    while (this.pass !== undefined || this.attempts.size > 0) {
      await Promise.allSettled([this.pass, ...this.attempts]);
    }
  }

  /** A state change: one message if the owner has a webhook. */
  async enqueueChange(change: LockStateChanged): Promise<Delivery | undefined> {
    const config = await this.deps.store.webhooks.get(change.ownerId);
    if (!config) return undefined;
    return this.enqueue(config, change.deviceId, change.locked, 'lock.state_changed');
  }

  /** "Send test event": a message as for a real change of this lock, marked as a test. */
  sendTest(config: WebhookConfig, deviceId: string, locked: boolean): Promise<Delivery> {
    return this.enqueue(config, deviceId, locked, 'test');
  }

  /** Sends a logged message again, as a new message to the webhook's current URL and method. */
  resend(config: WebhookConfig, original: Delivery): Promise<Delivery> {
    return this.enqueue(config, original.deviceId, original.locked, original.event);
  }

  private async enqueue(
    config: WebhookConfig,
    deviceId: string,
    locked: boolean,
    event: Delivery['event'],
  ): Promise<Delivery> {
    const now = this.deps.clock.now();
    const state: LockState = stateName(locked);
    const url = substitute(config.url, deviceId, state);
    // Strictly increasing in this process, so one lock's messages keep their order.
    this.lastSeq = Math.max(this.lastSeq + 1, now * 1000);
    const delivery: Delivery = {
      id: `msg_${this.deps.random.uuid().replace(/-/g, '')}`,
      accountId: config.accountId,
      deviceId,
      event,
      url,
      host: hostOf(url),
      method: config.method,
      body: config.method === 'POST' ? deliveryBody(deviceId, locked) : null,
      locked,
      retries: config.retries,
      seq: this.lastSeq,
      createdAt: now,
      status: 'pending',
      attempts: 0,
      nextAttemptAt: now,
      lastAttemptAt: null,
      responseStatus: null,
      error: null,
      latencyMs: null,
    };
    await this.deps.store.deliveries.insert(delivery);
    await this.deps.store.deliveries.trim(config.accountId, DELIVERY_LOG_LIMIT);
    this.kick();
    return delivery;
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

  private async drain(): Promise<void> {
    const { limits, store, clock } = this.deps;
    if (this.inFlight >= limits.total) return;
    const fullHosts = [...this.inFlightHosts].filter(([, n]) => n >= limits.perHost).map(([h]) => h);
    // Twice the free slots: enough to fill them past a few rows of a nearly full host, without
    // reading a long backlog on every pass (a pass runs each time a delivery ends).
    const room = limits.total - this.inFlight;
    const due = await store.deliveries.due(clock.now(), Math.min(200, room * 2), fullHosts);
    // A lock whose earlier message is in flight or waiting waits too: messages leave in order.
    const blockedDevices = new Set(this.inFlightDevices);
    for (const delivery of due) {
      if (this.inFlight >= limits.total) break;
      const deviceKey = `${delivery.accountId}/${delivery.deviceId}`;
      const hostCount = this.inFlightHosts.get(delivery.host) ?? 0;
      if (blockedDevices.has(deviceKey) || hostCount >= limits.perHost) {
        blockedDevices.add(deviceKey);
        continue;
      }
      blockedDevices.add(deviceKey);
      if (this.stopped) return;
      if (!(await store.deliveries.claim(delivery.id, this.deps.clock.now()))) continue;
      this.inFlight++;
      this.inFlightHosts.set(delivery.host, hostCount + 1);
      this.inFlightDevices.add(deviceKey);
      const attempt = this.attempt(delivery).finally(() => {
        this.attempts.delete(attempt);
        this.inFlight--;
        const left = (this.inFlightHosts.get(delivery.host) ?? 1) - 1;
        if (left <= 0) this.inFlightHosts.delete(delivery.host);
        else this.inFlightHosts.set(delivery.host, left);
        this.inFlightDevices.delete(deviceKey);
        this.kick();
      });
      this.attempts.add(attempt);
    }
  }

  /** One attempt; never rejects. */
  private async attempt(delivery: Delivery): Promise<void> {
    const { clock, transport, signer, store, limits, logger } = this.deps;
    const metrics = this.deps.metrics ?? NO_METRICS;
    const attempts = delivery.attempts + 1;
    const { signal } = this.shutdown;
    try {
      const secrets = await signingSecrets(this.deps, delivery.accountId);
      if (signal.aborted) {
        // The dispatcher stopped before this left: it stays queued for the next start.
        await store.deliveries.record(delivery.id, { ...delivery, status: 'pending' });
        return;
      }
      const timestamp = Math.floor(clock.now() / 1000);
      const headers: Record<string, string> = {
        'webhook-id': delivery.id,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': signer.sign(secrets, delivery.id, timestamp, delivery.body ?? ''),
        'lockcloud-event': delivery.event,
      };
      const result = await transport.send({
        url: delivery.url,
        method: delivery.method,
        headers,
        body: delivery.body,
        timeoutMs: limits.timeoutMs,
        signal,
      });
      const now = clock.now();
      if (!result.ok && signal.aborted) {
        await store.deliveries.record(delivery.id, {
          status: 'failed',
          attempts,
          nextAttemptAt: null,
          lastAttemptAt: now,
          responseStatus: null,
          error: 'interrupted by a shutdown; not sent again',
          latencyMs: result.latencyMs,
        });
        metrics.webhookAttempted('interrupted');
        return;
      }
      const status = result.ok ? result.status : undefined;
      const succeeded = status !== undefined && status >= 200 && status < 300;
      const delay =
        delivery.retries && !succeeded
          ? nextAttemptDelay(attempts, status, result.ok ? result.retryAfterMs : undefined)
          : undefined;
      await store.deliveries.record(delivery.id, {
        status: succeeded ? 'delivered' : delay !== undefined ? 'pending' : 'failed',
        attempts,
        nextAttemptAt: delay === undefined ? null : now + delay,
        lastAttemptAt: now,
        responseStatus: status ?? null,
        error: result.ok ? (succeeded ? null : `HTTP ${result.status}`) : result.error,
        latencyMs: result.latencyMs,
      });
      metrics.webhookAttempted(succeeded ? 'delivered' : delay !== undefined ? 'retry_scheduled' : 'failed');
    } catch (error) {
      logger.error({ err: error, delivery: delivery.id }, 'webhook delivery failed');
      metrics.webhookAttempted('failed');
      await store.deliveries
        .record(delivery.id, {
          status: 'failed',
          attempts,
          nextAttemptAt: null,
          lastAttemptAt: clock.now(),
          responseStatus: null,
          error: 'internal error',
          latencyMs: null,
        })
        .catch((recordError: unknown) =>
          logger.error({ err: recordError, delivery: delivery.id }, 'logging a webhook delivery failed'),
        );
    }
  }
}
