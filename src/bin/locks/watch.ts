/**
 * `lockcloud locks watch`: polls the account's locks and prints a line per change of a lock's
 * locked, battery or responsive (and per lock added or removed), until Ctrl-C, --once or --count.
 */
import type { Command as Program } from 'commander';
import type { LockcloudClient, LockStatus } from '../../../sdk/src/index.ts';
import { call, context } from './context.ts';
import { out, stateText } from './output.ts';

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
