/**
 * Issue 23 on PostgreSQL with several processes: a grant made on one process is answered on
 * another and used on a third; its revocation is seen by the next request to any process; a scoped
 * key made on one is held to its scope on the others, on /ext and on v3.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Seed } from '../../src/app/seed/schema.ts';
import { type Cluster, startCluster } from '../support/cluster.ts';
import { eventually } from '../support/eventually.ts';

const OWNER = 'owner@example.com';
const GUEST = 'guest@example.com';
const OWNER_KEY = 'grants-cluster-owner-key-01';
const GUEST_KEY = 'grants-cluster-guest-key-01';
const AP = '00000000-0000-4000-8000-0000000000a1';
const LOCK = '00000000-0000-4000-8000-000000000a01';

const seed: Seed = {
  accounts: [
    { email: OWNER, password: 'owner-password-1', verified: true },
    { email: GUEST, password: 'guest-password-1', verified: true },
  ],
  api_keys: [
    { account: OWNER, key: OWNER_KEY },
    { account: GUEST, key: GUEST_KEY },
  ],
  access_points: [{ id: AP, account: OWNER, secret: 'grants-cluster-ap-secret-1' }],
  locks: [{ device_id: LOCK, owner: OWNER, locked: true, access_point_id: AP, latency_ms: 0 }],
};

describe('grants and scoped keys across three processes on PostgreSQL', () => {
  let cluster: Cluster;
  const send = async (n: number, path: string, key: string, method = 'GET', json?: unknown) => {
    const res = await fetch(`${cluster.servers[n % 3]?.url}${path}`, {
      method,
      headers: { authorization: key, ...(json === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(json === undefined ? {} : { body: JSON.stringify(json) }),
    });
    const text = await res.text();
    return { status: res.status, body: (text === '' ? null : JSON.parse(text)) as Record<string, unknown> };
  };

  before(async () => {
    cluster = await startCluster({ servers: 3, seed });
    for (let n = 0; n < 3; n++)
      await eventually(
        `the lock responsive on process ${n}`,
        async () => (await send(n, `/public/lock/${LOCK}`, OWNER_KEY)).body?.responsive === true,
        { timeoutMs: 30_000, everyMs: 50 },
      );
  });
  after(() => cluster?.close());

  it('invited on one process, accepted on another, used on a third; revoked, refused at once', async () => {
    const invited = await send(0, `/ext/locks/${LOCK}/grants`, OWNER_KEY, 'POST', {
      email: GUEST,
      role: 'operate',
    });
    assert.equal(invited.status, 201, JSON.stringify(invited.body));
    const grantId = invited.body.id as string;
    const pending = await send(1, '/ext/invitations', GUEST_KEY);
    assert.deepEqual(
      (pending.body.invitations as { id: string }[]).map((g) => g.id),
      [grantId],
    );
    assert.equal((await send(1, `/ext/invitations/${grantId}/accept`, GUEST_KEY, 'POST')).status, 200);

    const sent = await send(2, `/ext/locks/${LOCK}/commands`, GUEST_KEY, 'POST', { command: 'unlock' });
    assert.equal(sent.status, 202, JSON.stringify(sent.body));
    const taskId = sent.body.task_id as string;
    const ended = await eventually('the guest command to end', async () => {
      const task = await send(0, `/ext/tasks/${taskId}`, GUEST_KEY);
      return task.body.status === 'terminated' && task.body;
    });
    assert.equal(ended.successful, true, JSON.stringify(ended));
    const events = await send(1, `/ext/events?device_id=${LOCK}&type=command.&order=newest-first`, OWNER_KEY);
    const mine = (
      events.body.events as { task_id: string; actor: { kind: string; grant_id?: string } }[]
    ).filter((e) => e.task_id === taskId);
    assert.ok(mine.length >= 1, JSON.stringify(events.body));
    for (const e of mine) assert.deepEqual([e.actor.kind, e.actor.grant_id], ['grant', grantId]);

    assert.equal((await send(0, `/ext/locks/${LOCK}/grants/${grantId}`, OWNER_KEY, 'DELETE')).status, 204);
    // The next request, on each other process, without waiting.
    for (const n of [1, 2]) {
      const refused = await send(n, `/ext/locks/${LOCK}/commands`, GUEST_KEY, 'POST', { command: 'lock' });
      assert.equal(refused.status, 404, `process ${n}: ${JSON.stringify(refused.body)}`);
      assert.equal((await send(n, `/ext/locks/${LOCK}`, GUEST_KEY)).status, 404, `process ${n}: the lock`);
    }
  });

  it('holds a scoped key made on one process to its scope on the others, on /ext and v3', async () => {
    const made = await send(0, '/ext/keys', OWNER_KEY, 'POST', {
      name: 'read only',
      scopes: ['locks:read'],
      lock_ids: [LOCK],
    });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    const key = made.body.key as string;
    for (const n of [1, 2]) {
      assert.equal((await send(n, `/public/lock/${LOCK}`, key)).status, 200, `process ${n}: a read`);
      assert.deepEqual(await send(n, `/public/lock/${LOCK}`, key, 'POST', { command: 'unlock' }), {
        status: 403,
        body: { error: 'ACCESS_DENY' },
      });
      const ext = await send(n, `/ext/locks/${LOCK}/commands`, key, 'POST', { command: 'unlock' });
      assert.deepEqual(ext, {
        status: 403,
        body: { error: 'ACCESS_DENY', message: 'the API key lacks the scope locks:operate' },
      });
    }
    // Deleted on one process: refused by the next request on the others.
    const keyId = made.body.id as string;
    assert.equal((await send(0, `/ext/keys/${keyId}`, OWNER_KEY, 'DELETE')).status, 204);
    for (const n of [1, 2])
      assert.equal((await send(n, `/public/lock/${LOCK}`, key)).status, 401, `process ${n}: deleted key`);
  });
});
