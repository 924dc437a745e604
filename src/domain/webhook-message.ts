/**
 * The API Settings webhook's message for a lock's state: the URL with its variables filled in, and
 * for POST the documented body. A real change, a test event and a resend all start from here.
 */
import { type Delivery, notTriedYet, type WebhookEvent } from './delivery.ts';
import type { LockEvent } from './event.ts';
import { deliveryBody, stateName, substitute, urlHost, type WebhookConfig } from './webhook.ts';

export function webhookMessage(
  config: WebhookConfig,
  deviceId: string,
  locked: boolean,
  event: WebhookEvent,
  id: string,
  now: number,
): Delivery {
  const url = substitute(config.url, deviceId, stateName(locked));
  return {
    id,
    accountId: config.accountId,
    deviceId,
    event,
    endpointId: null,
    eventId: null,
    url,
    host: urlHost(url),
    method: config.method,
    body: config.method === 'POST' ? deliveryBody(deviceId, locked) : null,
    locked,
    retries: config.retries,
    seq: now * 1000,
    ...notTriedYet(now),
  };
}

/**
 * Whether the event is one the API Settings webhook reports: a lock's state changed after `from`,
 * the log position where the webhook was set up (019) or began to read the log (014).
 */
export function webhookTakes(seq: number, event: LockEvent, from: number): boolean {
  return (
    seq > from && event.deviceId !== null && (event.type === 'lock.locked' || event.type === 'lock.unlocked')
  );
}
