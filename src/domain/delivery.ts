/** A webhook message as the outbox keeps it and the delivery log shows it. */
import type { EventType } from './event.ts';
import type { WebhookMethod } from './webhook.ts';

/** What the API Settings webhook's messages are (`lockcloud-event`). */
export type WebhookEvent = 'lock.state_changed' | 'test';

export type DeliveryStatus = 'pending' | 'sending' | 'delivered' | 'failed';

/** One webhook message: the outbox entry while it waits, its log entry once tried. */
export interface Delivery {
  /** Also the `webhook-id` header; the same for every attempt of this message. */
  readonly id: string;
  readonly accountId: string;
  /** The lock; for an endpoint's message about no lock (an account event), ''. */
  readonly deviceId: string;
  /** The API Settings webhook's `lock.state_changed` or `test`; an endpoint's: the event's type. */
  readonly event: WebhookEvent | EventType;
  /** The endpoint it is for; null: the API Settings webhook. */
  readonly endpointId: string | null;
  /** The event an endpoint's message carries (also its webhook-id); null for the webhook. */
  readonly eventId: string | null;
  readonly url: string;
  readonly host: string;
  readonly method: WebhookMethod;
  readonly body: string | null;
  /** The state the message reports; kept so a resend reports the same one (a GET has no body). */
  readonly locked: boolean;
  readonly retries: boolean;
  /** Orders the messages of one lock: changes leave in the order they happened. */
  readonly seq: number;
  readonly createdAt: number;
  readonly status: DeliveryStatus;
  readonly attempts: number;
  readonly nextAttemptAt: number | null;
  readonly lastAttemptAt: number | null;
  readonly responseStatus: number | null;
  readonly error: string | null;
  readonly latencyMs: number | null;
}

/**
 * What the outbox reads of a due message to decide whether it may start (the dispatcher's
 * scheduling); the whole message comes with taking it for sending.
 */
export type DueMessage = Pick<Delivery, 'id' | 'accountId' | 'deviceId' | 'host' | 'seq'>;

export type DeliveryOutcome = Pick<
  Delivery,
  'status' | 'attempts' | 'nextAttemptAt' | 'lastAttemptAt' | 'responseStatus' | 'error' | 'latencyMs'
>;

/** A message not tried yet, due at `now`: what a new message and a resend start from. */
export function notTriedYet(now: number): DeliveryOutcome & Pick<Delivery, 'createdAt'> {
  return {
    createdAt: now,
    status: 'pending',
    attempts: 0,
    nextAttemptAt: now,
    lastAttemptAt: null,
    responseStatus: null,
    error: null,
    latencyMs: null,
  };
}

/** What the log says of a message its account's full backlog did not take. */
export const queueFull = (limit: number): string =>
  `not sent: ${limit} messages of this account were already waiting`;

/**
 * A message past its account's backlog bound: logged as failed with the reason and never sent, so
 * nothing is dropped unlogged (docs/webhooks.md, "Fair shares between accounts").
 */
export function refusedAsQueueFull(message: Delivery, limit: number): Delivery {
  return { ...message, status: 'failed', nextAttemptAt: null, error: queueFull(limit) };
}

/** Whose backlog a message is in: the account's webhook (no endpoint) or one of its endpoints. */
export const openKey = (accountId: string, endpointId: string | null): string =>
  `${accountId} ${endpointId ?? ''}`;
