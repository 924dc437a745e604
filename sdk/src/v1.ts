/**
 * The legacy v1 client (`/v1`, login token in `X-Authorization`; control is synchronous).
 */
import { v1ErrorFrom } from './errors.js';
import { type CallOptions, type ClientOptions, Http, segment } from './http.js';
import type { V1ControlType, V1Lock, V1LockList, V1LockStatus, V1LoginResponse } from './types.js';

/**
 * The options of {@link LockcloudV1Client}.
 *
 * @example
 * const v1 = new LockcloudV1Client({ baseUrl: 'http://127.0.0.1:8080', token: savedToken });
 */
export interface LockcloudV1ClientOptions extends ClientOptions {
  /** The login token, sent as `X-Authorization`. */
  readonly token: string;
}

/**
 * A client of the v1 API. Errors are the v1 classes of errors.ts (`code` the integer code); with
 * `retry` on, `42900` and a `50001` that carries Retry-After are retried after it.
 *
 * @example
 * const v1 = await LockcloudV1Client.login('http://127.0.0.1:8080', 'ann@example.com', 'P');
 * const locks = await v1.listLocks();
 * await v1.control(locks[0].device_id, 'unlock'); // resolves once the lock confirmed
 */
export class LockcloudV1Client {
  readonly #http: Http;
  /** The login token (keep it to build a client later without logging in again; it lasts 30 days). */
  readonly token: string;

  constructor(options: LockcloudV1ClientOptions) {
    if (typeof options.token !== 'string' || options.token === '') throw new TypeError('token is required');
    this.#http = new Http(options, v1ErrorFrom);
    this.token = options.token;
  }

  /**
   * `POST /v1/accounts/login`, then a client with the token.
   *
   * @example
   * const v1 = await LockcloudV1Client.login(baseUrl, email, password, { retry: true });
   */
  static async login(
    baseUrl: string,
    email: string,
    password: string,
    options: Omit<ClientOptions, 'baseUrl'> & CallOptions = {},
  ): Promise<LockcloudV1Client> {
    const http = new Http({ ...options, baseUrl }, v1ErrorFrom);
    const { authorization } = await http.request<V1LoginResponse>({
      method: 'POST',
      path: '/v1/accounts/login',
      json: { email, password },
      signal: options.signal,
    });
    return new LockcloudV1Client({ ...options, baseUrl, token: authorization });
  }

  #get<T>(path: string, options: CallOptions | undefined): Promise<T> {
    return this.#http.request<T>({
      method: 'GET',
      path: `/v1${path}`,
      headers: { 'x-authorization': this.token },
      signal: options?.signal,
    });
  }

  /**
   * `GET /v1/locks`: the locks owned by and shared with the account (unwrapped from `{locks}`).
   *
   * @example
   * const unlocked = (await v1.listLocks()).filter((lock) => lock.is_unlocked);
   */
  async listLocks(options?: CallOptions): Promise<V1Lock[]> {
    return (await this.#get<V1LockList>('/locks', options)).locks;
  }

  /**
   * `GET /v1/locks/{lockId}`.
   *
   * @example
   * const { is_unlocked, battery } = await v1.getLock(lockId);
   */
  getLock(lockId: string, options?: CallOptions): Promise<V1LockStatus> {
    return this.#get(`/locks/${segment(lockId)}`, options);
  }

  /**
   * `POST /v1/locks/{lockId}/control`: resolves (204) once the lock has confirmed.
   *
   * @example
   * await v1.control(lockId, 'lock');
   */
  async control(lockId: string, type: V1ControlType, options?: CallOptions): Promise<void> {
    await this.#http.request<undefined>({
      method: 'POST',
      path: `/v1/locks/${segment(lockId)}/control`,
      headers: { 'x-authorization': this.token },
      json: { type },
      signal: options?.signal,
    });
  }
}
