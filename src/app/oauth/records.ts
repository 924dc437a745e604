/**
 * What the authorization server (oidc-provider, src/http/oauth/) keeps: codes, tokens, grants,
 * sessions and interactions, through one use case so the rules hold whatever the protocol library
 * asks. The id of a code or a token is the secret itself, so a record is stored under the hash of
 * its id, and the id is never written (its payload's `jti` is dropped and given back on a read).
 * A record past its expiry by the injectable clock is gone, as if it had never been: a code or a
 * token that expired is refused as an unknown one, which is what RFC 6749 asks (invalid_grant).
 */
import type { Clock, OAuthRecordStore, SecretHasher } from '../ports.ts';

/** A record's payload as oidc-provider hands it over and takes it back. */
export type ProviderPayload = Record<string, unknown>;

const textOf = (value: unknown): string | null => (typeof value === 'string' ? value : null);

export class OAuthRecords {
  constructor(
    private readonly store: OAuthRecordStore,
    private readonly hasher: SecretHasher,
    private readonly clock: Clock,
  ) {}

  async upsert(model: string, id: string, payload: ProviderPayload, expiresInSeconds: number): Promise<void> {
    const { jti: _id, ...kept } = payload;
    await this.store.upsert(model, this.hasher.hash(id), {
      payload: JSON.stringify(kept),
      // A grant is revoked by its own id, with every code and token issued under it.
      grantId: model === 'Grant' ? id : textOf(payload.grantId),
      uid: textOf(payload.uid),
      accountId: textOf(payload.accountId),
      clientId: textOf(payload.clientId),
      scope: textOf(payload.scope),
      expiresAt: this.clock.now() + expiresInSeconds * 1000,
      consumedAt: null,
    });
  }

  async find(model: string, id: string): Promise<ProviderPayload | undefined> {
    const record = await this.store.find(model, this.hasher.hash(id));
    if (!record || record.expiresAt <= this.clock.now()) return undefined;
    return this.payloadOf(record.payload, record.consumedAt, id);
  }

  /** A session by its uid (not a secret); its id is not known, and no caller of this needs it. */
  async findByUid(model: string, uid: string): Promise<ProviderPayload | undefined> {
    const found = await this.store.findByUid(model, uid);
    if (!found || found.record.expiresAt <= this.clock.now()) return undefined;
    return this.payloadOf(found.record.payload, found.record.consumedAt, undefined);
  }

  consume(model: string, id: string): Promise<void> {
    return this.store.consume(model, this.hasher.hash(id), this.clock.now());
  }

  destroy(model: string, id: string): Promise<void> {
    return this.store.destroy(model, this.hasher.hash(id));
  }

  /** The grant's records of one model (oidc-provider's revocation, model by model). */
  revokeGrant(grantId: string, model: string): Promise<void> {
    return this.store.revokeGrant(grantId, model);
  }

  /** Forgets every record past its expiry (HourlyPurges). */
  purge(now: number): Promise<number> {
    return this.store.purgeExpired(now);
  }

  private payloadOf(json: string, consumedAt: number | null, id: string | undefined): ProviderPayload {
    const payload = JSON.parse(json) as ProviderPayload;
    if (id !== undefined) payload.jti = id;
    // oidc-provider reads `consumed` as "used once already" (a code, a rotated refresh token).
    if (consumedAt !== null) payload.consumed = Math.floor(consumedAt / 1000);
    return payload;
  }
}
