/**
 * The v3 command flow as a client runs it: POST /public/lock/{id}, then GET /public/action-result
 * at once and again until the task is terminated; the time from sending the command to reading its
 * end. Each lock runs one command at a time (a lock allows one running command), alternating
 * unlock and lock. Used by bench/commands.ts.
 */
import { randomUUID } from 'node:crypto';
import { cpus } from 'node:os';
import type { HttpClient } from './load.ts';
import { cpuSeconds } from './processes.ts';
import type { RigLock } from './rig.ts';

export interface FlowResult {
  readonly latencies: number[];
  /** The POST's own round trip, of each accepted command. */
  readonly postLatencies: number[];
  readonly polls: number;
  /** Commands refused or ended unsuccessful, by what was answered. */
  readonly failures: Map<string, number>;
  readonly seconds: number;
  /** Cores' worth of CPU used by the server, the simulator and this load generator. */
  readonly cpu: { server: number; sim: number; client: number };
}

const unlocked = new Set<string>();

/** True when the lock confirmed the command. */
async function oneCommand(
  client: HttpClient,
  lock: RigLock,
  out: { polls: number; fail: (why: string) => void; posted: (ms: number) => void },
  idempotencyKey: string | undefined,
): Promise<boolean> {
  const headers = { authorization: lock.key };
  const command = unlocked.has(lock.deviceId) ? 'lock' : 'unlock';
  const postHeaders =
    idempotencyKey === undefined ? headers : { ...headers, 'idempotency-key': idempotencyKey };
  const t0 = performance.now();
  const sent = await client.request('POST', `/public/lock/${lock.deviceId}`, postHeaders, { command });
  if (sent.status !== 200) {
    out.fail(`${sent.status} ${sent.body}`);
    return false;
  }
  out.posted(performance.now() - t0);
  const taskId = (JSON.parse(sent.body) as { task_id: string }).task_id;
  for (;;) {
    out.polls++;
    const res = await client.request('GET', `/public/action-result?task_id=${taskId}`, headers);
    if (res.status !== 200) {
      out.fail(`${res.status} ${res.body}`);
      return false;
    }
    const body = JSON.parse(res.body) as { status?: string; successful?: boolean; error?: string };
    if (body.status === 'processing') continue;
    if (!body.successful) {
      out.fail(body.error ?? 'failed');
      return false;
    }
    if (command === 'unlock') unlocked.add(lock.deviceId);
    else unlocked.delete(lock.deviceId);
    return true;
  }
}

/**
 * `clients` concurrent clients for `seconds`, client i owning locks i, i + clients, ...; each
 * client runs its locks' commands one after another.
 */
export async function runCommands(
  client: HttpClient,
  locks: readonly RigLock[],
  clients: number,
  seconds: number,
  pids: { server: number; sim: number },
  /** Each command with an Idempotency-Key of its own (a new key per command, as a client sends them). */
  options: { idempotencyKeys?: boolean } = {},
): Promise<FlowResult> {
  const latencies: number[] = [];
  const postLatencies: number[] = [];
  const failures = new Map<string, number>();
  const out = {
    polls: 0,
    fail: (why: string) => {
      failures.set(why, (failures.get(why) ?? 0) + 1);
    },
    posted: (ms: number) => {
      postLatencies.push(ms);
    },
  };
  const cpu0 = { server: cpuSeconds(pids.server), sim: cpuSeconds(pids.sim), client: process.cpuUsage() };
  const started = performance.now();
  const end = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: Math.min(clients, locks.length) }, async (_, c) => {
      const mine = locks.filter((_, i) => i % clients === c);
      for (let n = 0; performance.now() < end; n++) {
        const lock = mine[n % mine.length];
        if (!lock) return;
        const t0 = performance.now();
        const key = options.idempotencyKeys ? randomUUID() : undefined;
        if (await oneCommand(client, lock, out, key)) latencies.push(performance.now() - t0);
      }
    }),
  );
  const wall = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu0.client);
  return {
    latencies,
    postLatencies,
    polls: out.polls,
    failures,
    seconds: wall,
    cpu: {
      server: (cpuSeconds(pids.server) - cpu0.server) / wall,
      sim: (cpuSeconds(pids.sim) - cpu0.sim) / wall,
      client: (used.user + used.system) / 1e6 / wall,
    },
  };
}

export const cpuText = (cpu: FlowResult['cpu']): string =>
  `server ${cpu.server.toFixed(2)}, sim ${cpu.sim.toFixed(2)}, bench client ${cpu.client.toFixed(2)} of ${cpus().length} cores`;

export const failureText = (f: Map<string, number>): string =>
  f.size === 0 ? '0' : [...f.entries()].map(([why, n]) => `${n}× ${why}`).join('; ');
