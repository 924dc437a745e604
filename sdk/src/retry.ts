/**
 * Opt-in automatic retry of refused requests that say how long to wait: v3 `DEVICE_IS_BUSY n` and
 * `THROTTLED` (Retry-After), v1 `42900` and `50001` (Retry-After). Nothing else is retried: not a
 * plain `DEVICE_IS_BUSY` (the app holds the lock, no end is known), not `ACCESS_DENY` (a 30-minute
 * block), not a network error. Every retried request was refused before anything happened, so a
 * retried command cannot run twice. The one exception: a request sent with an `Idempotency-Key`
 * whose answer was lost (a {@link ConnectionError}, a timeout) is sent again with the same key, for
 * the server answers a repeated key with the first request's result and never acts twice.
 *
 * A busy lock's wait is a maximum, not a time to wait: `n` counts down to the running command's
 * deadline, and most commands end long before it. So a busy refusal is tried again soon, then less
 * often, until the lock takes the command or `n` seconds have passed; a throttled request waits the
 * time the server gave, which is exact.
 */
import {
  ConnectionError,
  DeviceBusyError,
  LockBusyError,
  type LockcloudError,
  ThrottledError,
  TooManyRequestsError,
} from './errors.js';

/**
 * How the client retries; `retry: true` takes the defaults.
 *
 * @example
 * const client = new LockcloudClient({ baseUrl, apiKey, retry: { maxAttempts: 5, maxTotalWaitMs: 20_000 } });
 */
export interface RetryOptions {
  /**
   * Attempts in all, the first included (default 3). The tries while one lock stays busy, up to its
   * `DEVICE_IS_BUSY n`, count as one.
   */
  readonly maxAttempts?: number;
  /** The most the retries of one call may wait in all; a wait that would pass it is not made (default 30 000). */
  readonly maxTotalWaitMs?: number;
  /** Called before each wait, e.g. to show progress. */
  readonly onRetry?: (info: RetryInfo) => void;
}

/**
 * What {@link RetryOptions.onRetry} is told.
 *
 * @example
 * const onRetry = ({ attempt, waitMs, error }: RetryInfo) => console.error(`${error.code}: retry ${attempt} in ${waitMs} ms`);
 */
export interface RetryInfo {
  /** The request about to be made after the wait (2 for the first retry). */
  readonly attempt: number;
  readonly waitMs: number;
  /** The refusal; a {@link ConnectionError} only for a request with an `Idempotency-Key` whose answer was lost. */
  readonly error: LockcloudError | ConnectionError;
}

/**
 * The defaults `retry: true` stands for.
 *
 * @example
 * DEFAULT_RETRY.maxAttempts; // 3
 */
export const DEFAULT_RETRY = { maxAttempts: 3, maxTotalWaitMs: 30_000 } as const;

/**
 * While a lock is busy, the first try comes this long after the busy answer, each next one twice as
 * long after, at most {@link BUSY_MAX_INTERVAL_MS} apart. Over a default 15 s busy spell that is 9
 * requests, within the lock's command budget (10 at once, then one a second) and the command
 * endpoint's limits.
 *
 * @example
 * BUSY_FIRST_INTERVAL_MS; // 250
 */
export const BUSY_FIRST_INTERVAL_MS = 250;

/**
 * The longest interval between two tries while a lock is busy.
 *
 * @example
 * BUSY_MAX_INTERVAL_MS; // 2000
 */
export const BUSY_MAX_INTERVAL_MS = 2000;

/**
 * How long after a lost answer a request with an `Idempotency-Key` is sent again.
 *
 * @example
 * LOST_ANSWER_WAIT_MS; // 500
 */
export const LOST_ANSWER_WAIT_MS = 500;

/**
 * The longest a busy lock may stay busy, in ms, when the error says (`DEVICE_IS_BUSY n`, a busy v1
 * `50001` with Retry-After); undefined for any other error.
 *
 * @example
 * busyForAtMostMs(new DeviceBusyError({ status: 400, body: { error: 'DEVICE_IS_BUSY 2' } }, 2)); // 2000
 */
