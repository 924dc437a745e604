import { createHmac, randomBytes } from 'node:crypto';
import type { WebhookSigner } from '../../app/ports.ts';
import { SECRET_PREFIX } from '../../domain/webhook.ts';

/**
 * Standard Webhooks (standardwebhooks.com): the signed content is `id.timestamp.body`, the key is
 * the base64 part of `whsec_<base64>`, the header lists `v1,<base64 HMAC-SHA256>` per secret.
 */
export const standardWebhooksSigner: WebhookSigner = {
  newSecret: () => SECRET_PREFIX + randomBytes(24).toString('base64'),
  sign(secrets, id, timestampSeconds, body) {
    const content = `${id}.${timestampSeconds}.${body}`;
    return secrets
      .map((secret) => {
        const key = Buffer.from(
          secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret,
          'base64',
        );
        return `v1,${createHmac('sha256', key).update(content, 'utf8').digest('base64')}`;
      })
      .join(' ');
  },
};
