import type { EventLog } from '../event-log.ts';
import type {
  Clock,
  EventBus,
  Logger,
  Mailer,
  Metrics,
  RandomSource,
  RateLimitStore,
  SecretBox,
  Store,
  WebhookSigner,
  WebhookTransport,
} from '../ports.ts';
import { DEFAULT_DISPATCH_LIMITS, type DispatcherLimits, WebhookDispatcher } from './dispatcher.ts';
import { endpointHooks } from './endpoint-health.ts';
import { WebhookEndpoints } from './endpoints.ts';
import { ManualSends } from './manual-sends.ts';
import { WebhookReceivers } from './receivers.ts';
import { WebhookRelay } from './relay.ts';
import { WebhookSettings } from './settings.ts';

/** What the webhook parts are made of: LockcloudDeps's share of it. */
export interface WebhookPartsDeps {
  readonly store: Store;
  readonly clock: Clock;
  readonly random: RandomSource;
  readonly logger: Logger;
  readonly events: EventBus;
  readonly secretBox: SecretBox;
  readonly webhookSigner: WebhookSigner;
  readonly webhookTransport: WebhookTransport;
  readonly webhookLimits?: DispatcherLimits;
  readonly rateLimits: RateLimitStore | undefined;
  readonly mailer: Mailer;
  readonly metrics?: Metrics;
  readonly sharedStore?: boolean;
  readonly endpointDisableDays?: number;
}

/**
 * The webhooks' parts, wired to each other: the API Settings webhook and the endpoints (what the
 * APIs change), the dispatcher that sends from the outbox, and the relay that fills it from the
 * event log, woken at once for the accounts the receivers list knows.
 */
export interface WebhookParts {
  readonly settings: WebhookSettings;
  readonly endpoints: WebhookEndpoints;
  readonly dispatcher: WebhookDispatcher;
  readonly receivers: WebhookReceivers;
  readonly relay: WebhookRelay;
}

export function webhookParts(deps: WebhookPartsDeps, eventLog: EventLog): WebhookParts {
  const limits = deps.webhookLimits ?? DEFAULT_DISPATCH_LIMITS;
  const secretDeps = {
    webhooks: deps.store.webhooks,
    box: deps.secretBox,
    signer: deps.webhookSigner,
    clock: deps.clock,
  };
  const dispatcher = new WebhookDispatcher({
    ...secretDeps,
    store: deps.store,
    transport: deps.webhookTransport,
    random: deps.random,
    logger: deps.logger,
    limits,
    metrics: deps.metrics,
    sharedStore: deps.sharedStore,
  });
  const manualSends = new ManualSends(deps.rateLimits, deps.clock);
  const receivers = new WebhookReceivers({
    store: deps.store.webhookEndpoints,
    clock: deps.clock,
    logger: deps.logger,
  });
  const settings = new WebhookSettings({
    ...secretDeps,
    receivers,
    store: deps.store,
    dispatcher,
    manualSends,
    eventLog,
  });
  const endpoints = new WebhookEndpoints({
    store: deps.store,
    receivers,
    box: deps.secretBox,
    signer: deps.webhookSigner,
    clock: deps.clock,
    random: deps.random,
    transport: deps.webhookTransport,
    dispatcher,
    manualSends,
    eventLog,
  });
  const relay = new WebhookRelay({
    store: deps.store,
    clock: deps.clock,
    random: deps.random,
    logger: deps.logger,
    events: deps.events,
    dispatcher,
    receivers,
    queuePerAccount: limits.queuePerAccount,
  });
  dispatcher.attachEndpoints(
    relay,
    endpointHooks({
      store: deps.store,
      box: deps.secretBox,
      clock: deps.clock,
      mailer: deps.mailer,
      logger: deps.logger,
      eventLog,
      disableAfterDays: deps.endpointDisableDays,
    }),
  );
  return { settings, endpoints, dispatcher, receivers, relay };
}
