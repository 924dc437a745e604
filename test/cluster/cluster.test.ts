/**
 * Issue 8, point 4, on one machine: three server processes on PostgreSQL + Redis + Mosquitto (shared
 * subscriptions), the simulated devices in a process of their own, requests spread over the three.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import type { Seed } from '../../src/app/seed/schema.ts';
import { type Cluster, startCluster } from '../support/cluster.ts';
import { eventually } from '../support/eventually.ts';
import { type Receiver, startReceiver } from '../support/webhook-receiver.ts';

const OWNER = 'owner@example.com';
const OWNER_KEY = 'cluster-owner-key-0001';
const PASSWORD = 'owner-password-1';
const FAST_AP = '00000000-0000-4000-8000-0000000000f1';
const SLOW_AP = '00000000-0000-4000-8000-0000000000f2';
const FAST = Array.from({ length: 6 }, (_, i) => `00000000-0000-4000-8000-00000000010${i}`);
// Slower than the command timeout: its commands end only by their deadline.
const SLOW = '00000000-0000-4000-8000-000000000200';
const COMMAND_TIMEOUT_MS = 2500;

function seed(webhookUrl: string): Seed {
  return {
    accounts: [{ email: OWNER, password: PASSWORD, verified: true }],
    api_keys: [{ account: OWNER, key: OWNER_KEY }],
    access_points: [
      { id: FAST_AP, account: OWNER, secret: 'fast-access-point-secret-1' },
      { id: SLOW_AP, account: OWNER, secret: 'slow-access-point-secret-1' },
    ],
    locks: [
      ...FAST.map((id) => ({
        device_id: id,
        owner: OWNER,
        locked: true,
        access_point_id: FAST_AP,
        latency_ms: 0,
      })),
      { device_id: SLOW, owner: OWNER, locked: true, access_point_id: SLOW_AP, latency_ms: 6000 },
    ],
    webhooks: [{ account: OWNER, url: `${webhookUrl}/hook`, method: 'POST' }],
  };
}

// Tight enough on one endpoint to see a shared budget, and an excess that blocks the address within
// one test; the endpoints the other tests drive (commands, polls) are never in the way.
const ROOMY = { account: { burst: 1000, per_second: 500 }, ip: { burst: 1000, per_second: 500 } };
const RATE_LIMITS = JSON.stringify({
  endpoints: {
    'GET /public/locks': { account: { burst: 9, per_second: 1 } },
    'GET /public/lock/{device_id}': ROOMY,
    'POST /public/lock/{device_id}': ROOMY,
    'GET /public/action-result': ROOMY,
  },
  // The v1 test sends 12 controls to one lock, past the default command budget of 10 at once.
  commands: ROOMY.account,
  block: { excess: 10, window_seconds: 60, block_minutes: 30 },
});

interface TaskResult {
  status?: string;
  task_id?: string;
  successful?: boolean;
  error?: string;
}

describe('three server processes on PostgreSQL, Redis and Mosquitto', () => {
  let cluster: Cluster;
  let receiver: Receiver;
  const url = (n: number, path: string): string => `${cluster.servers[n % 3]?.url}${path}`;
  const v3 = (n: number, path: string, init: RequestInit = {}): Promise<Response> =>
    fetch(url(n, path), {
      ...init,
      headers: { authorization: OWNER_KEY, 'content-type': 'application/json', ...init.headers },
    });
  const command = async (n: number, lock: string, action: 'lock' | 'unlock'): Promise<string> => {
    const res = await v3(n, `/public/lock/${lock}`, {
      method: 'POST',
      body: JSON.stringify({ command: action }),
    });
    assert.equal(res.status, 200, await res.clone().text());
    const { task_id: id } = (await res.json()) as { task_id?: string };
    assert.ok(id);
    return id;
  };
  const result = async (n: number, task: string): Promise<TaskResult> => {
    const res = await v3(n, `/public/action-result?task_id=${task}`);
    assert.equal(res.status, 200, await res.clone().text());
    return (await res.json()) as TaskResult;
  };
  const ended = (n: number, task: string): Promise<TaskResult> => {
    let i = 0;
    // Each poll asks the next process.
    return eventually(`task ${task} to end`, async () => {
      const r = await result(n + i++, task);
      return r.status === 'terminated' && r;
    });
  };

  before(async () => {
    receiver = await startReceiver();
    cluster = await startCluster({
      servers: 3,
      seed: seed(receiver.url),
      files: { 'rate-limits.json': RATE_LIMITS },
      flags: [
        '--command-timeout-ms',
        String(COMMAND_TIMEOUT_MS),
        '--webhook-allow',
        '127.0.0.1/32',
        '--rate-limits',
        '{dir}/rate-limits.json',
        '--metrics-port',
        '0',
      ],
    });
    // Every lock announced and reporting, seen from each process.
    for (let n = 0; n < 3; n++) {
      await eventually(
        `the locks responsive on process ${n}`,
        async () => {
          const res = await v3(n, `/public/lock/${FAST[0]}`);
          return ((await res.json()) as { responsive?: boolean }).responsive === true;
        },
        { timeoutMs: 30_000, everyMs: 50 },
      ).catch((error: Error) => {
        throw new Error(`${error.message}: ${cluster.simOutput()}`);
      });
    }
  });

  after(async () => {
    await cluster?.close();
    await receiver?.close();
  });

  it('reads a task created on one process at once on the others', async () => {
    for (let n = 0; n < 3; n++) {
      const task = await command(n, FAST[n] ?? '', 'unlock');
      for (const other of [n + 1, n + 2]) {
        const read = await result(other, task);
        assert.ok(read.status === 'processing' || read.status === 'terminated', JSON.stringify(read));
      }
      assert.deepEqual(await ended(n + 1, task), { status: 'terminated', task_id: task, successful: true });
    }
  });

  it('answers one task to one Idempotency-Key sent to every process at once (issue 21)', async () => {
    const lock = FAST[5] ?? '';
    const send = (n: number, key: string, action: 'lock' | 'unlock') =>
      v3(n, `/public/lock/${lock}`, {
        method: 'POST',
        headers: { 'idempotency-key': key },
        body: JSON.stringify({ command: action }),
      });
    const db = new pg.Client({ connectionString: cluster.db.url });
    await db.connect();
    const tasksOf = async (): Promise<number> =>
      Number(
        (await db.query<{ n: string }>('SELECT count(*) AS n FROM tasks WHERE device_id = $1', [lock]))
          .rows[0]?.n,
      );
    try {
      for (let round = 0; round < 4; round++) {
        const key = `cluster-key-${round}`;
        const action = round % 2 === 0 ? 'unlock' : 'lock';
        const before = await tasksOf();
        const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => send(i, key, action)));
        const ids = await Promise.all(
          answers.map(async (res) => {
            assert.equal(res.status, 200, await res.clone().text());
            return ((await res.json()) as { task_id: string }).task_id;
          }),
        );
        assert.equal(new Set(ids).size, 1, `round ${round}: one task for the key: ${ids.join(', ')}`);
        const [task = ''] = ids;
        assert.deepEqual(await ended(round, task), { status: 'terminated', task_id: task, successful: true });
        // One command reached the lock: the store holds one task more of it than before the round.
        assert.equal(await tasksOf(), before + 1, `round ${round}: tasks made`);
        // Afterwards, from every process: the same answer; another command with the key: refused.
        for (let n = 0; n < 3; n++) {
          const again = await send(n, key, action);
          assert.deepEqual(await again.json(), { task_id: task });
          const other = await send(n, key, action === 'lock' ? 'unlock' : 'lock');
          assert.equal(other.status, 400);
          assert.deepEqual(await other.json(), { error: 'BAD_PARAMS' });
        }
      }
      const keys = await db.query<{ n: string }>('SELECT count(*) AS n FROM idempotency_keys');
      assert.equal(Number(keys.rows[0]?.n), 4);
    } finally {
      await db.end();
    }
  });

  it('answers a v1 control promptly whichever process hears the device', async (t) => {
    const login = await fetch(url(0, '/v1/accounts/login'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: OWNER, password: PASSWORD }),
    });
    assert.equal(login.status, 200);
    const { authorization } = (await login.json()) as { authorization: string };
    // All to process 0; the shared subscription hands each acknowledgement to any of the three.
    const took: number[] = [];
    for (let i = 0; i < 12; i++) {
      const started = Date.now();
      const res = await fetch(url(0, `/v1/locks/${FAST[3]}/control`), {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-authorization': authorization },
        body: JSON.stringify({ type: i % 2 === 0 ? 'unlock' : 'lock' }),
      });
      took.push(Date.now() - started);
      assert.equal(res.status, 204, await res.text());
    }
    took.sort((a, b) => a - b);
    t.diagnostic(`v1 control through process 0: median ${took[6]} ms, slowest ${took[11]} ms`);
    // The deadline is 2.5 s: an answer that waited for it would show here.
    assert.ok((took[11] ?? 0) < 1500, `slowest v1 control took ${took[11]} ms`);
    // Some of those acknowledgements were handled by the other two processes: they ended the tasks.
    const endedElsewhere = await Promise.all(
      [1, 2].map(async (n) => {
        const metricsUrl = cluster.servers[n]?.metricsUrl;
        assert.ok(metricsUrl, `process ${n} serves metrics`);
        const text = await (await fetch(metricsUrl)).text();
        return [...text.matchAll(/^lockcloud_commands_total\{[^}]*\} (\d+)/gm)].reduce(
          (sum, m) => sum + Number(m[1]),
          0,
        );
      }),
    );
    t.diagnostic(`tasks ended by processes 1 and 2: ${endedElsewhere.join(', ')}`);
    assert.ok(
      endedElsewhere.some((count) => count > 0),
      'no acknowledgement reached another process',
    );
  });

  it('fires exactly one webhook per state change, whatever process made it', async () => {
    const lock = FAST[4] ?? '';
    const before = receiver.requests.length;
    const changes = 9;
    for (let i = 0; i < changes; i++) {
      const task = await command(i, lock, i % 2 === 0 ? 'unlock' : 'lock');
      assert.equal((await ended(i + 1, task)).successful, true);
    }
    await receiver.waitFor(before + changes, 10_000);
    // Every message any process made is in the delivery log they share, sent at most once: once none
    // is being sent or waiting to be, the receiver has every request it is going to get.
    await eventually(
      'no message of the lock being sent or waiting',
      async () => {
        const res = await v3(0, '/ext/webhook/deliveries?limit=500');
        if (res.status !== 200) return false;
        const log = (await res.json()) as { device_id: string; status: string }[];
        return !log.some((e) => e.device_id === lock && (e.status === 'sending' || e.status === 'pending'));
      },
      { everyMs: 100 },
    );
    const received = receiver.requests
      .slice(before)
      .map((r) => JSON.parse(r.body) as { device_id: string; state: string })
      .filter((body) => body.device_id === lock);
    assert.deepEqual(
      received.map((body) => body.state),
      Array.from({ length: changes }, (_, i) => (i % 2 === 0 ? 'unlocked' : 'locked')),
    );
    const ids = receiver.requests.slice(before).map((r) => r.headers['webhook-id']);
    assert.equal(new Set(ids).size, ids.length, 'a message was delivered twice');
  });

  it('relays each event to a webhook endpoint once, in order, whichever process relays it (issue 21)', async () => {
    const lock = FAST[5] ?? '';
    const made = await v3(0, '/ext/webhook-endpoints', {
      method: 'POST',
      body: JSON.stringify({ url: `${receiver.url}/endpoint`, device_ids: [lock] }),
    });
    assert.equal(made.status, 201, await made.clone().text());
    const endpoint = (await made.json()) as { id: string; created_at: string };
    const changes = 6;
    for (let i = 0; i < changes; i++) {
      const task = await command(i, lock, i % 2 === 0 ? 'unlock' : 'lock');
      assert.equal((await ended(i + 1, task)).successful, true);
    }
    const listed = await v3(2, `/ext/events?device_id=${lock}&limit=500`);
    const events = (
      (await listed.json()) as { events: { id: string; type: string; occurred_at: string }[] }
    ).events.filter((e) => e.occurred_at >= endpoint.created_at);
    assert.ok(events.length >= changes * 3, `${events.length} events`);
    const toEndpoint = () => receiver.requests.filter((r) => r.url === '/endpoint');
    await eventually(
      'every event delivered and nothing waiting',
      async () => {
        const res = await v3(1, `/ext/webhook-endpoints/${endpoint.id}/deliveries?limit=500`);
        const { deliveries } = (await res.json()) as { deliveries: { status: string }[] };
        return (
          toEndpoint().length >= events.length &&
          deliveries.length >= events.length &&
          deliveries.every((d) => d.status === 'delivered')
        );
      },
      { everyMs: 100, timeoutMs: 20_000 },
    );
    const ids = toEndpoint().map((r) => String(r.headers['webhook-id']));
    assert.equal(new Set(ids).size, ids.length, 'an event was delivered twice');
    assert.deepEqual([...ids].sort(), events.map((e) => e.id).sort());
    // The lock's movements arrive in the order they happened.
    const moves = toEndpoint()
      .map((r) => (JSON.parse(r.body) as { type: string }).type)
      .filter((type) => type === 'lock.locked' || type === 'lock.unlocked');
    assert.deepEqual(
      moves,
      Array.from({ length: changes }, (_, i) => (i % 2 === 0 ? 'lock.unlocked' : 'lock.locked')),
    );
    // No content-type: a JSON DELETE without a body is refused (400) before the route.
    const removed = await fetch(url(2, `/ext/webhook-endpoints/${endpoint.id}`), {
      method: 'DELETE',
      headers: { authorization: OWNER_KEY },
    });
    assert.equal(removed.status, 204);
  });

  it('shares rate limits and the IP block between the processes', async () => {
    let allowed = 0;
    let throttled = 0;
    const started = Date.now();
    for (let i = 0; i < 40; i++) {
      const res = await v3(i, '/public/locks');
      if (res.status === 200) allowed++;
      else if (res.status === 429) throttled++;
      await res.arrayBuffer();
    }
    // One budget of 9 (and a refill of 1/s) for the three processes, not 9 each.
    const refill = Math.ceil((Date.now() - started) / 1000);
    assert.ok(allowed >= 9 && allowed <= 10 + refill, `allowed ${allowed} in ${refill} s`);
    // Past the excess of 10 (and its refill of one per 6 s): the address is blocked.
    assert.ok(throttled > 10 + refill / 6 + 1, `throttled ${throttled}`);
    // The refusals emptied the address's excess: every process answers 403 on every v3 endpoint.
    for (let n = 0; n < 3; n++) {
      await eventually(
        `process ${n} to see the block`,
        async () => {
          const res = await v3(n, `/public/lock/${FAST[0]}`);
          await res.arrayBuffer();
          return res.status === 403;
        },
        { everyMs: 100 },
      );
    }
  });

  it('leaves no task processing when a process is killed mid-command', async () => {
    const login = await fetch(url(2, '/v1/accounts/login'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: OWNER, password: PASSWORD }),
    });
    const { authorization } = (await login.json()) as { authorization: string };
    // v1 (the v3 block of the test before does not apply to it) on process 2, then kill -9 it.
    const waiting = fetch(url(2, `/v1/locks/${SLOW}/control`), {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-authorization': authorization },
      body: JSON.stringify({ type: 'unlock' }),
    }).catch((error: unknown) => error);
    const client = new pg.Client({ connectionString: cluster.db.url });
    await client.connect();
    try {
      const processing = async (): Promise<number> =>
        Number(
          (await client.query("select count(*) as n from tasks where status = 'processing'")).rows[0]?.n,
        );
      await eventually('the command to start', async () => (await processing()) > 0);
      await cluster.servers[2]?.kill9();
      await waiting;
      // Nobody reads the task: the survivors' sweep ends it after its deadline.
      await eventually(
        'the survivors to end the task after its deadline',
        async () => (await processing()) === 0,
        {
          timeoutMs: 15_000,
          everyMs: 100,
        },
      );
      const row = (
        await client.query('select status, error from tasks where device_id = $1 order by created_at desc', [
          SLOW,
        ])
      ).rows[0] as { status: string; error: string };
      assert.deepEqual(row, { status: 'terminated', error: 'TIMEOUT' });
    } finally {
      await client.end();
    }
  });
});
