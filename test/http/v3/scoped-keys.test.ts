/**
 * v3 with scoped, expiring API keys (issue 23; docs/errors.md, v3): a missing scope is 403
 * ACCESS_DENY without Retry-After, a lock outside the key is BAD_PARAMS as a foreign lock, an expired
 * key is 401, and the lock list shows the key's locks only. Full-access keys are the other v3 tests.
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
  startServer,
  type TestServer,
} from '../../support/server.ts';

const DENIED = { status: 403, body: { error: 'ACCESS_DENY' } };
const BAD_PARAMS = { status: 400, body: { error: 'BAD_PARAMS' } };
const lockCommand = (t: TestServer, key: string, id: string) =>
  t.request(`/public/lock/${id}`, { method: 'POST', key, json: { command: 'sync' } });
const partner = (t: TestServer, key: string, id: string) =>
  t.request('/public/partners/automation', {
    method: 'POST',
    json: { apikey: key, device_id: id, command: 'lock' },
  });

describe('v3 with scoped keys', () => {
  let t: TestServer;
  before(async () => {
    t = await startServer();
  });
  after(() => t.close());

  it('lets a locks:read key read and refuses its commands with ACCESS_DENY and no Retry-After', async () => {
    const { key } = await makeKey(t, { scopes: ['locks:read'] });
    assert.equal((await t.request('/public/locks', { key })).status, 200);
    assert.equal((await t.request(`/public/lock/${LOCK_A}`, { key })).status, 200);
    for (const res of [await lockCommand(t, key, LOCK_A), await partner(t, key, LOCK_A)]) {
      assert.equal(res.headers.get('retry-after'), null);
      assert.deepEqual(await answer(res), DENIED);
    }
  });

  it('refuses reads to a key without locks:read, and lets locks:operate read and command', async () => {
    const { key: events } = await makeKey(t, { scopes: ['events:read'] });
    for (const path of ['/public/locks', `/public/lock/${LOCK_A}`, '/public/action-result?task_id=x'])
      assert.deepEqual(await answer(await t.request(path, { key: events })), DENIED, path);
    const { key: operate } = await makeKey(t, { scopes: ['locks:operate'] });
    assert.equal((await t.request(`/public/lock/${LOCK_A}`, { key: operate })).status, 200);
    const res = await lockCommand(t, operate, LOCK_A);
    assert.equal(res.status, 200, JSON.stringify(await answer(res.clone())));
    const { task_id } = (await res.json()) as { task_id: string };
    const result = await t.request(`/public/action-result?task_id=${task_id}`, { key: operate });
    assert.equal(result.status, 200);
  });

  it('answers a lock outside the key as a lock not the account, and lists only the key locks', async () => {
    const { key } = await makeKey(t, { lock_ids: [LOCK_A.toUpperCase()] });
    const list = (await (await t.request('/public/locks', { key })).json()) as { device_id: string }[];
    assert.deepEqual(
      list.map((l) => l.device_id),
      [LOCK_A],
    );
    assert.deepEqual(await answer(await t.request(`/public/lock/${LOCK_B}`, { key })), BAD_PARAMS);
    assert.deepEqual(await answer(await lockCommand(t, key, LOCK_B)), BAD_PARAMS);
    assert.deepEqual(await answer(await partner(t, key, LOCK_B)), BAD_PARAMS);
    assert.equal((await t.request(`/public/lock/${LOCK_A.toUpperCase()}`, { key })).status, 200);
    assert.equal((await partner(t, key, LOCK_A)).status, 200);
    // A task on lock B (made with a full key) does not exist for the key either.
    const other = await lockCommand(t, OWNER_KEY, LOCK_B);
    const { task_id } = (await other.json()) as { task_id: string };
    assert.deepEqual(
      await answer(await t.request(`/public/action-result?task_id=${task_id}`, { key })),
      BAD_PARAMS,
    );
  });

  it('refuses an expired key as an unknown one, from its expiry on', async () => {
    const now = await simNow(t);
    const { key } = await makeKey(t, { expires_at: new Date(now + 120_000).toISOString() });
    assert.equal((await t.request('/public/locks', { key })).status, 200);
    await advanceClock(t, 121);
    const unauthorized = { status: 401, body: { error: 'UNAUTHORIZED' } };
    assert.deepEqual(await answer(await t.request('/public/locks', { key })), unauthorized);
    assert.deepEqual(await answer(await partner(t, key, LOCK_A)), unauthorized);
  });
});
