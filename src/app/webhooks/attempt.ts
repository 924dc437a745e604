import type { Delivery, DeliveryOutcome } from '../../domain/delivery.ts';
import { nextAttemptDelay } from '../../domain/webhook.ts';
import { NO_METRICS } from '../ports/ops.ts';
import type { Logger, Metrics, Store, WebhookTransport } from '../ports.ts';
import { type SecretDeps, signingSecrets } from './secrets.ts';

/**
 * What the delivery log says of every destination the policy refuses or whose name cannot be
 * resolved: one text for all, so an account cannot learn how names resolve inside the operator's
 * network (a refused 127.0.0.1 and a name that does not exist read the same). The server's log
 * keeps which one it was.
 */
export const DESTINATION_REFUSED = 'the destination address is not allowed or could not be resolved';

/** What an endpoint's message needs beyond the webhook's (app/webhooks/endpoint-health.ts). */
export interface EndpointHooks {
  /** The endpoint's signing secrets now (current, and the previous one during a rotation). */
  secrets(endpointId: string): Promise<string[]>;
  /** After an attempt was logged: keeps the endpoint's failing time, disables it when due. */
  attempted(delivery: Delivery, outcome: DeliveryOutcome): Promise<void>;
}

export interface AttemptDeps extends SecretDeps {
  readonly store: Store;
  readonly endpointHooks?: EndpointHooks;
  readonly transport: WebhookTransport;
  readonly logger: Logger;
  readonly metrics?: Metrics;
  readonly timeoutMs: number;
}

/**
 * `done`: the attempt was made and logged (or left queued by a shutdown). `busy`: the receiver host was full for this message, so
 * nothing was sent and the message waits again exactly as it was.
 */
export type AttemptEnd = 'done' | 'busy';

/** One attempt at a message claimed for sending; never rejects. */
export async function attemptDelivery(
  deps: AttemptDeps,
  delivery: Delivery,
  admit: (receiverHost: string) => boolean,
  signal: AbortSignal,
): Promise<AttemptEnd> {
  const { clock, transport, signer, store, logger } = deps;
  const metrics = deps.metrics ?? NO_METRICS;
  const attempts = delivery.attempts + 1;
  const waitAgain = (): Promise<void> =>
    store.deliveries.record(delivery.id, { ...delivery, status: 'pending' });
  try {
    const secrets =
      delivery.endpointId !== null && deps.endpointHooks
        ? await deps.endpointHooks.secrets(delivery.endpointId)
        : await signingSecrets(deps, delivery.accountId);
    if (signal.aborted) {
      // The dispatcher stopped before this left: it stays queued for the next start.
      await waitAgain();
      return 'done';
    }
    const timestamp = Math.floor(clock.now() / 1000);
    // An endpoint's message is identified by its event, so a receiver drops one it already has.
    const messageId = delivery.eventId ?? delivery.id;
    const result = await transport.send({
      url: delivery.url,
      method: delivery.method,
      headers: {
        'webhook-id': messageId,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': signer.sign(secrets, messageId, timestamp, delivery.body ?? ''),
        'lockcloud-event': delivery.event,
      },
      body: delivery.body,
      timeoutMs: deps.timeoutMs,
      signal,
      admit,
    });
    if (result.outcome === 'busy') {
      await waitAgain();
      return 'busy';
    }
    const now = clock.now();
    if (result.outcome !== 'answered' && signal.aborted) {
      await store.deliveries.record(delivery.id, {
        status: 'failed',
        attempts,
        nextAttemptAt: null,
        lastAttemptAt: now,
        responseStatus: null,
        error: 'interrupted by a shutdown; not sent again',
        latencyMs: result.outcome === 'failed' ? result.latencyMs : null,
      });
      metrics.webhookAttempted('interrupted');
      return 'done';
    }
    if (result.outcome === 'refused')
      logger.warn(
        { delivery: delivery.id, account: delivery.accountId, detail: result.detail },
        'webhook destination refused or not resolved; the log says only that',
      );
    const outcome = logged(result, attempts, now, delivery.retries);
    await store.deliveries.record(delivery.id, outcome);
    if (delivery.endpointId !== null) await deps.endpointHooks?.attempted(delivery, outcome);
    metrics.webhookAttempted(
      outcome.status === 'delivered'
        ? 'delivered'
        : outcome.status === 'pending'
          ? 'retry_scheduled'
          : 'failed',
    );
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
  return 'done';
}

/** The log entry of an attempt that was made: delivered, waiting for a retry, or failed. */
function logged(
  result: Exclude<Awaited<ReturnType<WebhookTransport['send']>>, { outcome: 'busy' }>,
  attempts: number,
  now: number,
  retries: boolean,
): DeliveryOutcome {
  const status = result.outcome === 'answered' ? result.status : undefined;
  const succeeded = status !== undefined && status >= 200 && status < 300;
  const delay =
    retries && !succeeded
      ? nextAttemptDelay(attempts, status, result.outcome === 'answered' ? result.retryAfterMs : undefined)
      : undefined;
  const error =
    result.outcome === 'answered'
      ? succeeded
        ? null
        : `HTTP ${result.status}`
      : result.outcome === 'refused'
        ? DESTINATION_REFUSED
        : result.error;
  return {
    status: succeeded ? 'delivered' : delay !== undefined ? 'pending' : 'failed',
    attempts,
    nextAttemptAt: delay === undefined ? null : now + delay,
    lastAttemptAt: now,
    responseStatus: status ?? null,
    error,
    // Nothing was sent to a refused destination: no latency to tell (and none to time a lookup by).
    latencyMs: result.outcome === 'refused' ? null : result.latencyMs,
  };
}
