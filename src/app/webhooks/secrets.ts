import { DomainError } from '../../domain/errors.ts';
import { SECRET_OVERLAP_MS } from '../../domain/webhook.ts';
import type { Clock, SecretBox, WebhookSigner, WebhookStore } from '../ports.ts';

export interface SecretDeps {
  readonly webhooks: WebhookStore;
  readonly box: SecretBox;
  readonly signer: WebhookSigner;
  readonly clock: Clock;
}

/** The secrets that sign now: the current one, and the previous one for 24 h after a rotation. */
export async function signingSecrets(deps: SecretDeps, accountId: string): Promise<string[]> {
  let stored = await deps.webhooks.getSecrets(accountId);
  if (!stored) {
    // A webhook set without a secret (a seed, the CLI) gets one the first time it is needed.
    await deps.webhooks.setSecrets(accountId, {
      current: deps.box.seal(deps.signer.newSecret()),
      previous: null,
      previousUntil: null,
    });
    stored = await deps.webhooks.getSecrets(accountId);
    // No webhook any more (removed while this message was on its way): never send it unsigned.
    if (!stored) throw new DomainError('NOT_CONFIGURED', 'the webhook was removed');
  }
  const secrets = [deps.box.open(stored.current)];
  if (stored.previous !== null && stored.previousUntil !== null && deps.clock.now() < stored.previousUntil) {
    secrets.push(deps.box.open(stored.previous));
  }
  return secrets;
}

/** A new current secret; the old one keeps signing for the overlap. Answers the new one, in clear, once. */
export async function rotateSecret(deps: SecretDeps, accountId: string): Promise<string> {
  const fresh = deps.signer.newSecret();
  const stored = await deps.webhooks.getSecrets(accountId);
  await deps.webhooks.setSecrets(accountId, {
    current: deps.box.seal(fresh),
    previous: stored?.current ?? null,
    previousUntil: stored ? deps.clock.now() + SECRET_OVERLAP_MS : null,
  });
  return fresh;
}
