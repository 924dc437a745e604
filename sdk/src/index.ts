/**
 * @lockcloud/sdk: typed clients for the lockcloud v3 and v1 APIs, task polling, opt-in retries
 * and webhook verification. No runtime dependency beyond the platform's fetch and Web Crypto.
 *
 * @example
 * import { LockcloudClient, TaskFailedError } from '@lockcloud/sdk';
 * const client = new LockcloudClient({ baseUrl: 'http://127.0.0.1:8080', apiKey: 'lck_…', retry: true });
 * await client.run(deviceId, 'unlock');
 */
export { LockcloudClient, type LockcloudClientOptions, type WaitOptions } from './client.ts';
export * from './errors.ts';
export type { CallOptions, ClientOptions } from './http.ts';
export { DEFAULT_RETRY, type RetryInfo, type RetryOptions, retryDelayMs, sleep, withRetry } from './retry.ts';
export * from './types.ts';
export { LockcloudV1Client, type LockcloudV1ClientOptions } from './v1.ts';
export {
  type VerifyOptions,
  verifyWebhook,
  verifyWebhookSignature,
  type WebhookHeaders,
} from './webhooks.ts';
