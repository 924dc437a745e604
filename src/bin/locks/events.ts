/**
 * `lockcloud events` (also `lockcloud locks events`): the account's event log. Without --follow, the
 * latest --limit events, newest first, as a table (a log read from the top, like `git log`); with
 * --follow, the events as they happen, one line each in time order, through the SDK's stream, which
 * resumes by itself after a dropped connection. --json prints each event as the API gives it, one a
 * line. The words are the dashboard's (domain/event-words.ts: a pure function of the event, no I/O;
 * the only import of this CLI outside the SDK).
 */
import type { Command as Program } from 'commander';
import type { LockcloudEvent } from '../../../sdk/src/index.ts';
import { eventWords, wordsInput } from '../../domain/event-words.ts';
import { call, context, networkError } from './context.ts';
import { note, out, table } from './output.ts';

export interface EventsOptions {
  readonly device?: string;
  readonly type?: string;
  readonly limit: number;
  readonly follow?: boolean;
}

/** The most one page of the log holds (docs/events.md): a larger --limit reads several. */
const PAGE = 500;

const words = (e: LockcloudEvent): string => eventWords(wordsInput(e));

export async function events(opts: EventsOptions, cmd: Program): Promise<void> {
  const ctx = context(cmd);
  const filters = { deviceId: opts.device, type: opts.type };
  if (opts.follow !== true) {
    const latest: LockcloudEvent[] = await call(ctx, async (signal) => {
      const got: LockcloudEvent[] = [];
      const pages = ctx.client.events.list({
        ...filters,
        order: 'newest-first',
        limit: Math.min(opts.limit, PAGE),
        signal,
      });
      for await (const e of pages) {
        got.push(e);
        if (got.length >= opts.limit) break;
      }
      return got;
    });
    if (ctx.json) for (const e of latest) out(JSON.stringify(e));
    else if (latest.length === 0) out('no events');
    else
      out(
        table([
          ['TIME', 'LOCK', 'TYPE', 'WHAT'],
          ...latest.map((e) => [e.occurred_at, e.device_id ?? '-', e.type, words(e)]),
        ]),
      );
    return;
  }

  const stop = new AbortController();
  const onSignal = (): void => stop.abort();
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    const stream = ctx.client.events.stream({
      ...filters,
      signal: stop.signal,
      onReconnect: ({ error, waitMs }) =>
        note(
          `${error === undefined ? 'the server ended the stream' : `lost the stream (${describe(error)})`}: connecting again in ${Math.ceil(waitMs / 1000)} s`,
        ),
    });
    for await (const e of stream) {
      if (ctx.json) out(JSON.stringify(e));
      else out(`${e.occurred_at}  ${e.device_id ?? '-'}  ${words(e)}`);
    }
  } catch (error) {
    throw networkError(ctx, error, false);
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

function describe(error: unknown): string {
  if (error instanceof Error) return (error as { code?: string }).code ?? error.message;
  return String(error);
}
