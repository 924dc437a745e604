/**
 * `npm run locks -- <command>` / `lockcloud locks <command>`: the command-line client of the v3 API,
 * built on the SDK alone (it imports nothing of the server).
 *
 *   list | status ID | lock ID | unlock ID | sync ID | watch
 *
 * The base URL and the API key come from --url / --key, else LOCKCLOUD_URL / LOCKCLOUD_API_KEY
 * (default URL http://127.0.0.1:8080). --json prints machine-readable output on stdout.
 *
 * Exit codes: 0 done; 1 the command ran but failed (the task ended unsuccessful, or did not end in
 * --timeout); 2 a usage error; 3 authentication refused (401); 4 refused by the API before running
 * (BAD_PARAMS, CLOUD_INTEGRATION_NOT_ENABLED, LOW_BATTERY, DEVICE_IS_BUSY, THROTTLED, ACCESS_DENY, ...);
 * 5 the server is unreachable, did not answer in time, or answered 5xx.
 */
import { CommanderError, InvalidArgumentError, Option, Command as Program } from 'commander';
import {
  type Command,
  LockcloudClient,
  LockcloudError,
  type LockStatus,
  type RetryInfo,
  TaskFailedError,
  TaskTimeoutError,
  UnauthorizedError,
} from '../../sdk/src/index.ts';

const NAME = 'lockcloud locks';
const DEFAULT_URL = 'http://127.0.0.1:8080';

/** The exit codes, as documented in README.md "## Command-line client". */
export const EXIT = { ok: 0, failed: 1, usage: 2, auth: 3, refused: 4, unreachable: 5 } as const;

class UsageError extends Error {
  override name = 'UsageError';
}

/** The command ran and failed: the message is printed, the exit code is 1. */
class CommandFailed extends Error {
  override name = 'CommandFailed';
}

/** No answer from the server (network failure or request timeout). */
class Unreachable extends Error {
  override name = 'Unreachable';
}

interface GlobalOptions {
  url?: string;
  key?: string;
  json?: boolean;
  retry?: boolean;
  requestTimeout: number;
}

const out = (line: string): void => {
  process.stdout.write(`${line}\n`);
};
const note = (line: string): void => {
  process.stderr.write(`${NAME}: ${line}\n`);
};

function seconds(what: string, minimum: number) {
  return (value: string): number => {
    const n = Number(value);
    if (value.trim() === '' || !Number.isFinite(n) || n < minimum)
      throw new InvalidArgumentError(`${what} must be a number of seconds, at least ${minimum}.`);
    return n;
  };
}

function positiveInteger(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('must be a whole number, at least 1.');
  return n;
}

interface Context {
  readonly client: LockcloudClient;
  readonly url: string;
  readonly json: boolean;
  readonly requestTimeoutMs: number;
}

function context(cmd: Program, options: { alwaysRetry?: boolean } = {}): Context {
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
      ? {
          onRetry: (info: RetryInfo) =>
            note(`${String(info.error.code)}: trying again in ${Math.ceil(info.waitMs / 1000)} s`),
        }
      : false;
  return {
    client: new LockcloudClient({ baseUrl: url, apiKey: key, retry }),
    url: url.replace(/\/+$/, ''),
    json: opts.json === true,
    requestTimeoutMs: opts.requestTimeout * 1000,
  };
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}

