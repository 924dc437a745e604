/**
 * `GET /ext/events/stream` (docs/events.md, "The live stream") as an async iterator that resumes by
 * itself: after a network failure, an answer that ended, or the server's `event: close` for a reason
 * (`too_slow`, `shutting_down`), it connects again with `Last-Event-ID` set to the last event it
 * yielded, so no event is missed or repeated. It stops on a refusal (a bad filter, a bad key), on
 * `break`/`return()`, or when the caller's AbortSignal fires.
 */
import type { Credential } from './credential.js';
import { ConnectionError, LockcloudError } from './errors.js';
import type { CallOptions, Http } from './http.js';
import { SseParser } from './sse.js';
import type { LockcloudEvent } from './types-ext.js';

/**
 * The options of {@link EventsApi.stream}.
 *
 * @example
 * const options: EventStreamOptions = { deviceId: lockId, type: 'lock.', signal: AbortSignal.timeout(60_000) };
 */
export interface EventStreamOptions extends CallOptions {
  readonly deviceId?: string | undefined;
  /** A type or its start: `lock.` is every lock event. */
  readonly type?: string | undefined;
  /** Resume after this event id (the last one you handled); without one, events from now on. */
  readonly lastEventId?: string | undefined;
  /**
   * The first wait before connecting again, doubled at each failure in a row up to
   * `maxReconnectMs`, with jitter; the server's `retry:` field replaces it. Default 1000 ms.
   */
  readonly reconnectMs?: number | undefined;
  /** Default 30 000 ms. */
  readonly maxReconnectMs?: number | undefined;
  /**
   * A connection silent for this long (the server sends a heartbeat every 15 s) is dropped and
   * made again. Default 45 000 ms.
   */
  readonly idleTimeoutMs?: number | undefined;
  /**
   * Called before each wait to connect again: why (the error; undefined when the server ended the
   * answer, or closed it for a reason) and how long.
   */
  readonly onReconnect?: ((info: { readonly error: unknown; readonly waitMs: number }) => void) | undefined;
}

/** Why the server closed the stream: a reason to resume, or the key's end (not resumed). */
interface CloseData {
  readonly reason?: unknown;
}

const DEFAULTS = { reconnectMs: 1000, maxReconnectMs: 30_000, idleTimeoutMs: 45_000 };

/** A wait for the signal's sake: resolves early (false) once it is aborted. */
function pause(ms: number, signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve(false);
    const done = (ok: boolean) => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      resolve(ok);
    };
    const onAbort = () => done(false);
    const timer = setTimeout(() => done(true), ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** Waits that double, each between half and all of its length so many clients do not come at once. */
function backoff(base: number, max: number, failures: number): number {
  const full = Math.min(max, base * 2 ** Math.min(failures, 20));
  return Math.round(full / 2 + (Math.random() * full) / 2);
}

/** Internal: the generator behind {@link EventsApi.stream}. */
export async function* eventStream(
  http: Http,
  credential: Credential,
  options: EventStreamOptions = {},
): AsyncGenerator<LockcloudEvent, void, undefined> {
  const params = new URLSearchParams();
  if (options.deviceId !== undefined) params.set('device_id', options.deviceId);
  if (options.type !== undefined) params.set('type', options.type);
  const path = `/ext/events/stream${params.size === 0 ? '' : `?${params}`}`;
  const maxWait = options.maxReconnectMs ?? DEFAULTS.maxReconnectMs;
  const idleMs = options.idleTimeoutMs ?? DEFAULTS.idleTimeoutMs;
  let base = options.reconnectMs ?? DEFAULTS.reconnectMs;
  let lastId = options.lastEventId;
  let failures = 0;
  // An access token refused in mid-stream is renewed once, then not again until an event came.
  let renewed = false;
  // Ours, so that `break` or `return()` ends the connection as well as the caller's signal does.
  const stop = new AbortController();
  const signal = options.signal === undefined ? stop.signal : AbortSignal.any([options.signal, stop.signal]);
  try {
    while (!signal.aborted) {
      // One connection: aborted by the caller, or by us when it has been silent too long.
      const conn = new AbortController();
      const connSignal = AbortSignal.any([signal, conn.signal]);
      let wait: number;
      let why: unknown;
      try {
        let sent = credential.value;
        const res = await credential.send((authorization) => {
          sent = authorization;
          return http.open({
            path,
            headers: {
              authorization,
              accept: 'text/event-stream',
              ...(lastId === undefined ? {} : { 'last-event-id': lastId }),
            },
            signal: connSignal,
          });
        });
        if (res.body === null)
          throw new ConnectionError('GET', http.baseUrl + path, 'an answer without a body');
        const parser = new SseParser();
        const decoder = new TextDecoder();
        let idle = setTimeout(() => conn.abort(), idleMs);
        try {
          for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
            clearTimeout(idle);
            idle = setTimeout(() => conn.abort(), idleMs);
            for (const message of parser.feed(decoder.decode(chunk, { stream: true }))) {
              if (message.retry !== undefined && options.reconnectMs === undefined) base = message.retry;
              if (message.event === 'lock_event') {
                const event = JSON.parse(message.data) as LockcloudEvent;
                lastId = message.id ?? event.id;
                failures = 0;
                renewed = false;
                yield event;
              } else if (message.event === 'close') {
                const reason = (JSON.parse(message.data) as CloseData).reason;
                // The key was deleted or the account ended: as a refused connection would be. An
                // access token that expired is renewed (when the client can) and the stream resumed.
                if (reason === 'unauthorized') {
                  const refused = http.errorFrom({ status: 401, body: { error: 'UNAUTHORIZED' } });
                  if (renewed || (await credential.renewed(sent)) === undefined) throw refused;
                  renewed = true;
                }
              }
            }
          }
        } finally {
          clearTimeout(idle);
          conn.abort();
        }
        // The answer ended (a close for a reason, or the server went away): resume at once-ish.
        wait = backoff(base, maxWait, failures);
      } catch (error) {
        if (signal.aborted) return;
        why = error;
        // A refusal ends the stream (a bad filter or id: BadParamsError; a bad key: UnauthorizedError),
        // unless it asks for a wait (429, 503); an event that is not JSON is the server's fault, said.
        // The app's refresher failed (its refresh token revoked, say): no reconnection will help.
        if (credential.refreshFailed(error)) throw error;
        if (error instanceof LockcloudError) {
          if (error.status !== 429 && error.status !== 503) throw error;
          wait = Math.max((error.retryAfterSeconds ?? 0) * 1000, backoff(base, maxWait, failures));
        } else if (error instanceof SyntaxError) throw error;
        // Anything else is the connection: refused, dropped mid-body, or silent too long.
        else wait = backoff(base, maxWait, failures);
      }
      failures++;
      options.onReconnect?.({ error: why, waitMs: wait });
      if (!(await pause(wait, signal))) return;
    }
  } finally {
    stop.abort();
  }
}
