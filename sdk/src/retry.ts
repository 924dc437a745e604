/**
 * Opt-in automatic retry of refused requests that say how long to wait: v3 `DEVICE_IS_BUSY n` and
 * `THROTTLED` (Retry-After), v1 `42900` and `50001` (Retry-After). Nothing else is retried: not a
 * plain `DEVICE_IS_BUSY` (the app holds the lock, no end is known), not `ACCESS_DENY` (a 30-minute
 * block), not a network error. Every retried request was refused before anything happened, so a
 * retried command cannot run twice.
 */
import {
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
  /** Attempts in all, the first included (default 3). */
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
  /** The attempt about to be made after the wait (2 for the first retry). */
  readonly attempt: number;
  readonly waitMs: number;
  readonly error: LockcloudError;
}

/**
 * The defaults `retry: true` stands for.
 *
 * @example
 * DEFAULT_RETRY.maxAttempts; // 3
 */
export const DEFAULT_RETRY = { maxAttempts: 3, maxTotalWaitMs: 30_000 } as const;

/**
 * How long to wait before retrying after `error`, in ms; undefined when it is not to be retried.
 *
 * @example
 * retryDelayMs(new DeviceBusyError({ status: 400, body: { error: 'DEVICE_IS_BUSY 2' } }, 2)); // 2000
 */
export function retryDelayMs(error: unknown): number | undefined {
  if (error instanceof DeviceBusyError) return seconds(error.waitSeconds);
  if (error instanceof ThrottledError) return seconds(error.retryAfterSeconds ?? 1);
  if (error instanceof TooManyRequestsError || error instanceof LockBusyError)
    return seconds(error.retryAfterSeconds);
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

/**
 * Runs `attempt`, and again after the wait the server asked for while the error is retryable, the
 * attempts last and the total wait stays within bounds; then the last error is thrown as it came.
 * `options` undefined or false: one attempt.
 *
 * @example
 * const locks = await withRetry(() => client.listLocks(), { maxAttempts: 2 });
 */
export async function withRetry<T>(
  attempt: () => Promise<T>,
  options: RetryOptions | boolean | undefined,
  signal?: AbortSignal,
): Promise<T> {
  if (options === undefined || options === false) return attempt();
  const settings = options === true ? {} : options;
  const maxAttempts = settings.maxAttempts ?? DEFAULT_RETRY.maxAttempts;
  const maxTotalWaitMs = settings.maxTotalWaitMs ?? DEFAULT_RETRY.maxTotalWaitMs;
  let waited = 0;
  for (let n = 1; ; n++) {
    try {
      return await attempt();
    } catch (error) {
      const waitMs = retryDelayMs(error);
      if (waitMs === undefined || n >= maxAttempts || waited + waitMs > maxTotalWaitMs) throw error;
      settings.onRetry?.({ attempt: n + 1, waitMs, error: error as LockcloudError });
      await sleep(waitMs, signal);
      waited += waitMs;
    }
  }
}