/** Runs one request with the request timeout; a network failure or timeout becomes Unreachable. */
async function call<T>(
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

function networkError(ctx: Context, error: unknown, timedOut: boolean): unknown {
  if (timedOut) return new Unreachable(`no answer from ${ctx.url} within ${ctx.requestTimeoutMs / 1000} s`);
  if (error instanceof TypeError && error.message === 'fetch failed') {
    const cause = error.cause as { code?: string; message?: string } | undefined;
    return new Unreachable(`cannot reach ${ctx.url}: ${cause?.code ?? cause?.message ?? 'network error'}`);
  }
  return error;
}

// ---- output ----

function table(rows: readonly (readonly string[])[]): string {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((row) => row[i]?.length ?? 0))) ?? [];
  return rows
    .map((row) =>
      row
        .map((cell, i) => cell.padEnd(widths[i] ?? 0))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

const yesNo = (value: boolean): string => (value ? 'yes' : 'no');

/** `locked, battery 87%, responsive`: a status on one line. */
function stateText(status: LockStatus): string {
  return `${status.locked ? 'locked' : 'unlocked'}, battery ${status.battery}%, ${
    status.responsive ? 'responsive' : 'not responsive'
  }`;
}

// ---- a progress line while a task runs (only on a terminal) ----

const FRAMES = ['|', '/', '-', '\\'];

/** Shows `| unlock ID: waiting for the lock (1.2 s)` on stderr, redrawn in place; nothing off a TTY. */
function progress(label: string): { stop(): void } {
  if (process.stderr.isTTY !== true) return { stop() {} };
  const started = Date.now();
  let frame = 0;
  const draw = (): void => {
    const elapsed = ((Date.now() - started) / 1000).toFixed(1);
    process.stderr.write(`\r\x1b[K${FRAMES[frame++ % FRAMES.length]} ${label} (${elapsed} s)`);
  };
  draw();
  const timer = setInterval(draw, 100);
  return {
    stop() {
      clearInterval(timer);
      process.stderr.write('\r\x1b[K');
    },
  };
}

// ---- the commands ----

async function list(cmd: Program): Promise<void> {
  const ctx = context(cmd);
  const locks = await call(ctx, (signal) => ctx.client.listLocks({ signal }));
  if (ctx.json) out(JSON.stringify(locks, null, 2));
  else if (locks.length === 0) out('no locks');
  else
    out(
      table([['DEVICE_ID', 'NICKNAME', 'SERIAL'], ...locks.map((l) => [l.device_id, l.nickname, l.serial])]),
    );
}

async function status(id: string, cmd: Program): Promise<void> {
  const ctx = context(cmd);
  const s = await call(ctx, (signal) => ctx.client.getLock(id, { signal }));
  if (ctx.json) out(JSON.stringify({ device_id: id, ...s }, null, 2));
  else
    out(
      table([
        ['locked', yesNo(s.locked)],
        ['battery', `${s.battery}%`],
        ['responsive', yesNo(s.responsive)],
      ]),
    );
}

const DONE: Record<Command, string> = { lock: 'locked', unlock: 'unlocked', sync: 'synced' };

async function command(command: Command, id: string, opts: { timeout: number }, cmd: Program): Promise<void> {
  const ctx = context(cmd);
  const { task_id } = await call(ctx, (signal) => ctx.client.sendCommand(id, command, { signal }));
  const interrupt = new AbortController();
  const onSigint = (): void => interrupt.abort(new CommandFailed('interrupted'));
  process.once('SIGINT', onSigint);
  const shown = progress(`${command} ${id}: waiting for the lock`);
  const print = (result: { status: string; successful: boolean | null; error: string | null }): void => {
    if (ctx.json) out(JSON.stringify({ task_id, ...result }, null, 2));
  };
  try {
    await ctx.client.waitForTask(task_id, { timeoutMs: opts.timeout * 1000, signal: interrupt.signal });
    shown.stop();
    print({ status: 'terminated', successful: true, error: null });
    if (!ctx.json) out(`${DONE[command]} ${id} (task ${task_id})`);
  } catch (error) {
    shown.stop();
    if (error instanceof TaskFailedError) {
      print({ status: 'terminated', successful: false, error: error.reason });
      throw new CommandFailed(`${command} ${id} failed: ${error.reason} (task ${task_id})`);
    }
    if (error instanceof TaskTimeoutError) {
      print({ status: 'processing', successful: null, error: null });
      throw new CommandFailed(
        `${command} ${id}: task ${task_id} still processing after ${opts.timeout} s (it keeps running on the server)`,
      );
    }
    if (interrupt.signal.aborted) {
      print({ status: 'processing', successful: null, error: null });
      throw new CommandFailed(`interrupted; task ${task_id} keeps running on the server`);
    }
    throw networkError(ctx, error, false);
  } finally {
    process.off('SIGINT', onSigint);
  }
}

interface Seen {
  readonly nickname: string;
  readonly status: LockStatus;
}

const FIELDS = ['locked', 'battery', 'responsive'] as const;

function changeText(before: LockStatus, now: LockStatus): string {
  const parts: string[] = [];
  if (before.locked !== now.locked)
    parts.push(`${now.locked ? 'locked' : 'unlocked'} (was ${before.locked ? 'locked' : 'unlocked'})`);
  if (before.battery !== now.battery) parts.push(`battery ${now.battery}% (was ${before.battery}%)`);
  if (before.responsive !== now.responsive)
    parts.push(now.responsive ? 'responsive again' : 'not responsive');
  return parts.join(', ');
}

async function watch(
  opts: { interval: number; once?: boolean; count?: number },
  cmd: Program,
): Promise<void> {
  // THROTTLED is waited out rather than ending the watch.
  const ctx = context(cmd, { alwaysRetry: true });
  const stop = new AbortController();
  const onSigint = (): void => stop.abort();
  process.on('SIGINT', onSigint);
  process.on('SIGTERM', onSigint);
  const seen = new Map<string, Seen>();
  let changes = 0;
  const line = (
    id: string,
    nickname: string,
    s: LockStatus | null,
    changed: readonly string[],
    text: string,
  ) => {
    const time = new Date().toISOString();
    if (ctx.json)
      out(
        JSON.stringify({
          time,
          device_id: id,
          nickname,
          ...(s === null ? { removed: true } : s),
          changed,
        }),
      );
    else out(`${time}  ${id}  ${nickname}  ${text}`);
  };
  try {
    for (let first = true; !stop.signal.aborted; first = false) {
      let locks: Awaited<ReturnType<LockcloudClient['listLocks']>>;
      try {
        locks = await call(ctx, (signal) => ctx.client.listLocks({ signal }), stop.signal);
        const now = new Set<string>();
        for (const lock of locks) {
          now.add(lock.device_id);
          const s = await call(ctx, (signal) => ctx.client.getLock(lock.device_id, { signal }), stop.signal);
          const before = seen.get(lock.device_id);
          seen.set(lock.device_id, { nickname: lock.nickname, status: s });
          if (before === undefined) {
            line(lock.device_id, lock.nickname, s, first ? [] : ['added'], stateText(s));
            if (!first) changes++;
            continue;
          }
          const changed = FIELDS.filter((f) => before.status[f] !== s[f]);
          if (changed.length === 0) continue;
          line(lock.device_id, lock.nickname, s, changed, changeText(before.status, s));
          changes++;
        }
        for (const [id, gone] of seen) {
          if (now.has(id)) continue;
          seen.delete(id);
          line(id, gone.nickname, null, ['removed'], 'no longer listed');
          changes++;
        }
      } catch (error) {
        if (stop.signal.aborted) break;
        throw error;
      }
      if (opts.once === true || (opts.count !== undefined && changes >= opts.count)) break;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, opts.interval * 1000);
        stop.signal.addEventListener(
          'abort',
          () => {
            clearTimeout(timer);
            resolve();
          },
          { once: true },
        );
      });
    }
  } finally {
    process.off('SIGINT', onSigint);
    process.off('SIGTERM', onSigint);
  }
}

