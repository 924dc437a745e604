/**
 * The crash-safety workload (test/reliability/crash-commands.test.ts): a seed with several accounts,
 * keys, locks (some answering at once, some after a few ms) and webhooks, and a run of commands (v3
 * POST /public/lock/{id} and v1 controls, mixed) fired by a pool of concurrent clients against a
 * server process, each outcome recorded so the test can hold the restarted server to it.
 */
import type { Seed } from '../../src/app/seed/schema.ts';
import { eventually } from '../support/eventually.ts';

export const ACCOUNTS = [
  'crash0@example.com',
  'crash1@example.com',
  'crash2@example.com',
  'crash3@example.com',
];
export const PASSWORD = (email: string): string => `pw-${email}`;
/** Two keys for the first account, one for each of the others. */
export const KEYS: Readonly<Record<string, readonly string[]>> = Object.fromEntries(
  ACCOUNTS.map((email, i) => [
    email,
    i === 0 ? [`crash-key-${i}-a`, `crash-key-${i}-b`] : [`crash-key-${i}-a`],
  ]),
);
export const LOCKS_PER_ACCOUNT = 10;

export interface LockSpec {
  readonly deviceId: string;
  readonly owner: string;
  readonly latencyMs: number;
}

export const LOCKS: readonly LockSpec[] = ACCOUNTS.flatMap((owner, a) =>
  Array.from({ length: LOCKS_PER_ACCOUNT }, (_, l) => ({
    deviceId: `c0000000-0000-4000-8000-0000000${a}${String(l).padStart(4, '0')}`,
    owner,
    // Half the locks answer at once, half after a little while (a command is then in flight longer).
    latencyMs: l % 2 === 0 ? 0 : 5 + 10 * (l % 5),
  })),
);

/** Accounts 0 and 1 have a webhook (1 with retries); 2 and 3 have none until the run sets 3's. */
export function crashSeed(receiverUrl: string): Seed {
  return {
    accounts: ACCOUNTS.map((email) => ({ email, password: PASSWORD(email), verified: true })),
    api_keys: ACCOUNTS.flatMap((account) => (KEYS[account] ?? []).map((key) => ({ account, key }))),
    locks: LOCKS.map((l, i) => ({
      device_id: l.deviceId,
      serial: `CRASH${String(i).padStart(5, '0')}`,
      nickname: `Door ${i}`,
      owner: l.owner,
      locked: i % 3 !== 0,
      latency_ms: l.latencyMs,
      // One lock of each account is shared with the next account (reads of shared locks count too).
      ...(i % LOCKS_PER_ACCOUNT === 0
        ? { shared_with: [ACCOUNTS[(i / LOCKS_PER_ACCOUNT + 1) % 4] as string] }
        : {}),
    })),
    webhooks: [
      { account: ACCOUNTS[0] as string, url: `${receiverUrl}/a0/{device_id}/{state}` },
      {
        account: ACCOUNTS[1] as string,
        url: `${receiverUrl}/a1/{device_id}/{state}`,
        method: 'GET',
        retries: true,
      },
    ],
  };
}

export type Kind = 'v3' | 'v1';

export interface Planned {
  readonly n: number;
  readonly kind: Kind;
  readonly account: string;
  readonly deviceId: string;
  readonly command: 'lock' | 'unlock' | 'sync';
}

/** A deterministic mix (a small LCG, so a failure can be replayed): about 70 % v3, 30 % v1. */
export function plan(count: number, randomSeed = 11): Planned[] {
  let x = randomSeed;
  const next = (n: number): number => {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    return (x >>> 8) % n;
  };
  return Array.from({ length: count }, (_, n) => {
    const lock = LOCKS[next(LOCKS.length)] as LockSpec;
    const kind: Kind = next(10) < 7 ? 'v3' : 'v1';
    const commands = kind === 'v3' ? (['lock', 'unlock', 'sync'] as const) : (['lock', 'unlock'] as const);
    return {
      n,
      kind,
      account: lock.owner,
      deviceId: lock.deviceId,
      command: commands[next(commands.length)] ?? 'lock',
    };
  });
}

