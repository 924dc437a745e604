/**
 * The types of `/ext/keys` (docs/security.md, "Scoped, expiring API keys"): an API key as listed,
 * and what a new one may be limited to. Checked against `/openapi.json` by `test/sdk/drift.test.ts`.
 */

/**
 * What a key may do; `locks:operate` implies `locks:read`.
 *
 * @example
 * const scopes: ApiKeyScope[] = ['locks:read', 'events:read'];
 */
export type ApiKeyScope = 'locks:read' | 'locks:operate' | 'events:read' | 'webhooks:manage' | 'keys:manage';

/**
 * A new key's name and limits; each left out or null is no limit of that kind, and each must be
 * within the calling key's own.
 *
 * @example
 * const input: ApiKeyInput = { name: 'door bot', scopes: ['locks:operate'], lock_ids: [deviceId] };
 */
export interface ApiKeyInput {
  name?: string | null;
  scopes?: ApiKeyScope[] | null;
  /** Device ids of locks the account owns. */
  lock_ids?: string[] | null;
  /** RFC 3339 with an offset, in the future. */
  expires_at?: string | null;
}

/**
 * An API key of the account, as listed: never its secret (only {@link CreatedApiKey} has it).
 *
 * @example
 * const stale = (k: ApiKey) => k.last_used_at === null;
 */
export interface ApiKey {
  id: string;
  name: string | null;
  /** The first characters of the key, to tell keys apart. */
  prefix: string;
  /** null: every scope. */
  scopes: string[] | null;
  /** null: every lock of the account. */
  lock_ids: string[] | null;
  expires_at: string | null;
  created_at: string;
  last_used_at: string | null;
  /** The client address of the last use (written at most once a minute, and when it changes). */
  last_used_ip: string | null;
}

/**
 * The answer of `create`: the key, and the secret itself, shown this once.
 *
 * @example
 * const { key } = await client.keys.create({ scopes: ['events:read'] });
 */
export interface CreatedApiKey extends ApiKey {
  key: string;
}

/**
 * The answer of `GET /ext/keys`, oldest first.
 *
 * @example
 * const { keys } = await client.keys.list();
 */
export interface ApiKeyList {
  keys: ApiKey[];
}