// ---- the program ----

function program(): Program {
  const root = new Program(NAME)
    .description('Talk to a lockcloud server: list locks, read their status, lock, unlock, sync, watch.')
    .option('--url <url>', `the server's base URL (env LOCKCLOUD_URL; default ${DEFAULT_URL})`)
    .option('--key <key>', 'the API key (env LOCKCLOUD_API_KEY)')
    .option('--json', 'machine-readable output on stdout')
    .option('--retry', 'wait out DEVICE_IS_BUSY n and THROTTLED as the server asks (within 30 s)')
    .addOption(
      new Option('--request-timeout <seconds>', 'give up on a request that gets no answer')
        .argParser(seconds('--request-timeout', 0.1))
        .default(30),
    )
    .exitOverride()
    .showHelpAfterError('(add --help for usage)')
    .allowExcessArguments(false);

  root
    .command('list')
    .description("the account's locks: device id, nickname, serial")
    .action((_opts: unknown, cmd: Program) => list(cmd));

  root
    .command('status')
    .description("a lock's stored status: locked, battery, responsive")
    .argument('<device_id>')
    .action((id: string, _opts: unknown, cmd: Program) => status(id, cmd));

  for (const name of ['lock', 'unlock', 'sync'] as const) {
    root
      .command(name)
      .description(
        name === 'sync'
          ? 'ask the lock for its real state, and wait for the answer'
          : `${name} the lock, and wait until it confirms`,
      )
      .argument('<device_id>')
      .addOption(
        new Option('--timeout <seconds>', 'how long to wait for the task')
          .argParser(seconds('--timeout', 0.1))
          .default(30),
      )
      .action((id: string, opts: { timeout: number }, cmd: Program) => command(name, id, opts, cmd));
  }

  root
    .command('watch')
    .description("print a line per change of a lock's locked, battery or responsive (Ctrl-C ends)")
    .addOption(
      new Option('--interval <seconds>', 'seconds between polls')
        .argParser(seconds('--interval', 0.1))
        .default(2),
    )
    .option('--once', 'print the current state of every lock and stop')
    .addOption(new Option('--count <n>', 'stop after n changes').argParser(positiveInteger).conflicts('once'))
    .action((opts: { interval: number; once?: boolean; count?: number }, cmd: Program) => watch(opts, cmd));

  return root;
}

