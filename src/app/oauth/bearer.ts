/**
 * An OAuth access token where an API key goes (issue 24): the same Principal, with the scopes the
 * token was issued with, the locks its consent names now, and the token's expiry as its limits,
 * so every route's scope and lock check (src/http/key-check.ts) holds it as it holds a scoped key.
 * The actor of what it does is the app, for the account that authorized it.
 */
import { DomainError } from '../../domain/errors.ts';
import { oauthAppActor } from '../../domain/event.ts';

import { tokenLimits } from '../../domain/oauth-app.ts';
import type { KeyCheck, Principal } from '../auth.ts';
import type { Clock, OAuthAppStore, OAuthRecordStore, SecretHasher } from '../ports.ts';

/** As an API key's last use: written at most once a minute, so a read stays a read. */
const LAST_USED_RESOLUTION_MS = 60_000;

export class BearerAuth {
  constructor(
    private readonly records: Pick<OAuthRecordStore, 'findBearer'>,
    private readonly apps: Pick<OAuthAppStore, 'touchConsent'>,
    private readonly hasher: SecretHasher,
    private readonly clock: Clock,
  ) {}

  /**
   * The token's principal; undefined when no live token has this value (the caller then tries it
   * as an API key, which a seed may have named anything). An expired token is refused as unknown.
   */
  async fromToken(token: string, check?: KeyCheck): Promise<Principal | undefined> {
    const found = await this.records.findBearer(this.hasher.hash(token));
    if (!found) return undefined;
    const now = this.clock.now();
    if (found.account.deletedAt !== null || now >= found.expiresAt) throw new DomainError('UNAUTHENTICATED');
    const limits = tokenLimits(found.scopes, found, found.expiresAt);
    const allowed = check === undefined || check(limits, 'access_token');
    if (allowed && (found.lastUsedAt === null || now - found.lastUsedAt >= LAST_USED_RESOLUTION_MS))
      await this.apps.touchConsent(found.grantId, now);
    const accountId = found.account.id;
    return {
      accountId,
      // What a stream acting for the token ends with: the consent's grant, withdrawn or replaced.
      keyId: found.grantId,
      actor: oauthAppActor(found.app.id, found.app.name, accountId),
      limits,
    };
  }
}
