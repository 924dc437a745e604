/**
 * Mixed client traffic against a running lockcloud, for the fault tests (a database or Redis
 * restarted under it) and the soak: v3 reads, commands and result polls, v1 logins, reads and
 * controls, sandbox changes and some bad requests, from a pool of concurrent clients. Every answer
 * is judged against docs/errors.md and counted; the accepted commands are kept so a test can check
 * that each one ends.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { eventually } from './eventually.ts';

export type Op =
  | 'v3-read'
  | 'v3-list'
  | 'v3-command'
  | 'v3-result'
  | 'v1-login'
  | 'v1-read'
  | 'v1-control'
  | 'sim-change'
  | 'bad-request';

/**
 * ok: the answer the request asked for; refused: a documented refusal (a busy lock, a throttle, a
 * command that failed at the lock, a bad request answered as documented); unavailable: the
 * documented 503 while a backend is away; error: anything else (a 500, an undocumented body, an
 * unexpected 4xx); network: no answer (connection refused or reset); timeout: no answer in time.
 */
export type Verdict = 'ok' | 'refused' | 'unavailable' | 'error' | 'network' | 'timeout';

export interface Judged {
  readonly op: Op;
  readonly status: number;
  readonly body: unknown;
  readonly verdict: Verdict;
  readonly retryAfter: string | null;
}

export interface LoadTarget {
  readonly url: string;
  readonly apiKey: string;
  /** Locks the key's account owns (commands and changes go to these). */
  readonly locks: readonly string[];
  readonly email: string;
  readonly password: string;
  /** The weight of each operation in the mix (default DEFAULT_MIX). */
  readonly mix?: Partial<Record<Op, number>>;
  /** Real time one request may take before it counts as a timeout (default 30 s). */
  readonly requestTimeoutMs?: number;
  /** Pause between two requests of one client (default 0). */
  readonly pauseMs?: number;
  /**
   * How long a client waits after a 503 before its next request (default 250 ms): clients that
   * retry at once would only measure how fast the server says no.
   */
  readonly backoffMs?: number;
  /**
   * Count the sandbox's `404 no simulated device answered` as a documented refusal. The simulated
   * access points keep their state in the server's database: a change that reaches one just as the
   * database goes away gets no answer, which the sandbox reports so after 5 s (the database tests
   * only; anywhere else it means a device stopped answering).
   */
  readonly simNoAnswerIsRefusal?: boolean;
}

export const DEFAULT_MIX: Readonly<Record<Op, number>> = {
  'v3-read': 30,
  'v3-list': 5,
  'v3-command': 10,
  'v3-result': 15,
  'v1-login': 1,
  'v1-read': 10,
  'v1-control': 5,
  'sim-change': 4,
  'bad-request': 5,
};

const TASK_FAILURES = new Set(['TIMEOUT', 'DEVICE_UNREACHABLE', 'DEVICE_IS_BUSY', 'JAMMED', 'LOW_BATTERY']);

function isUnavailable(status: number, body: unknown, retryAfter: string | null): boolean {
  if (status !== 503 || retryAfter === null || !/^\d+$/.test(retryAfter)) return false;
  const b = body as { error?: unknown; code?: unknown; message?: unknown } | null;
  return b?.error === 'SERVICE_UNAVAILABLE' || (b?.code === 50300 && b.message === 'ServiceUnavailable');
}

/** How docs/errors.md says `op` may be answered; everything else is an error. */
export function judge(op: Op, status: number, body: unknown, retryAfter: string | null): Verdict {
  if (isUnavailable(status, body, retryAfter)) return 'unavailable';
  const b = (body ?? {}) as { error?: unknown; code?: unknown };
  if (op === 'bad-request')
    return [400, 401, 404].includes(status) && (typeof b.error === 'string' || typeof b.code === 'number')
      ? 'refused'
      : 'error';
  if (status === 429 && (b.error === 'THROTTLED' || b.code === 42900)) return 'refused';
  if (op === 'v1-control') {
    if (status === 204) return 'ok';
    return status === 500 && typeof b.code === 'number' && b.code >= 50001 && b.code <= 50005
      ? 'refused'
      : 'error';
  }
  if (op === 'v3-command' && status === 400 && typeof b.error === 'string')
    return /^(DEVICE_IS_BUSY( \d+)?|LOW_BATTERY)$/.test(b.error) ? 'refused' : 'error';
  return status === 200 ? 'ok' : 'error';
}

export interface AcceptedTask {
  readonly taskId: string;
  /** The task's end as read, once it has ended. */
  ended?: { readonly successful: boolean; readonly error?: string };
}

