/**
 * What every command of `lockcloud locks` runs with: the client built from --url / --key (or the
 * environment), and `call`, which runs one request under the request timeout.
 */
import type { Command as Program } from 'commander';
import {
  ConnectionError,
  DeviceBusyError,
  LockcloudClient,
  RequestTimeoutError,
  type RetryInfo,
} from '../../../sdk/src/index.ts';
import { Unreachable, UsageError } from './exit-codes.ts';
import { note } from './output.ts';

export const DEFAULT_URL = 'http://127.0.0.1:8080';

interface GlobalOptions {
  url?: string;
  key?: string;
  json?: boolean;
  retry?: boolean;
  requestTimeout: number;
}

export interface Context {
  readonly client: LockcloudClient;
  /** --retry: the SDK tries refused requests again (and commands carry an Idempotency-Key). */
  readonly retry: boolean;
  readonly url: string;
  readonly json: boolean;
  readonly requestTimeoutMs: number;
}

export function context(cmd: Program, options: { alwaysRetry?: boolean } = {}): Context {
  const opts = cmd.optsWithGlobals<GlobalOptions>();
  const url = opts.url ?? nonEmpty(process.env.LOCKCLOUD_URL) ?? DEFAULT_URL;
  const key = opts.key ?? nonEmpty(process.env.LOCKCLOUD_API_KEY);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UsageError(`"${url}" is not a URL (pass --url or set LOCKCLOUD_URL)`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw new UsageError(`"${url}" is not an http(s) URL`);
  if (key === undefined || key === '')
    throw new UsageError('no API key: pass --key KEY or set LOCKCLOUD_API_KEY');
  const retry =
    opts.retry === true || options.alwaysRetry === true
      ? { maxTotalWaitMs: RETRY_WITHIN_MS, onRetry: retryNotes() }
      : false;
  return {
    // The SDK's own timeout too: it bounds each poll of waitForTask, which runs outside `call`.
    client: new LockcloudClient({ baseUrl: url, apiKey: key, retry, timeoutMs: opts.requestTimeout * 1000 }),
    retry: retry !== false,
    url: url.replace(/\/+$/, ''),
    json: opts.json === true,
    requestTimeoutMs: opts.requestTimeout * 1000,
  };
}

/** How long --retry may wait in all (README.md, "Command-line client"). */
export const RETRY_WITHIN_MS = 30_000;

/**
 * One note per wait the user would notice: a busy lock is tried again every moment until it is free
 * (the SDK's retry), which is said once, not at every try.
 */
function retryNotes(): (info: RetryInfo) => void {
  let busyNoted = false;
  return (info) => {
    if (info.error instanceof ConnectionError) {
      note(`no answer (${info.error.message}): sending again with the same Idempotency-Key`);
      return;
    }
    if (info.error instanceof DeviceBusyError) {
      if (busyNoted) return;
      busyNoted = true;
      const n = info.error.waitSeconds ?? 0;
      const most = Math.min(n, RETRY_WITHIN_MS / 1000);
      note(`DEVICE_IS_BUSY ${n}: trying again as soon as the lock is free (for up to ${most} s)`);
      return;
    }
    busyNoted = false;
    note(`${String(info.error.code)}: trying again in ${Math.ceil(info.waitMs / 1000)} s`);
  };
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}

/** Runs one request with the request timeout; a network failure or timeout becomes Unreachable. */
export async function call<T>(
  ctx: Context,
  work: (signal: AbortSignal) => Promise<T>,
  signal?: AbortSignal,
): Promise<T> {
  const timeout = AbortSignal.timeout(ctx.requestTimeoutMs);
  const combined = signal === undefined ? timeout : AbortSignal.any([signal, timeout]);
  try {
    return await work(combined);
  } catch (error) {
    throw networkError(ctx, error, timeout.aborted);
  }
}

export function networkError(ctx: Context, error: unknown, timedOut: boolean): unknown {
  if (timedOut || error instanceof RequestTimeoutError)
    return new Unreachable(`no answer from ${ctx.url} within ${ctx.requestTimeoutMs / 1000} s`);
  if (error instanceof ConnectionError)
    return new Unreachable(`cannot reach ${ctx.url}: ${error.code ?? error.message}`);
  return error;
}
