/**
 * The account's API keys (`/ext/keys`, docs/security.md), reached through
 * {@link LockcloudClient.keys}, for a key with the `keys:manage` scope: list them, make one limited
 * to scopes, locks and an expiry within the calling key's own (its secret answered once), delete
 * one. Errors are the v3 classes, their message the server's: `BadParamsError` (a bad field, named;
 * a lock the account does not own), `AccessDeniedError` (a missing scope, or limits beyond the
 * calling key; no `retryAfterSeconds`), `NotFoundError` (no such key), `UnauthorizedError`,
 * `ThrottledError`.
 *
 * @example
 * const { key } = await client.keys.create({ scopes: ['locks:read'], expires_at: '2027-01-01T00:00:00Z' });
 */
import type { Credential } from './credential.js';
import { type CallOptions, type Http, type KeyedSend, keyedSend, segment } from './http.js';
import type { ApiKeyInput, ApiKeyList, CreatedApiKey } from './types-keys.js';

/**
 * The account's API keys, as {@link LockcloudClient.keys}.
 *
 * @example
 * const unused = (await client.keys.list()).keys.filter((k) => k.last_used_at === null);
 */
export class KeysApi {
  readonly #send: KeyedSend;

  /** Made by {@link LockcloudClient}; not exported as a value. */
  constructor(http: Http, credential: Credential) {
    this.#send = keyedSend(http, credential, '/ext/keys');
  }

  /**
   * `GET /ext/keys`: the account's keys, oldest first, with their limits and last use.
   *
   * @example
   * for (const k of (await client.keys.list()).keys) console.log(k.prefix, k.last_used_ip);
   */
  list(options?: CallOptions): Promise<ApiKeyList> {
    return this.#send('GET', '', options);
  }

  /**
   * `POST /ext/keys`: a new key; `key` (the secret) is in this answer only.
   *
   * @example
   * const { key } = await client.keys.create({ name: 'door bot', scopes: ['locks:operate'], lock_ids: [deviceId] });
   */
  create(input: ApiKeyInput, options?: CallOptions): Promise<CreatedApiKey> {
    return this.#send('POST', '', options, input);
  }

  /**
   * `DELETE /ext/keys/{id}`: the key is refused (401) from now on.
   *
   * @example
   * await client.keys.delete(id);
   */
  async delete(id: string, options?: CallOptions): Promise<void> {
    await this.#send('DELETE', `/${segment(id)}`, options);
  }
}
