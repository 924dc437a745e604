/** The one-shot commands of `lockcloud locks`: list, and lock / unlock / sync (waiting for the task). */
import { randomUUID } from 'node:crypto';
import type { Command as Program } from 'commander';
import { type Command, type LockHealth, TaskFailedError, TaskTimeoutError } from '../../../sdk/src/index.ts';
import { call, context, networkError } from './context.ts';
import { CommandFailed } from './exit-codes.ts';
import { out, progress, table } from './output.ts';

/**
 * Every lock the key's account reaches, owned or shared with it, from `GET /ext/locks` (as `status`
 * reads one): a line each with what a glance needs; the whole picture is `status ID`.
 */
export async function list(cmd: Program): Promise<void> {
  const ctx = context(cmd);
  const { locks } = await call(ctx, (signal) => ctx.client.locks.list({ signal }));
  if (ctx.json) out(JSON.stringify({ locks }, null, 2));
  else if (locks.length === 0) out('no locks');
  else
    out(
      table([
        ['DEVICE_ID', 'NICKNAME', 'ROLE', 'STATE', 'BATTERY', 'DOOR'],
        ...locks.map((l) => [
          l.device_id,
          l.nickname,
          l.role,
          stateText(l),
          `${l.battery}% ${l.battery_state}`,
          l.door ?? '-',
        ]),
      ]),
    );
}

/** What is wrong first: a jammed lock's bolt position is not to be trusted, nor an unresponsive one's. */
function stateText(lock: LockHealth): string {
  if (lock.jammed) return 'jammed';
  if (!lock.responsive) return 'unresponsive';
  return lock.locked ? 'locked' : 'unlocked';
}

const DONE: Record<Command, string> = { lock: 'locked', unlock: 'unlocked', sync: 'synced' };

export async function command(
  command: Command,
  id: string,
  opts: { timeout: number; idempotencyKey?: string },
  cmd: Program,
): Promise<void> {
  const ctx = context(cmd);
  // With --retry every command carries a key of its own, so no retry of it can act twice (a lost
  // answer is sent again too); --idempotency-key names one a script can repeat across runs.
  const idempotencyKey = opts.idempotencyKey ?? (ctx.retry ? randomUUID() : undefined);
  const { task_id } = await call(ctx, (signal) =>
    ctx.client.sendCommand(id, command, { signal, idempotencyKey }),
  );
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
