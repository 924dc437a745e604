import { DomainError } from '../../domain/errors.ts';
import { isWebhookMethod, webhookUrlProblem } from '../../domain/webhook.ts';
import type { Delivery, Store, WebhookConfig } from '../ports.ts';
import type { WebhookDispatcher } from './dispatcher.ts';
import { rotateSecret, type SecretDeps } from './secrets.ts';

export interface WebhookInput {
  readonly url: unknown;
  readonly method?: unknown;
  readonly retries?: unknown;
}

export interface WebhookSettingsDeps extends SecretDeps {
  readonly store: Store;
  readonly dispatcher: WebhookDispatcher;
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
  ): Promise<{ config: WebhookConfig; secret: string | undefined }> {
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
    const config: WebhookConfig = { accountId, url: input.url, method, retries };
    await this.deps.store.webhooks.set(config);
    const hasSecret = (await this.deps.store.webhooks.getSecrets(accountId)) !== undefined;
    const secret = hasSecret ? undefined : await rotateSecret(this.deps, accountId);
    return { config, secret };
  }

  remove(accountId: string): Promise<boolean> {
    return this.deps.store.webhooks.remove(accountId);
  }

  async rotateSecret(accountId: string): Promise<string> {
    await this.require(accountId);
    return rotateSecret(this.deps, accountId);
  }

  /** Sends a test message about the account's first lock (or a placeholder when it has none). */
  async sendTest(accountId: string): Promise<Delivery> {
    const config = await this.require(accountId);
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
    if (!original) throw new DomainError('TASK_NOT_FOUND', 'no such delivery', { field: 'id' });
    return this.deps.dispatcher.resend(config, original);
  }

  private async require(accountId: string): Promise<WebhookConfig> {
    const config = await this.deps.store.webhooks.get(accountId);
    if (!config) throw new DomainError('NOT_CONFIGURED', 'no webhook is set');
    return config;
  }
}
