/** A webhook message as the outbox keeps it and the delivery log shows it. */
import type { WebhookMethod } from './webhook.ts';

export type DeliveryStatus = 'pending' | 'sending' | 'delivered' | 'failed';

/** One webhook message: the outbox entry while it waits, its log entry once tried. */
export interface Delivery {
  /** Also the `webhook-id` header; the same for every attempt of this message. */
  readonly id: string;
  readonly accountId: string;
  readonly deviceId: string;
  readonly event: 'lock.state_changed' | 'test';
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

export type DeliveryOutcome = Pick<
  Delivery,
  'status' | 'attempts' | 'nextAttemptAt' | 'lastAttemptAt' | 'responseStatus' | 'error' | 'latencyMs'
>;