/** Runs the CLI on these arguments; resolves to the exit code (no process.exit: output is flushed). */
export async function locks(argv: readonly string[]): Promise<number> {
  try {
    // An action either completes (exit 0) or throws what exitCodeOf maps.
    await program().parseAsync([...argv], { from: 'user' });
    return EXIT.ok;
  } catch (error) {
    return exitCodeOf(error);
  }
}

function exitCodeOf(error: unknown): number {
  // Commander has already printed its own message (or the help asked for).
  if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
  if (error instanceof UsageError) {
    note(error.message);
    return EXIT.usage;
  }
  if (error instanceof CommandFailed) {
    note(error.message);
    return EXIT.failed;
  }
  if (error instanceof Unreachable) {
    note(error.message);
    return EXIT.unreachable;
  }
  if (error instanceof UnauthorizedError || (error instanceof LockcloudError && error.status === 401)) {
    note('UNAUTHORIZED: the API key is missing, unknown or deleted');
    return EXIT.auth;
  }
  if (error instanceof LockcloudError) {
    const request = error.requestId === undefined ? '' : ` (request ${error.requestId})`;
    if (error.status >= 500) {
      note(`the server failed: ${String(error.code)}${request}`);
      return EXIT.unreachable;
    }
    const wait = error.retryAfterSeconds === undefined ? '' : `, try again in ${error.retryAfterSeconds} s`;
    note(`refused: ${String(error.code)}${wait}${explain(String(error.code))}`);
    return EXIT.refused;
  }
  if (error instanceof TypeError && /id is required/.test(error.message)) {
    note('a device id is required');
    return EXIT.usage;
  }
  process.stderr.write(`${NAME}: unexpected failure\n${(error as Error).stack ?? String(error)}\n`);
  return EXIT.failed;
}

function explain(code: string): string {
  switch (code) {
    case 'BAD_PARAMS':
      return ' (an unknown or foreign device id, or a bad parameter)';
    case 'CLOUD_INTEGRATION_NOT_ENABLED':
      return ' (turn cloud integration on in the app, and check the access point)';
    case 'LOW_BATTERY':
      return ' (change the batteries)';
    case 'DEVICE_IS_BUSY':
      return ' (another command runs on the lock, or the app holds it; --retry waits)';
    case 'THROTTLED':
      return ' (over the rate limit; --retry waits)';
    case 'ACCESS_DENY':
    case 'Forbidden':
      return ' (this address is blocked for a while)';
    case 'NOT_FOUND':
      return ' (is the base URL right?)';
    default:
      return '';
  }
}

process.exitCode = await locks(process.argv.slice(2));