export interface Outcome {
  readonly planned: Planned;
  /** The HTTP status, or 0 when no answer came (the process died under it). */
  readonly status: number;
  readonly body: unknown;
  /** v3: the task id of an accepted command. */
  readonly taskId?: string;
  /** v3: the task's end as read before the crash, if it was read. */
  readonly endedBefore?: Record<string, unknown>;
}

/** What a v3 client may be answered for a command, as docs/errors.md lists it (besides 200). */
export function documentedV3Refusal(status: number, body: unknown): boolean {
  const error = (body as { error?: unknown } | null)?.error;
  return status === 400 && typeof error === 'string' && /^(DEVICE_IS_BUSY( \d+)?|LOW_BATTERY)$/.test(error);
}

/** v1 control failures (docs/errors.md, v1): busy, unreachable, timeout, low battery, jammed. */
export function documentedV1Failure(status: number, body: unknown): boolean {
  const code = (body as { code?: unknown } | null)?.code;
  return status === 500 && typeof code === 'number' && code >= 50001 && code <= 50005;
}

export const DOCUMENTED_TASK_ERRORS = new Set([
  'TIMEOUT',
  'DEVICE_UNREACHABLE',
  'DEVICE_IS_BUSY',
  'JAMMED',
  'LOW_BATTERY',
]);

export interface Client {
  readonly url: () => string;
  readonly tokens: Readonly<Record<string, string>>;
}

async function parse(res: Response): Promise<unknown> {
  const text = await res.text();
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** One command as a client sends it; a v3 client then reads its task until it ends. */
export async function fire(client: Client, p: Planned): Promise<Outcome> {
  const base = client.url();
  const key = KEYS[p.account]?.[p.n % (KEYS[p.account]?.length ?? 1)] ?? '';
  if (p.kind === 'v1') {
    const res = await fetch(`${base}/v1/locks/${p.deviceId}/control`, {
      method: 'POST',
      headers: { 'x-authorization': client.tokens[p.account] ?? '', 'content-type': 'application/json' },
      body: JSON.stringify({ type: p.command }),
    });
    return { planned: p, status: res.status, body: await parse(res) };
  }
  const res = await fetch(`${base}/public/lock/${p.deviceId}`, {
    method: 'POST',
    headers: { authorization: key, 'content-type': 'application/json' },
    body: JSON.stringify({ command: p.command }),
  });
  const body = await parse(res);
  const taskId = (body as { task_id?: unknown } | null)?.task_id;
  if (res.status !== 200 || typeof taskId !== 'string') return { planned: p, status: res.status, body };
  const accepted: Outcome = { planned: p, status: res.status, body, taskId };
  // Read the task until it ends; the process may die meanwhile, and the command stays accepted.
  try {
    const ended = await eventually(
      `task ${taskId} to end`,
      async () => {
        const r = await fetch(`${base}/public/action-result?task_id=${taskId}`, {
          headers: { authorization: key },
        });
        const result = (await r.json()) as Record<string, unknown>;
        return result.status === 'terminated' && result;
      },
      { timeoutMs: 5_000, everyMs: 5 },
    );
    return { ...accepted, endedBefore: ended };
  } catch {
    // the server went away (or the task outlasted the wait): the task is read after the restart
  }
  return accepted;
}

/**
 * Runs `planned` with `concurrency` clients. `onOutcome` sees each answer as it comes, with all so
 * far; when it answers true, no new command starts, and the ones in flight finish (or fail) as they
 * may. Answers the outcomes (in completion order) and the commands never started.
 */
export async function run(
  client: Client,
  planned: readonly Planned[],
  concurrency: number,
  onOutcome: (o: Outcome, all: readonly Outcome[]) => boolean = () => false,
): Promise<{ outcomes: Outcome[]; notStarted: Planned[] }> {
  const queue = [...planned];
  const outcomes: Outcome[] = [];
  let stopped = false;
  const worker = async (): Promise<void> => {
    while (!stopped) {
      const p = queue.shift();
      if (!p) return;
      let outcome: Outcome;
      try {
        outcome = await fire(client, p);
      } catch (error) {
        outcome = { planned: p, status: 0, body: String(error) };
      }
      outcomes.push(outcome);
      if (onOutcome(outcome, outcomes)) stopped = true;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return { outcomes, notStarted: queue };
}
