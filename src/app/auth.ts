import { keyFromAuthorizationHeader } from '../domain/api-key.ts';
import { DomainError } from '../domain/errors.ts';
import type { Actor } from '../domain/event.ts';
import type { ApiKeyStore, Clock, SecretHasher } from './ports.ts';

/** Writing last-used on every request would turn every read into a write; once a minute is enough to show it. */
const LAST_USED_RESOLUTION_MS = 60_000;

export interface Principal {
  readonly accountId: string;
  readonly keyId: string;
  /** Who the event log says acted: the key (its display prefix) or the v1 token. */
  readonly actor: Actor;
}

export class ApiKeyAuth {
  constructor(
    private readonly keys: ApiKeyStore,
    private readonly hasher: SecretHasher,
    private readonly clock: Clock,
  ) {}

  /** Accepts the raw Authorization header value (bare key or `Bearer <key>`). */
  fromHeader(header: string | undefined): Promise<Principal> {
    return this.fromKey(keyFromAuthorizationHeader(header));
  }

  async fromKey(key: string | undefined): Promise<Principal> {
    if (key === undefined || key === '') throw new DomainError('UNAUTHENTICATED');
    const found = await this.keys.findByHash(this.hasher.hash(key));
    if (!found || found.account.deletedAt !== null) throw new DomainError('UNAUTHENTICATED');
    const now = this.clock.now();
    if (found.key.lastUsedAt === null || now - found.key.lastUsedAt >= LAST_USED_RESOLUTION_MS) {
      await this.keys.touch(found.key.id, now);
    }
    const actor: Actor = { kind: 'api_key', accountId: found.account.id, keyPrefix: found.key.prefix };
    return { accountId: found.account.id, keyId: found.key.id, actor };
  }
}
