import { keyFromAuthorizationHeader } from '../domain/api-key.ts';
import { DomainError } from '../domain/errors.ts';
import type { Actor } from '../domain/event.ts';
import { ACCESS_TOKEN_PREFIX } from '../domain/oauth-app.ts';
import { isUnlimited, type KeyLimits } from '../domain/scope.ts';
import type { BearerAuth } from './oauth/bearer.ts';
import type { ApiKeyStore, Clock, SecretHasher } from './ports.ts';

/** Writing last-used on every request would turn every read into a write; once a minute is enough to show it. */
const LAST_USED_RESOLUTION_MS = 60_000;
/**
 * A new client address is shown at once, but written at most once a second: a key used from two
 * addresses in turn would otherwise write on every request.
 */
const NEW_ADDRESS_RESOLUTION_MS = 1_000;

export interface Principal {
  readonly accountId: string;
  readonly keyId: string;
  /** Who the event log says acted: the key (its display prefix) or the v1 token. */
  readonly actor: Actor;
  /**
   * What the key may do (domain/scope.ts), checked per route by the surface (src/http/key-check.ts).
   * A v1 token is a login, not a key: FULL_ACCESS, as its account can.
   */
  readonly limits: KeyLimits;
}

/** Which kind of credential was presented: a refusal names it. */
export type CredentialKind = 'api_key' | 'access_token';

/**
 * The surface's check of a key's limits against the request (src/http/key-check.ts): throws the
 * surface's refusal, or answers false when the caller answers the refusal itself; either way the
 * use is not recorded.
 */
export type KeyCheck = (limits: KeyLimits, credential: CredentialKind) => boolean;

export class ApiKeyAuth {
  constructor(
    private readonly keys: ApiKeyStore,
    private readonly hasher: SecretHasher,
    private readonly clock: Clock,
    /** OAuth access tokens (issue 24), accepted wherever a key is; none: keys only. */
    private readonly bearer?: BearerAuth,
  ) {}

  /** The time a key's expiry is held against (the injectable clock, which the sandbox moves). */
  now(): number {
    return this.clock.now();
  }

  /**
   * Accepts the raw Authorization header value (bare key or `Bearer <key>`, and the same for an
   * OAuth access token); `ip` is the client's.
   */
  fromHeader(header: string | undefined, ip?: string, check?: KeyCheck): Promise<Principal> {
    return this.fromKey(keyFromAuthorizationHeader(header), ip, check);
  }

  /**
   * The key's principal. An expired key is refused as an unknown one is (401): its holder has no
   * more use of it than of a deleted one, and telling "expired" apart would confirm a guessed key.
   * `check` holds the key's limits against the request before its use is recorded, so a refused
   * request writes nothing, not even the last use.
   */
  async fromKey(key: string | undefined, ip?: string, check?: KeyCheck): Promise<Principal> {
    if (key === undefined || key === '') throw new DomainError('UNAUTHENTICATED');
    // An access token says so by its prefix; one not found is still tried as a key, which a seed
    // may have named anything.
    if (this.bearer !== undefined && key.startsWith(ACCESS_TOKEN_PREFIX)) {
      const principal = await this.bearer.fromToken(key, check);
      if (principal !== undefined) return principal;
    }
    const found = await this.keys.findByHash(this.hasher.hash(key));
    if (!found || found.account.deletedAt !== null) throw new DomainError('UNAUTHENTICATED');
    const now = this.clock.now();
    const limits = found.key.limits;
    if (limits.expiresAt !== null && now >= limits.expiresAt) throw new DomainError('UNAUTHENTICATED');
    // A key without limits (every key made before them) skips the check: the hot path stays as it was.
    const allowed = check === undefined || isUnlimited(limits) || check(limits, 'api_key');
    // Once a minute, or from a new address within a second: the dashboard's "last client address"
    // is then never older than the last minute's use, and a key seen from a new place shows it at
    // once.
    const last = found.key.lastUsedAt;
    if (
      allowed &&
      (last === null ||
        now - last >= LAST_USED_RESOLUTION_MS ||
        (ip !== undefined && ip !== found.key.lastUsedIp && now - last >= NEW_ADDRESS_RESOLUTION_MS))
    ) {
      await this.keys.touch(found.key.id, now, ip);
    }
    const actor: Actor = { kind: 'api_key', accountId: found.account.id, keyPrefix: found.key.prefix };
    return { accountId: found.account.id, keyId: found.key.id, actor, limits };
  }
}
