/**
 * The account's locks with their health (`/ext/locks`, docs/locks.md), reached through
 * {@link LockcloudClient.locks}: the v3 status plus jammed, door, last seen, firmware and the battery
 * state, and for the owner the settings (auto-lock, battery thresholds) and the access point.
 * Errors are the v3 classes, their message the server's: `BadParamsError` (a bad setting, named; a
 * guest changing settings; auto-lock on a lock whose access point speaks device protocol 1),
 * `NotFoundError` (a lock the account neither owns nor has shared with it), `UnauthorizedError`,
 * `ThrottledError`.
 *
 * @example
 * const { locks } = await client.locks.list();
 */
import type { Credential } from './credential.js';
import {
  type CallOptions,
  type CommandOptions,
  type Http,
  type KeyedSend,
  keyedSend,
  segment,
} from './http.js';
import type { ExtTask, LockHealth, LockHealthList, LockSettings } from './types-locks.js';

/**
 * The account's locks and their health, as {@link LockcloudClient.locks}.
 *
 * @example
 * const jammed = (await client.locks.list()).locks.filter((lock) => lock.jammed);
 */
export class LocksApi {
  readonly #send: KeyedSend;
  readonly #tasks: KeyedSend;

  /** Made by {@link LockcloudClient}; not exported as a value. */
  constructor(http: Http, credential: Credential) {
    this.#send = keyedSend(http, credential, '/ext/locks');
    this.#tasks = keyedSend(http, credential, '/ext/tasks');
  }

  /**
   * `POST /ext/locks/{device_id}/commands`: the owner, or a guest with an operate grant within its
   * window and schedule (`AccessDeniedError` outside them, saying why); resolves to the task at once.
   * With `idempotencyKey`, the same key and command within 24 h resolve to the first one's task.
   *
   * @example
   * const { task_id } = await client.locks.command(deviceId, 'unlock');
   */
  command(deviceId: string, command: 'lock' | 'unlock' | 'sync', options?: CommandOptions): Promise<ExtTask> {
    return this.#send('POST', `/${segment(deviceId)}/commands`, options, { command });
  }

  /**
   * `GET /ext/tasks/{task_id}`: a task, for the account that sent it and the lock's owner.
   *
   * @example
   * const { status, successful } = await client.locks.task(taskId);
   */
  task(taskId: string, options?: CallOptions): Promise<ExtTask> {
    return this.#tasks('GET', `/${segment(taskId)}`, options);
  }

  /**
   * `GET /ext/locks`: every lock the account owns and every lock shared with it (`role: 'guest'`),
   * in creation order.
   *
   * @example
   * for (const lock of (await client.locks.list()).locks) console.log(lock.nickname, lock.battery_state);
   */
  list(options?: CallOptions): Promise<LockHealthList> {
    return this.#send('GET', '', options);
  }

  /**
   * `GET /ext/locks/{device_id}`: one lock; `NotFoundError` for one the account cannot see.
   *
   * @example
   * const { jammed, door, last_seen_at, access_point } = await client.locks.get(deviceId);
   */
  get(deviceId: string, options?: CallOptions): Promise<LockHealth> {
    return this.#send('GET', `/${segment(deviceId)}`, options);
  }

  /**
   * `PATCH /ext/locks/{device_id}`: the owner changes the settings given; resolves to the lock as
   * `get` answers it afterwards. A refused change changes nothing.
   *
   * @example
   * await client.locks.update(deviceId, { auto_lock_seconds: 30, battery_low: 25 });
   */
  update(deviceId: string, settings: LockSettings, options?: CallOptions): Promise<LockHealth> {
    return this.#send('PATCH', `/${segment(deviceId)}`, options, settings);
  }
}