export function busyForAtMostMs(error: unknown): number | undefined {
  if (error instanceof DeviceBusyError) return seconds(error.waitSeconds);
  if (error instanceof LockBusyError) return seconds(error.retryAfterSeconds);
  return undefined;
}

/**
 * How long to wait before retrying a throttled request, in ms, as the server asked; undefined when
 * the error is not a throttling one.
 *
 * @example
 * throttledForMs(new ThrottledError({ status: 429, body: { error: 'THROTTLED' }, retryAfterSeconds: 2 })); // 2000
 */
export function throttledForMs(error: unknown): number | undefined {
  if (error instanceof ThrottledError) return seconds(error.retryAfterSeconds ?? 1);
  if (error instanceof TooManyRequestsError) return seconds(error.retryAfterSeconds);
  return undefined;
}

function seconds(s: number | undefined): number | undefined {
  return s === undefined ? undefined : Math.max(0, s) * 1000;
}

/**
 * Waits `ms`, or rejects with the signal's reason when it aborts first.
 *
 * @example
 * await sleep(100, AbortSignal.timeout(1000));
 */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** A lock found busy: tried again until `endsAt` (ms of waiting, counted from the call's start). */
interface BusySpell {
  endsAt: number;
  nextMs: number;
}

/**
 * Runs `attempt`, and again while the error is retryable and the attempts and the total wait stay
 * within bounds: a busy lock soon and then less often, up to the longest it may stay busy; a
 * throttled request after the wait the server asked for; with `resendLost`, a request whose answer
 * was lost after {@link LOST_ANSWER_WAIT_MS}. Then the last error is thrown as it came.
 * `options` undefined or false: one attempt.
 *
 * @example
 * const locks = await withRetry(() => client.listLocks(), { maxAttempts: 2 });
 */
export async function withRetry<T>(
  attempt: () => Promise<T>,
  options: RetryOptions | boolean | undefined,
  signal?: AbortSignal,
  resendLost = false,
): Promise<T> {
  if (options === undefined || options === false) return attempt();
  const settings = options === true ? {} : options;
  const maxAttempts = settings.maxAttempts ?? DEFAULT_RETRY.maxAttempts;
  const maxTotalWaitMs = settings.maxTotalWaitMs ?? DEFAULT_RETRY.maxTotalWaitMs;
  let waited = 0;
  let attempts = 1;
  let busy: BusySpell | undefined;
  for (let request = 1; ; request++) {
    try {
      return await attempt();
    } catch (error) {
      let waitMs: number | undefined;
      const busyMs = busyForAtMostMs(error);
      if (busyMs !== undefined) {
        if (busy === undefined || waited >= busy.endsAt) {
          // A new spell (or the lock busy again past the last one's end): one attempt of the budget.
          if (attempts >= maxAttempts) throw error;
          attempts++;
          busy = { endsAt: waited + busyMs, nextMs: BUSY_FIRST_INTERVAL_MS };
        }
        waitMs = Math.min(busy.nextMs, busy.endsAt - waited, maxTotalWaitMs - waited);
        if (waitMs <= 0) throw error;
        busy.nextMs = Math.min(busy.nextMs * 2, BUSY_MAX_INTERVAL_MS);
      } else {
        // The caller's own abort is not a lost answer: it is thrown as it came.
        const lost = resendLost && error instanceof ConnectionError && !signal?.aborted;
        waitMs = lost ? LOST_ANSWER_WAIT_MS : throttledForMs(error);
        if (waitMs === undefined || attempts >= maxAttempts || waited + waitMs > maxTotalWaitMs) throw error;
        attempts++;
      }
      settings.onRetry?.({ attempt: request + 1, waitMs, error: error as LockcloudError | ConnectionError });
      await sleep(waitMs, signal);
      waited += waitMs;
    }
  }
}