export class MixedLoad {
  /** "op status verdict" -> count */
  readonly counts = new Map<string, number>();
  readonly verdicts: Record<Verdict, number> = {
    ok: 0,
    refused: 0,
    unavailable: 0,
    error: 0,
    network: 0,
    timeout: 0,
  };
  /** The first answers judged error, network or timeout (at most 50 kept). */
  readonly failures: (Judged & { at: number })[] = [];
  readonly accepted: AcceptedTask[] = [];
  /** Task outcomes that docs/errors.md does not list (INTERNAL_ERROR): each one is a fault. */
  readonly badOutcomes: AcceptedTask[] = [];
  /**
   * Per lock, the battery of the last sandbox change answered; `settled` is false when a later
   * change got no clear answer (a 503 or none: it may or may not have been made).
   */
  readonly simChanges = new Map<string, { battery: number; settled: boolean }>();
  private readonly unresolved: AcceptedTask[] = [];
  private running = false;
  private workers: Promise<void>[] = [];
  private token = '';
  private readonly weights: [Op, number][];
  private readonly total: number;
  private n = 0;

  constructor(private readonly target: LoadTarget) {
    this.weights = Object.entries({ ...DEFAULT_MIX, ...target.mix }) as [Op, number][];
    this.total = this.weights.reduce((sum, [, w]) => sum + w, 0);
  }

  get requests(): number {
    return Object.values(this.verdicts).reduce((a, b) => a + b, 0);
  }

  /** Answers judged error, network or timeout. */
  get faults(): number {
    return this.verdicts.error + this.verdicts.network + this.verdicts.timeout;
  }

  /** Logs in (v1) and starts `clients` concurrent clients. */
  async start(clients: number): Promise<void> {
    await this.login();
    this.running = true;
    this.workers = Array.from({ length: clients }, (_, i) => this.client(i));
  }

