import type { Delivery } from '../../domain/delivery.ts';
import { DomainError } from '../../domain/errors.ts';
import { type Actor, accountEvent, type LockEvent } from '../../domain/event.ts';
import type { WebhookConfig } from '../../domain/webhook.ts';
import { isWebhookMethod, webhookUrlProblem } from '../../domain/webhook.ts';
import type { EventLog } from '../event-log.ts';
import type { Store } from '../ports.ts';
import type { WebhookDispatcher } from './dispatcher.ts';
import type { ManualSends } from './manual-sends.ts';
import type { WebhookReceivers } from './receivers.ts';
import { rotateSecret, type SecretDeps } from './secrets.ts';

export interface WebhookInput {
  readonly url: unknown;
  readonly method?: unknown;
  readonly retries?: unknown;
}

/**
 * The rules every way of setting a webhook applies (the extension API, the admin CLI): a checked
 * config, or INVALID_INPUT naming the field. Method defaults to POST, retries to off.
 */
export function webhookConfig(accountId: string, input: WebhookInput): WebhookConfig {
  if (typeof input.url !== 'string')
    throw new DomainError('INVALID_INPUT', 'url: must be a string', { field: 'url' });
  const problem = webhookUrlProblem(input.url);
  if (problem !== undefined) throw new DomainError('INVALID_INPUT', `url: ${problem}`, { field: 'url' });
  const method = input.method ?? 'POST';
  if (!isWebhookMethod(method))
    throw new DomainError('INVALID_INPUT', 'method: must be GET or POST', { field: 'method' });
  const retries = input.retries ?? false;
  if (typeof retries !== 'boolean')
    throw new DomainError('INVALID_INPUT', 'retries: must be true or false', { field: 'retries' });
  return { accountId, url: input.url, method, retries };
}

/**
 * Stores a checked config. The first time the account has one, its signing secret is made (sealed in
 * the store) and answered, in clear, this once; later changes keep the secret and answer undefined.
 */
export async function saveWebhook(
  deps: SecretDeps,
  config: WebhookConfig,
  events: readonly LockEvent[] = [],
): Promise<string | undefined> {
  await deps.webhooks.set(config, events);
  const hasSecret = (await deps.webhooks.getSecrets(config.accountId)) !== undefined;
  return hasSecret ? undefined : rotateSecret(deps, config.accountId);
}

/**
 * webhook.updated: what changed, without the URL's path or query (they may carry the receiver's
 * credentials); its host says which receiver.
 */
export function webhookUpdated(config: WebhookConfig, actor: Actor) {
  let host = '';
  try {
    host = new URL(config.url).host;
  } catch {
    // A checked config's URL parses; nothing to show otherwise.
  }
  return accountEvent('webhook.updated', config.accountId, actor, {
    host,
    method: config.method,
    retries: config.retries,
  });
}

export const webhookRemoved = (accountId: string, actor: Actor) =>
  accountEvent('webhook.removed', accountId, actor);

/**
 * Removes the account's webhook and its secret; its messages still waiting to be sent (a first attempt
 * or a retry) are ended as failed, never sent to a webhook that no longer exists. False when none.
 */
export async function removeWebhook(
  store: Pick<Store, 'webhooks' | 'deliveries'>,
  accountId: string,
  events: readonly LockEvent[] = [],
): Promise<boolean> {
  const removed = await store.webhooks.remove(accountId, events);
  if (removed) await store.deliveries.cancelPending(accountId, 'the webhook was removed; not sent');
  return removed;
}

export interface WebhookSettingsDeps extends SecretDeps {
  readonly store: Store;
  readonly dispatcher: WebhookDispatcher;
  /** The budget test events and resends spend (THROTTLED past it). */
  readonly manualSends: ManualSends;
  /** Told of an account given a webhook, so that the relay writes its messages at once. */
  readonly receivers: Pick<WebhookReceivers, 'added'>;
  /** Where a change of the settings is recorded; none: not recorded. */
  readonly eventLog?: EventLog;
}

/** An account's webhook: what the dashboard's settings page, the extension API and the CLI change. */
export class WebhookSettings {
  constructor(private readonly deps: WebhookSettingsDeps) {}

  get(accountId: string): Promise<WebhookConfig | undefined> {
    return this.deps.store.webhooks.get(accountId);
  }

  /**
   * Sets the URL and method (and the opt-in retries). The first time, a signing secret is made and
   * answered, once; later changes keep the secret.
   */
  async set(
    accountId: string,
    input: WebhookInput,
    actor: Actor,
  ): Promise<{ config: WebhookConfig; secret: string | undefined }> {
    const config = webhookConfig(accountId, input);
    const events = this.deps.eventLog?.stampAll([webhookUpdated(config, actor)]);
    const secret = await saveWebhook(this.deps, config, events);
    this.deps.receivers.added(accountId);
    return { config, secret };
  }

  remove(accountId: string, actor: Actor): Promise<boolean> {
    const events = this.deps.eventLog?.stampAll([webhookRemoved(accountId, actor)]);
    return removeWebhook(this.deps.store, accountId, events);
  }

  async rotateSecret(accountId: string): Promise<string> {
    await this.require(accountId);
    return rotateSecret(this.deps, accountId);
  }

  /** Sends a test message about the account's first lock (or a placeholder when it has none). */
  async sendTest(accountId: string): Promise<Delivery> {
    const config = await this.require(accountId);
    await this.deps.manualSends.spend(accountId);
    const [lock] = await this.deps.store.locks.listOwnedBy(accountId);
    return this.deps.dispatcher.sendTest(
      config,
      lock?.deviceId ?? '00000000-0000-0000-0000-000000000000',
      lock?.locked ?? true,
    );
  }

  deliveries(accountId: string, limit: number): Promise<Delivery[]> {
    return this.deps.store.deliveries.listForAccount(accountId, limit);
  }

  async resend(accountId: string, deliveryId: string): Promise<Delivery> {
    const config = await this.require(accountId);
    const original = await this.deps.store.deliveries.get(accountId, deliveryId);
    if (!original) throw new DomainError('DELIVERY_NOT_FOUND', 'no such delivery', { field: 'id' });
    await this.deps.manualSends.spend(accountId);
    return this.deps.dispatcher.resend(config, original);
  }

  private async require(accountId: string): Promise<WebhookConfig> {
    const config = await this.deps.store.webhooks.get(accountId);
    if (!config) throw new DomainError('NOT_CONFIGURED', 'no webhook is set');
    return config;
  }
}
