/**
 * `lockcloud locks watch`: prints the account's locks, then a line per change of a lock's locked,
 * battery or responsive (and per lock added or removed), until Ctrl-C, --once or --count. The
 * changes come from the live event stream (`GET /ext/events/stream`, through the SDK's
 * events.stream()): each lock event re-reads the locks and prints what differs, so the lines are the
 * same as when polling. A server without the stream (404: older than it) is polled every --interval
 * instead; with the stream, --interval is not used. A lock added or removed without a lock event of
 * its own shows with the next lock event.
 */
import type { Command as Program } from 'commander';
import { type LockcloudClient, LockcloudError, type LockStatus } from '../../../sdk/src/index.ts';
import { type Context, call, context } from './context.ts';
import { note, out, stateText } from './output.ts';

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

export async function watch(
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
  /** Reads every lock and prints what changed since the last read (on the first, every lock). */
  const poll = async (first: boolean): Promise<void> => {
    const locks: Awaited<ReturnType<LockcloudClient['listLocks']>> = await call(
      ctx,
      (signal) => ctx.client.listLocks({ signal }),
      stop.signal,
    );
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
  };
  /** Re-reads the locks at each lock event; false when the server has no stream (poll instead). */
  const followStream = async (since: string | undefined): Promise<boolean> => {
    try {
      const stream = ctx.client.events.stream({
        type: 'lock.',
        lastEventId: since,
        signal: stop.signal,
        onReconnect: ({ error, waitMs }) =>
          note(
            `${error === undefined ? 'the server ended the event stream' : 'lost the event stream'}: connecting again in ${Math.ceil(waitMs / 1000)} s`,
          ),
      });
      for await (const _event of stream) {
        await poll(false);
        if (enough()) break;
      }
      return true;
    } catch (error) {
      if (error instanceof LockcloudError && error.status === 404) return false;
      throw error;
    }
  };
  const enough = () => opts.once === true || (opts.count !== undefined && changes >= opts.count);
  try {
    // The log's newest event before the first read: the stream resumes after it, so a change made
    // between the read and the stream's start is not missed.
    const since = await latestEventId(ctx, stop.signal).catch(() => undefined);
    await poll(true);
    if (enough() || stop.signal.aborted) return;
    if (await followStream(since)) return;
    for (;;) {
      await pause(opts.interval * 1000, stop.signal);
      if (stop.signal.aborted) break;
      await poll(false);
      if (enough()) break;
    }
  } catch (error) {
    if (!stop.signal.aborted) throw error;
  } finally {
    process.off('SIGINT', onSigint);
    process.off('SIGTERM', onSigint);
  }
}

/** The id of the newest lock event the key may read, if any: the stream's filter, so its resume id. */
async function latestEventId(ctx: Context, signal: AbortSignal): Promise<string | undefined> {
  const page = await call(
    ctx,
    (s) => ctx.client.events.page({ type: 'lock.', order: 'newest-first', limit: 1, signal: s }),
    signal,
  );
  return page.events[0]?.id;
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
}
