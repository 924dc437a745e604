/**
 * Issue 25 point 5's restart: the broker is killed (SIGKILL, as a crash) and started again on its
 * port while every access point is connected. Commands are sent around the loss; then the bench
 * waits until every lock has reported since the restart (`last_seen_at` in GET /ext/locks), and
 * sends a command to one lock of every access point. Used by bench/scale-devices.ts with Mosquitto.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Answer, HttpClient } from './load.ts';
import { progress } from './report.ts';

interface ExtLock {
  readonly device_id: string;
  readonly last_seen_at: string | null;
  readonly access_point?: { readonly id: string } | null;
}

export interface RestartResult {
  /** From the broker's start to the list that showed every lock reported since its loss. */
  readonly allReportedAfterS: number;
  /** When the list before that one was asked for, and how many locks it showed reported. */
  readonly previousList: { readonly atS: number; readonly reported: number };
  /** From the broker's start to the last of the commands to one lock of every access point ending. */
  readonly commandsDoneAfterS: number;
  readonly perAccessPoint: {
    readonly sent: number;
    readonly succeeded: number;
    readonly failures: Map<string, number>;
  };
  /** Commands sent just before and while the broker was away, by how each ended; `lost`: never ended. */
  readonly around: Map<string, number>;
  /**
   * CPU seconds each process used from the broker's start to the list that showed every lock
   * reported: which of them the recovery waited on (one near `allReportedAfterS` had a core full).
   */
  readonly cpuUntilReported: ReadonlyMap<string, number>;
}

/** How long the restart's reports, and then its commands, are waited for. */
const FOLLOW_MS = 180_000;

/** Sends a v3 command; resolves with how its task ended ('success', its error, or 'lost'). */
async function command(client: HttpClient, key: string, deviceId: string, giveUpAt: number): Promise<string> {
  const headers = { authorization: key };
  // A connection that fails (a reset as a keep-alive socket closes) is an outcome of its own, not
  // the end of the bench: a POST's is counted, a poll's is asked again (the task is there either way).
  let sent: Answer;
  try {
    sent = await client.request('POST', `/public/lock/${deviceId}`, headers, { command: 'lock' });
  } catch (error) {
    return `POST failed on the connection (${(error as NodeJS.ErrnoException).code ?? String(error)})`;
  }
  if (sent.status !== 200) return `HTTP ${sent.status}`;
  const taskId = (JSON.parse(sent.body) as { task_id: string }).task_id;
  while (Date.now() < giveUpAt) {
    let res: Answer;
    try {
      res = await client.request('GET', `/public/action-result?task_id=${taskId}`, headers);
    } catch {
      await sleep(200);
      continue;
    }
    if (res.status !== 200) return `HTTP ${res.status} on the result`;
    const body = JSON.parse(res.body) as { status?: string; successful?: boolean; error?: string };
    if (body.status !== 'processing') return body.successful ? 'success' : (body.error ?? 'failed');
    await sleep(200);
  }
  return 'lost';
}

function tally(outcomes: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const outcome of outcomes) counts.set(outcome, (counts.get(outcome) ?? 0) + 1);
  return counts;
}

/** Runs `tasks` with at most `width` at once. */
async function pool<T>(tasks: readonly (() => Promise<T>)[], width: number): Promise<T[]> {
  const results: T[] = new Array(tasks.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < tasks.length) {
      const i = next++;
      results[i] = await (tasks[i] as () => Promise<T>)();
    }
  };
  await Promise.all(Array.from({ length: width }, worker));
  return results;
}

export async function restartBroker(options: {
  readonly client: HttpClient;
  readonly key: string;
  /** Kills the broker; resolves once it is gone. */
  readonly kill: () => Promise<void>;
  /** Starts it again on its port; resolves once it listens. */
  readonly start: () => Promise<void>;
  /** CPU seconds used so far by each process of the rig, by name (the broker's new process once started). */
  readonly cpu: () => ReadonlyMap<string, number>;
}): Promise<RestartResult> {
  const { client, key } = options;
  const list = async (): Promise<ExtLock[]> =>
    (await client.json<{ locks: ExtLock[] }>('GET', '/ext/locks', { authorization: key })).locks;
  const locks = await list();
  const onePerAp = new Map<string, string>();
  for (const lock of locks) {
    const ap = lock.access_point?.id;
    if (ap !== undefined && !onePerAp.has(ap)) onePerAp.set(ap, lock.device_id);
  }
  // Locks of their own for the commands around the loss: one per access point, the others' next.
  const probes = new Set(onePerAp.values());
  const around = locks.filter((l) => !probes.has(l.device_id)).slice(0, 200);
  const giveUpAt = Date.now() + FOLLOW_MS;

  progress('killing the broker, with 100 commands just sent');
  const before = around.slice(0, 100).map((l) => command(options.client, key, l.device_id, giveUpAt));
  const lostAt = new Date();
  await options.kill();
  const during = around.slice(100).map((l) => command(options.client, key, l.device_id, giveUpAt));
  await sleep(1000);
  progress('starting the broker again on its port');
  await options.start();
  const startedAt = performance.now();
  const cpuAtStart = options.cpu();
  let cpuUntilReported: ReadonlyMap<string, number> = new Map();

  // Each list of 100,000 locks with their health is seconds of the server's work: the pause after
  // one is twice what it took, a compromise between the figure's resolution and the recovery's pace.
  let pauseMs = 500;
  let allReportedAfterS = Number.NaN;
  let previousList = { atS: 0, reported: 0 };
  for (;;) {
    await sleep(pauseMs);
    const asked = performance.now();
    const now = await list();
    pauseMs = Math.max(500, 2 * (performance.now() - asked));
    const stale = now.filter((l) => l.last_seen_at === null || new Date(l.last_seen_at) < lostAt).length;
    progress(`${now.length - stale} of ${now.length} locks reported since the restart`);
    const atS = (asked - startedAt) / 1000;
    if (stale === 0) {
      allReportedAfterS = atS;
      cpuUntilReported = new Map(
        [...options.cpu()].map(([name, seconds]) => [name, seconds - (cpuAtStart.get(name) ?? 0)]),
      );
      break;
    }
    previousList = { atS, reported: now.length - stale };
    if (Date.now() > giveUpAt) break;
  }

  progress(`a command to one lock of each of ${onePerAp.size} access points`);
  // Each followed for FOLLOW_MS from its own sending: with one deadline for all, the commands a
  // slow machine sent late were never followed and counted lost (a run at 100,000 locks). Those
  // not sent within twice that are counted apart: the phase then ends however slow the machine.
  const sendUntil = Date.now() + 2 * FOLLOW_MS;
  const outcomes = await pool(
    [...onePerAp.values()].map(
      (deviceId) => () =>
        Date.now() > sendUntil
          ? Promise.resolve('not sent (the phase ran out of time)')
          : command(client, key, deviceId, Date.now() + FOLLOW_MS),
    ),
    32,
  );
  const commandsDoneAfterS = (performance.now() - startedAt) / 1000;
  const perApTally = tally(outcomes);
  const succeeded = perApTally.get('success') ?? 0;
  perApTally.delete('success');
  return {
    allReportedAfterS,
    previousList,
    commandsDoneAfterS,
    perAccessPoint: { sent: outcomes.length, succeeded, failures: perApTally },
    around: tally(await Promise.all([...before, ...during])),
    cpuUntilReported,
  };
}
