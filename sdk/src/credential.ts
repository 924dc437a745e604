/**
 * What {@link LockcloudClient} sends as `Authorization` (internal: not exported from the package):
 * an API key, or an OAuth access token with, optionally, the app's way to get a new one. A request
 * refused with 401 is sent once more with a new token when there is a way to get one; concurrent
 * refusals of the same token share one refresh.
 */
import { LockcloudError } from './errors.js';

/**
 * Gets a new access token when the current one is refused (401): typically
 * {@link refreshToken} with the refresh token the app keeps, storing the new refresh token.
 *
 * @example
 * const refreshAccessToken: AccessTokenRefresher = async () => (await refreshToken({ baseUrl, clientId, refreshToken: stored })).access_token;
 */
export type AccessTokenRefresher = () => Promise<string>;

/**
 * The client's credential: its current value, and a refresh when it has one.
 *
 * @example
 * const credential = new Credential(token, async () => newToken);
 * await credential.send((authorization) => http.once({ method: 'GET', path: '/public/locks', headers: { authorization } }));
 */
export class Credential {
  #value: string;
  readonly #refresh: AccessTokenRefresher | undefined;
  #pending: Promise<string> | undefined;
  readonly #failures = new WeakSet<object>();

  constructor(value: string, refresh?: AccessTokenRefresher) {
    this.#value = value;
    this.#refresh = refresh;
  }

  /**
   * The value to send now.
   *
   * @example
   * const headers = { authorization: credential.value };
   */
  get value(): string {
    return this.#value;
  }

  /**
   * A new value after `stale` was refused: the one another call already got when the value has
   * changed since, else the refresher's (one call for every request refused meanwhile).
   * Undefined when there is no refresher.
   *
   * @example
   * const fresh = await credential.renewed(sent);
   */
  async renewed(stale: string): Promise<string | undefined> {
    if (this.#refresh === undefined) return undefined;
    if (this.#value !== stale) return this.#value;
    if (this.#pending === undefined) {
      const refresh = this.#refresh;
      this.#pending = (async () => {
        let value: string;
        try {
          value = await refresh();
          if (typeof value !== 'string' || value === '')
            throw new TypeError('refreshAccessToken must resolve to the new access token');
        } catch (error) {
          if (typeof error === 'object' && error !== null) this.#failures.add(error);
          throw error;
        }
        this.#value = value;
        return value;
      })().finally(() => {
        this.#pending = undefined;
      });
    }
    return this.#pending;
  }

  /**
   * Whether `error` is one the refresher threw (a stream then stops rather than connecting again).
   *
   * @example
   * if (credential.refreshFailed(error)) throw error;
   */
  refreshFailed(error: unknown): boolean {
    return typeof error === 'object' && error !== null && this.#failures.has(error);
  }

  /**
   * Runs `call` with the current value; when it is refused with 401 and a new value can be had,
   * once more with the new value.
   *
   * @example
   * const locks = await credential.send((authorization) => http.request({ method: 'GET', path: '/public/locks', headers: { authorization } }));
   */
  async send<T>(call: (value: string) => Promise<T>): Promise<T> {
    const sent = this.#value;
    try {
      return await call(sent);
    } catch (error) {
      if (!(error instanceof LockcloudError) || error.status !== 401) throw error;
      const fresh = await this.renewed(sent);
      if (fresh === undefined) throw error;
      return call(fresh);
    }
  }
}
