import type { Delivery, DeliveryOutcome } from '../../domain/delivery.ts';
import { DomainError } from '../../domain/errors.ts';
import { accountEvent, SYSTEM_ACTOR } from '../../domain/event.ts';
import { DEFAULT_ENDPOINT_DISABLE_DAYS } from '../../domain/webhook-endpoint.ts';
import type { EventLog } from '../event-log.ts';
import type { Clock, Logger, Mailer, SecretBox, Store } from '../ports.ts';
import type { EndpointHooks } from './attempt.ts';
import { ENDPOINT_DISABLED_ERROR } from './endpoints.ts';

const DAY_MS = 24 * 60 * 60 * 1000;

export interface EndpointHealthDeps {
  readonly store: Store;
  readonly box: SecretBox;
  readonly clock: Clock;
  readonly mailer: Mailer;
  readonly logger: Logger;
  readonly eventLog?: EventLog;
  /** Days of nothing but failures after which an endpoint is disabled (3 by default). */
  readonly disableAfterDays?: number;
}

/**
 * What an endpoint's message needs from the endpoint: its secrets to be signed, and, once tried, the
 * endpoint's health. An endpoint all of whose attempts have failed for `disableAfterDays` (on the
 * server's clock) is disabled at its next failure: its waiting messages are not sent, and its owner
 * is mailed, once (only the process whose update disabled it mails).
 */
export function endpointHooks(deps: EndpointHealthDeps): EndpointHooks {
  const { store, box, clock } = deps;
  const disableAfterMs = (deps.disableAfterDays ?? DEFAULT_ENDPOINT_DISABLE_DAYS) * DAY_MS;
  return {
    async secrets(endpointId) {
      const stored = await store.webhookEndpoints.getSecrets(endpointId);
      // Removed while this message was on its way: never send it unsigned.
      if (!stored) throw new DomainError('NOT_CONFIGURED', 'the endpoint was removed');
      const secrets = [box.open(stored.current)];
      if (stored.previous !== null && stored.previousUntil !== null && clock.now() < stored.previousUntil)
        secrets.push(box.open(stored.previous));
      return secrets;
    },
    async attempted(delivery: Delivery, outcome: DeliveryOutcome) {
      const id = delivery.endpointId;
      if (id === null) return;
      if (outcome.status === 'delivered') return store.webhookEndpoints.markDelivered(id);
      const now = outcome.lastAttemptAt ?? clock.now();
      const since = await store.webhookEndpoints.markFailing(id, now);
      if (since === undefined || now - since < disableAfterMs) return;
      const days = Math.floor((now - since) / DAY_MS);
      const reason = `every delivery failed for ${days} days`;
      const events =
        deps.eventLog?.stampAll([
          accountEvent('webhook.endpoint_disabled', delivery.accountId, SYSTEM_ACTOR, {
            endpoint_id: id,
            reason,
          }),
        ]) ?? [];
      if (!(await store.webhookEndpoints.disable(id, now, reason, ENDPOINT_DISABLED_ERROR, events))) return;
      deps.logger.warn(
        { endpoint: id, account: delivery.accountId },
        'webhook endpoint disabled after failing for days',
      );
      const account = await store.accounts.findById(delivery.accountId);
      if (!account) return;
      let host = '';
      try {
        host = new URL(delivery.url).host;
      } catch {
        // A stored endpoint URL parses.
      }
      await deps.mailer
        .send({
          to: account.email,
          subject: 'lockcloud: a webhook endpoint was disabled',
          text: `Your webhook endpoint ${id} (${host}) was disabled: ${reason}.\nIts waiting messages were not sent. Enable it again with PATCH /ext/webhook-endpoints/${id} {"enabled": true}.\n`,
        })
        .catch((error: unknown) =>
          deps.logger.error({ err: error, endpoint: id }, 'mailing about a disabled endpoint failed'),
        );
    },
  };
}