  /** Stops the clients and waits for the requests in flight. */
  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.workers);
  }

  /** Reads every accepted task until it has ended; resolves with those still processing after `ms`. */
  async settle(ms: number): Promise<AcceptedTask[]> {
    const left = () => this.accepted.filter((t) => t.ended === undefined);
    await eventually(
      'every accepted task to end',
      async () => {
        for (const task of left()) await this.readResult(task).catch(() => undefined);
        return left().length === 0;
      },
      { timeoutMs: ms, everyMs: 200 },
    ).catch(() => undefined); // the caller reports the tasks left
    return left();
  }

  /** A summary line per op: status -> count. */
  table(): string {
    return [...this.counts.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([k, v]) => `${k}: ${v}`)
      .join('\n');
  }

  private pick(): Op {
    let r = Math.random() * this.total;
    for (const [op, w] of this.weights) {
      r -= w;
      if (r < 0) return op;
    }
    return 'v3-read';
  }

  private async client(index: number): Promise<void> {
    const simLock = this.target.locks[index % this.target.locks.length] as string;
    while (this.running) {
      const op = this.pick();
      const before = this.verdicts.unavailable;
      try {
        await this.perform(op, simLock, index);
        // A backoff, not a wait for anything: clients that retried at once would only measure how
        // fast the server says no.
        if (this.verdicts.unavailable > before) await sleep(this.target.backoffMs ?? 250);
      } catch (error) {
        const name = (error as Error).name;
        const verdict: Verdict = name === 'TimeoutError' || name === 'AbortError' ? 'timeout' : 'network';
        this.record({ op, status: 0, body: String(error), verdict, retryAfter: null });
      }
      // Pacing: mixed load, not a flood.
      if (this.target.pauseMs) await sleep(this.target.pauseMs);
    }
  }

  private lock(): string {
    const { locks } = this.target;
    return locks[this.n++ % locks.length] as string;
  }

  private async call(
    op: Op,
    path: string,
    init: { method?: string; headers?: Record<string, string>; body?: string } = {},
  ): Promise<Judged> {
    const res = await fetch(`${this.target.url}${path}`, {
      ...init,
      signal: AbortSignal.timeout(this.target.requestTimeoutMs ?? 30_000),
    });
    const text = await res.text();
    let body: unknown = text;
    try {
      body = text === '' ? null : JSON.parse(text);
    } catch {
      // not JSON: judged as it is
    }
    const retryAfter = res.headers.get('retry-after');
    let verdict = judge(op, res.status, body, retryAfter);
    const message = (body as { message?: unknown } | null)?.message;
    if (
      this.target.simNoAnswerIsRefusal &&
      op === 'sim-change' &&
      res.status === 404 &&
      typeof message === 'string' &&
      message.startsWith('no simulated device answered')
    )
      verdict = 'refused';
    const judged: Judged = { op, status: res.status, body, verdict, retryAfter };
    this.record(judged);
    return judged;
  }

  private record(judged: Judged): void {
    const key = `${judged.op} ${judged.status} ${judged.verdict}`;
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
    this.verdicts[judged.verdict]++;
    if (judged.verdict === 'error' || judged.verdict === 'network' || judged.verdict === 'timeout') {
      if (this.failures.length < 50) this.failures.push({ ...judged, at: Date.now() });
    }
  }

  private get v3(): Record<string, string> {
    return { authorization: this.target.apiKey, 'content-type': 'application/json' };
  }

  /** A v1 login; its token is used by the v1 requests that follow. */
  async login(): Promise<void> {
    const judged = await this.call('v1-login', '/v1/accounts/login', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: this.target.email, password: this.target.password }),
    });
    const token = (judged.body as { authorization?: unknown } | null)?.authorization;
    if (typeof token === 'string') this.token = token;
    else if (this.token === '')
      throw new Error(`v1 login failed: ${judged.status} ${JSON.stringify(judged.body)}`);
  }

  private async readResult(task: AcceptedTask): Promise<void> {
    const judged = await this.call('v3-result', `/public/action-result?task_id=${task.taskId}`, {
      headers: this.v3,
    });
    const b = judged.body as { status?: unknown; successful?: unknown; error?: unknown } | null;
    if (judged.status !== 200 || b?.status !== 'terminated') return;
    task.ended = {
      successful: b.successful === true,
      ...(typeof b.error === 'string' ? { error: b.error } : {}),
    };
    if (!task.ended.successful && !TASK_FAILURES.has(task.ended.error ?? '')) this.badOutcomes.push(task);
  }

  private async perform(op: Op, simLock: string, index: number): Promise<void> {
    switch (op) {
      case 'v3-read':
        await this.call(op, `/public/lock/${this.lock()}`, { headers: this.v3 });
        return;
      case 'v3-list':
        await this.call(op, '/public/locks', { headers: this.v3 });
        return;
      case 'v3-command': {
        const command = Math.random() < 0.5 ? 'lock' : 'unlock';
        const judged = await this.call(op, `/public/lock/${this.lock()}`, {
          method: 'POST',
          headers: this.v3,
          body: JSON.stringify({ command }),
        });
        const taskId = (judged.body as { task_id?: unknown } | null)?.task_id;
        if (judged.status === 200 && typeof taskId === 'string') {
          const task: AcceptedTask = { taskId };
          this.accepted.push(task);
          this.unresolved.push(task);
        }
        return;
      }
      case 'v3-result': {
        const task = this.unresolved.shift();
        if (!task) return this.perform('v3-read', simLock, index);
        await this.readResult(task);
        if (task.ended === undefined) this.unresolved.push(task);
        return;
      }
      case 'v1-login':
        return this.login();
      case 'v1-read':
        await this.call(op, Math.random() < 0.5 ? '/v1/locks' : `/v1/locks/${this.lock()}`, {
          headers: { 'x-authorization': this.token },
        });
        return;
      case 'v1-control':
        await this.call(op, `/v1/locks/${this.lock()}/control`, {
          method: 'POST',
          headers: { 'x-authorization': this.token, 'content-type': 'application/json' },
          body: JSON.stringify({ type: Math.random() < 0.5 ? 'lock' : 'unlock' }),
        });
        return;
      case 'sim-change': {
        // One client per lock here, so the last accepted change of a lock is its value.
        if (index >= this.target.locks.length) return this.perform('v3-read', simLock, index);
        const battery = 20 + Math.floor(Math.random() * 80);
        const judged = await this.call(op, `/_sim/locks/${simLock}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ battery }),
        });
        const last = this.simChanges.get(simLock);
        if (judged.verdict === 'ok') this.simChanges.set(simLock, { battery, settled: true });
        else if (last) last.settled = false;
        return;
      }
      case 'bad-request':
        return this.badRequest();
    }
  }

  private async badRequest(): Promise<void> {
    const kind = this.n++ % 4;
    if (kind === 0)
      await this.call('bad-request', `/public/lock/${this.lock()}`, {
        method: 'POST',
        headers: this.v3,
        body: '{"command":',
      });
    else if (kind === 1) await this.call('bad-request', '/public/lock/not-a-uuid', { headers: this.v3 });
    else if (kind === 2)
      await this.call('bad-request', `/public/lock/${this.lock()}`, {
        headers: { authorization: 'no-such-key' },
      });
    else await this.call('bad-request', '/v1/locks', { headers: { 'x-authorization': 'no-such-token' } });
  }
}
