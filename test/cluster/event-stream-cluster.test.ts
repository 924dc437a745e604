/**
 * The live stream with several processes (docs/events.md, "The live stream"): two server processes
 * on one PostgreSQL database and one Redis prefix. An event made through process A reaches a stream
 * opened on process B, in the log's order, and a stream resumed on A after B's events has no gap.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Seed } from '../../src/app/seed/schema.ts';
import { type Cluster, startCluster } from '../support/cluster.ts';
import { eventually } from '../support/eventually.ts';
import { type LockEventJson, SseClient } from '../support/sse.ts';

const OWNER = 'owner@example.com';
const OWNER_KEY = 'cluster-stream-key-0001';
const AP = '00000000-0000-4000-8000-0000000000f1';
const LOCK = '00000000-0000-4000-8000-000000000101';

const seed: Seed = {
  accounts: [{ email: OWNER, password: 'owner-password-1', verified: true }],
  api_keys: [{ account: OWNER, key: OWNER_KEY }],
  access_points: [{ id: AP, account: OWNER, secret: 'stream-access-point-secret-1' }],
  locks: [{ device_id: LOCK, owner: OWNER, locked: true, access_point_id: AP, latency_ms: 0 }],
};

const byId = (events: readonly LockEventJson[]) => [...events].sort((a, b) => (a.id < b.id ? -1 : 1));

describe('the live stream across two processes on PostgreSQL and Redis', () => {
  let cluster: Cluster;
  const url = (n: number, path: string) => `${cluster.servers[n]?.url}${path}`;
  const v3 = (n: number, path: string, init: RequestInit = {}) =>
    fetch(url(n, path), {
      ...init,
      headers: { authorization: OWNER_KEY, 'content-type': 'application/json', ...init.headers },
    });
  const command = async (n: number, action: 'lock' | 'unlock'): Promise<void> => {
    const res = await v3(n, `/public/lock/${LOCK}`, {
      method: 'POST',
      body: JSON.stringify({ command: action }),
    });
    assert.equal(res.status, 200, await res.clone().text());
    const { task_id: task } = (await res.json()) as { task_id: string };
    await eventually(`task ${task} to end`, async () => {
      const r = await v3(n, `/public/action-result?task_id=${task}`);
      return ((await r.json()) as { status?: string }).status === 'terminated';
    });
  };
  const listed = async (n: number, afterId?: string): Promise<LockEventJson[]> => {
    const res = await v3(n, `/ext/events?limit=500${afterId === undefined ? '' : `&after=${afterId}`}`);
    assert.equal(res.status, 200);
    return ((await res.json()) as { events: LockEventJson[] }).events;
  };

  before(async () => {
    cluster = await startCluster({ servers: 2, seed });
    for (let n = 0; n < 2; n++)
      await eventually(
        `the lock responsive on process ${n}`,
        async () => {
          const res = await v3(n, `/public/lock/${LOCK}`);
          return ((await res.json()) as { responsive?: boolean }).responsive === true;
        },
        { timeoutMs: 30_000, everyMs: 50 },
      ).catch((error: Error) => {
        throw new Error(`${error.message}: ${cluster.simOutput()}`);
      });
  });
  after(async () => {
    await cluster?.close();
  });

  it('streams on B the events of commands sent through A, in order, once each', async () => {
    const [newest] = (await listed(0)).slice(-1);
    const onB = await SseClient.open(url(1, '/ext/events/stream'), { authorization: OWNER_KEY });
    assert.equal(onB.status, 200);
    await onB.waitFor('the retry line', (f) => f.length > 0);
    await command(0, 'unlock');
    await command(0, 'lock');
    const expected = await listed(0, newest?.id);
    assert.ok(expected.length >= 6, 'requested, moved, succeeded, twice');
    const got = await onB.waitForEvents(expected.length);
    // The stream follows commit order, the list id order: across processes two events of one
    // millisecond may sort apart, so they are compared as sets (each once).
    assert.deepEqual(byId(got), byId(expected));

    // Closed on B, resumed on A after B's last event: what A makes meanwhile, no gap, no duplicate.
    onB.close();
    const last = got.at(-1)?.id ?? '';
    await command(1, 'unlock');
    const onA = await SseClient.open(url(0, '/ext/events/stream'), {
      authorization: OWNER_KEY,
      'last-event-id': last,
    });
    const rest = await listed(1, last);
    assert.ok(rest.length >= 3);
    assert.deepEqual(byId(await onA.waitForEvents(rest.length)), byId(rest));
    onA.close();
  });
});
