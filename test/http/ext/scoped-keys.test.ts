/**
 * /ext with scoped, expiring API keys (issue 23; docs/errors.md, Extension API): a missing scope is
 * 403 ACCESS_DENY naming it, without Retry-After; a lock outside the key is 404 as a lock not shared;
 * an expired key is 401; lists and the event log show the key's locks only; last use records the
 * client address.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { makeKey, simNow } from '../../support/scoped-keys.ts';
import {
  advanceClock,
  answer,
  LOCK_A,
  LOCK_B,
  OWNER_KEY,
  sendCommand,
  simLockOk,
  startServer,
  type TestServer,
  waitForTask,
} from '../../support/server.ts';
import { SseClient } from '../../support/sse.ts';

const lacks = (scope: string) => ({
  status: 403,
  body: { error: 'ACCESS_DENY', message: `the API key lacks the scope ${scope}` },
});

describe('/ext with scoped keys', () => {
  let t: TestServer;
  before(async () => {
    t = await startServer({ flags: ['--no-rate-limit'] });
  });
  after(() => t.close());

  it('allows each scope its routes and refuses the others naming the scope, without Retry-After', async () => {
    const cases: [string, string, string, unknown?][] = [
      ['locks:read', 'GET', '/ext/locks'],
      ['locks:read', 'GET', `/ext/locks/${LOCK_A}`],
      ['locks:operate', 'PATCH', `/ext/locks/${LOCK_A}`, { nickname: 'Front door' }],
      ['events:read', 'GET', '/ext/events'],
      ['webhooks:manage', 'GET', '/ext/webhook-endpoints'],
      ['webhooks:manage', 'GET', '/ext/webhook/deliveries'],
      ['keys:manage', 'GET', '/ext/keys'],
    ];
    for (const [scope, method, path, json] of cases) {
      const { key: allowed } = await makeKey(t, { scopes: [scope] });
      const ok = await t.request(path, { method, key: allowed, ...(json === undefined ? {} : { json }) });
      assert.equal(ok.status, 200, `${scope} ${method} ${path}: ${await ok.text()}`);
      const other = scope === 'events:read' ? 'webhooks:manage' : 'events:read';
      const { key: refused } = await makeKey(t, { scopes: [other] });
      const res = await t.request(path, { method, key: refused, ...(json === undefined ? {} : { json }) });
      assert.equal(res.headers.get('retry-after'), null, `${method} ${path}`);
      assert.deepEqual(await answer(res), lacks(scope), `${other} on ${method} ${path}`);
    }
    // locks:operate implies locks:read; locks:read does not imply locks:operate.
    const { key: operate } = await makeKey(t, { scopes: ['locks:operate'] });
    assert.equal((await t.request(`/ext/locks/${LOCK_A}`, { key: operate })).status, 200);
    const { key: read } = await makeKey(t, { scopes: ['locks:read'] });
    const patch = await t.request(`/ext/locks/${LOCK_A}`, { method: 'PATCH', key: read, json: {} });
    assert.deepEqual(await answer(patch), lacks('locks:operate'));
    const stream = await t.request('/ext/events/stream', { key: read });
    assert.deepEqual(await answer(stream), lacks('events:read'));
  });

  it('shows a lock-limited key its locks only: lists, reads, events', async () => {
    const { key } = await makeKey(t, { lock_ids: [LOCK_A] });
    const list = (await (await t.request('/ext/locks', { key })).json()) as {
      locks: { device_id: string }[];
    };
    assert.deepEqual(
      list.locks.map((l) => l.device_id),
      [LOCK_A],
    );
    const notFound = { status: 404, body: { error: 'NOT_FOUND', message: 'no such lock' } };
    assert.deepEqual(await answer(await t.request(`/ext/locks/${LOCK_B}`, { key })), notFound);
    const patch = await t.request(`/ext/locks/${LOCK_B}`, { method: 'PATCH', key, json: { nickname: 'x' } });
    assert.deepEqual(await answer(patch), notFound);
    // Events of both locks, and of the account (api_key.created): the key sees lock A's only.
    for (const id of [LOCK_A, LOCK_B]) {
      const res = await sendCommand(t, id, 'unlock');
      await waitForTask(t, ((await res.json()) as { task_id: string }).task_id);
    }
    const all = (await (await t.request('/ext/events?limit=500', { key: OWNER_KEY })).json()) as {
      events: { device_id: string | null }[];
    };
    assert.ok(all.events.some((e) => e.device_id === LOCK_B));
    assert.ok(all.events.some((e) => e.device_id === null));
    const mine = (await (await t.request('/ext/events?limit=500', { key })).json()) as {
      events: { device_id: string | null }[];
    };
    assert.ok(mine.events.length > 0);
    assert.deepEqual(new Set(mine.events.map((e) => e.device_id)), new Set([LOCK_A]));
    const other = await t.request(`/ext/events?device_id=${LOCK_B}`, { key });
    assert.deepEqual(await answer(other), { status: 200, body: { events: [], next_cursor: null } });
  });

  it('streams a lock-limited key its locks events only, and ends an expiring key stream at its expiry', async () => {
    const now = await simNow(t);
    const { key } = await makeKey(t, {
      lock_ids: [LOCK_A],
      expires_at: new Date(now + 600_000).toISOString(),
    });
    const s = await SseClient.open(`${t.url}/ext/events/stream`, { authorization: key });
    try {
      assert.equal(s.status, 200);
      await s.waitFor('the retry line', (f) => f.length >= 1);
      // Lock B turned both ways, an account event (api_key.created), then lock A both ways: each
      // pair moves its lock whatever state it was in.
      for (const locked of [true, false]) await simLockOk(t, LOCK_B, { locked });
      await makeKey(t, {});
      for (const locked of [true, false]) await simLockOk(t, LOCK_A, { locked });
      const [first] = await s.waitForEvents(1);
      assert.equal(first?.device_id, LOCK_A);
      await advanceClock(t, 600);
      await s.waitForEnd();
      assert.deepEqual(
        s.events.map((e) => e.device_id),
        s.events.map(() => LOCK_A),
        'only lock A events',
      );
      assert.ok(
        s.frames.some((f) => f.event === 'close' && f.data?.includes('unauthorized')),
        JSON.stringify(s.frames),
      );
    } finally {
      s.close();
    }
  });

  it('refuses an expired key with 401, as an unknown one', async () => {
    const now = await simNow(t);
    const { key } = await makeKey(t, { expires_at: new Date(now + 60_000).toISOString() });
    assert.equal((await t.request('/ext/locks', { key })).status, 200);
    await advanceClock(t, 61);
    assert.deepEqual(await answer(await t.request('/ext/locks', { key })), {
      status: 401,
      body: { error: 'UNAUTHORIZED' },
    });
  });

  it('records the last use and its client address', async () => {
    const made = await makeKey(t, { scopes: ['locks:read'], name: 'reader' });
    const before = await (await t.request('/ext/keys', { key: OWNER_KEY })).json();
    const unused = (before as { keys: Record<string, unknown>[] }).keys.find((k) => k.id === made.id);
    assert.equal(unused?.last_used_at, null);
    assert.equal(unused?.last_used_ip, null);
    await t.request('/ext/locks', { key: made.key });
    const after = (await (await t.request('/ext/keys', { key: OWNER_KEY })).json()) as {
      keys: Record<string, unknown>[];
    };
    const used = after.keys.find((k) => k.id === made.id);
    assert.equal(used?.last_used_ip, '127.0.0.1');
    assert.equal(typeof used?.last_used_at, 'string');
    assert.equal(used?.name, 'reader');
  });
});
