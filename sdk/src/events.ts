/**
 * The event log (`GET /ext/events`, docs/events.md), reached through {@link LockcloudClient.events}
 * with the client's API key.
 */
import type { Credential } from './credential.js';
import { type EventStreamOptions, eventStream } from './event-stream.js';
import type { CallOptions, Http } from './http.js';
import type { EventPage, LockcloudEvent } from './types-ext.js';

/**
 * The filters of {@link EventsApi.page} and {@link EventsApi.list}.
 *
 * @example
 * const options: EventsOptions = { deviceId: lockId, type: 'lock.', order: 'newest-first', limit: 50 };
 */
export interface EventsOptions extends CallOptions {
  readonly deviceId?: string | undefined;
  /** A type or its start: `lock.` is every lock event. */
  readonly type?: string | undefined;
  /** Only events after (before) this event id. */
  readonly after?: string | undefined;
  readonly before?: string | undefined;
  /** 1 to 500; the server's default is 50. */
  readonly limit?: number | undefined;
  readonly order?: 'oldest-first' | 'newest-first' | undefined;
  /** A page's `next_cursor`: the page after it. */
  readonly cursor?: string | undefined;
}

/**
 * The account's event log. Errors are the v3 classes: `BadParamsError` (a bad filter, named),
 * `UnauthorizedError`, `ThrottledError`.
 *
 * @example
 * for await (const e of client.events.list({ deviceId: lockId, type: 'lock.' })) console.log(e.type, e.actor);
 */
export class EventsApi {
  readonly #http: Http;
  readonly #credential: Credential;

  /** Made by {@link LockcloudClient}; not exported as a value. */
  constructor(http: Http, credential: Credential) {
    this.#http = http;
    this.#credential = credential;
  }

  /**
   * `GET /ext/events`: one page.
   *
   * @example
   * const latest = await client.events.page({ deviceId: lockId, order: 'newest-first', limit: 10 });
   */
  page(options?: EventsOptions): Promise<EventPage> {
    const params = new URLSearchParams();
    const set = (name: string, value: string | number | undefined) => {
      if (value !== undefined) params.set(name, String(value));
    };
    set('device_id', options?.deviceId);
    set('type', options?.type);
    set('after', options?.after);
    set('before', options?.before);
    set('limit', options?.limit);
    set('order', options?.order);
    set('cursor', options?.cursor);
    const query = params.toString();
    return this.#credential.send((authorization) =>
      this.#http.request<EventPage>({
        method: 'GET',
        path: `/ext/events${query === '' ? '' : `?${query}`}`,
        headers: { authorization },
        signal: options?.signal,
      }),
    );
  }

  /**
   * Every event the filters match, page after page (by `next_cursor`), until the last page there is now.
   *
   * @example
   * const failures = [];
   * for await (const e of client.events.list({ type: 'command.failed' })) failures.push(e);
   */
  async *list(options?: EventsOptions): AsyncGenerator<LockcloudEvent, void, undefined> {
    let cursor = options?.cursor;
    for (;;) {
      const page = await this.page({ ...options, cursor });
      yield* page.events;
      if (page.next_cursor === null) return;
      cursor = page.next_cursor;
    }
  }

  /**
   * `GET /ext/events/stream`: the events as they happen, for ever. It connects again by itself after
   * a dropped connection or the server's close for a reason, sending `Last-Event-ID` of the last
   * event it yielded (so none is missed or repeated), with waits that double and jitter. It throws
   * on a refusal (`BadParamsError`, `UnauthorizedError`, also when the key is deleted while it
   * streams) and ends without an error on `break`, `return()` or the signal.
   *
   * @example
   * for await (const e of client.events.stream({ deviceId: lockId, type: 'lock.' })) {
   *   console.log(e.type, e.method);
   *   if (e.type === 'lock.unlocked') break; // ends the connection
   * }
   */
  stream(options?: EventStreamOptions): AsyncGenerator<LockcloudEvent, void, undefined> {
    return eventStream(this.#http, this.#credential, options);
  }
}
