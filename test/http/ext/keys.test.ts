/**
 * /ext/keys (issue 23; docs/security.md): a key with keys:manage lists the account's keys (never a
 * secret), makes keys within its own limits (the secret shown once) and deletes them; creation and
 * deletion are logged with the calling key as actor.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { makeKey, simNow } from '../../support/scoped-keys.ts';
import {
  answer,
  LOCK_A,
  LOCK_B,
  OTHER_KEY,
  OTHER_LOCK,
  OWNER_KEY,
  startServer,
  type TestServer,
} from '../../support/server.ts';

const post = (t: TestServer, key: string, json: unknown) =>
  t.request('/ext/keys', { method: 'POST', key, json });

describe('/ext/keys', () => {
  let t: TestServer;
  before(async () => {
    t = await startServer({ flags: ['--no-rate-limit'] });
  });
  after(() => t.close());

  it('makes a limited key, shows its secret once, lists it, and deletes it (401 at once)', async () => {
    const now = await simNow(t);
    const expires = new Date(now + 86_400_000).toISOString();
    const res = await post(t, OWNER_KEY, {
      name: 'door bot',
      scopes: ['locks:operate', 'locks:read'],
      lock_ids: [LOCK_A],
      expires_at: expires,
    });
    const made = (await res.json()) as Record<string, unknown>;
    assert.equal(res.status, 201, JSON.stringify(made));
    assert.match(String(made.key), /^lck_/);
    assert.ok(String(made.key).startsWith(String(made.prefix)));
    assert.deepEqual(
      { ...made, id: undefined, key: undefined, prefix: undefined, created_at: undefined },
      {
        id: undefined,
        key: undefined,
        prefix: undefined,
        created_at: undefined,
        name: 'door bot',
        scopes: ['locks:read', 'locks:operate'],
        lock_ids: [LOCK_A],
        expires_at: expires,
        last_used_at: null,
        last_used_ip: null,
      },
    );
    const list = (await (await t.request('/ext/keys', { key: OWNER_KEY })).json()) as {
      keys: Record<string, unknown>[];
    };
    const listed = list.keys.find((k) => k.id === made.id);
    assert.ok(listed);
    assert.equal(listed.key, undefined, 'the secret is shown once');
    assert.ok(!JSON.stringify(list).includes(String(made.key)));
    assert.equal((await t.request(`/public/lock/${LOCK_A}`, { key: String(made.key) })).status, 200);
    const gone = await t.request(`/ext/keys/${made.id}`, { method: 'DELETE', key: OWNER_KEY });
    assert.equal(gone.status, 204);
    assert.equal((await t.request(`/public/lock/${LOCK_A}`, { key: String(made.key) })).status, 401);
    // Both logged, with the calling key as actor.
    const events = (await (
      await t.request('/ext/events?type=api_key.&limit=500', { key: OWNER_KEY })
    ).json()) as {
      events: { type: string; actor: Record<string, unknown>; data: Record<string, unknown> }[];
    };
    const ofKey = events.events.filter((e) => e.data.key_id === made.id);
    assert.deepEqual(
      ofKey.map((e) => [e.type, e.actor.kind, e.actor.key_prefix]),
      [
        ['api_key.created', 'api_key', OWNER_KEY.slice(0, 6)],
        ['api_key.deleted', 'api_key', OWNER_KEY.slice(0, 6)],
      ],
    );
  });

  it('refuses a bad body with 400 naming the field', async () => {
    for (const [body, field] of [
      [{ scopes: ['locks:write'] }, 'scopes'],
      [{ scopes: [] }, 'scopes'],
      [{ lock_ids: [] }, 'lock_ids'],
      [{ expires_at: '2020-01-01T00:00:00Z' }, 'expires_at'],
      [{ expires_at: 'tomorrow' }, 'expires_at'],
      [{ name: '' }, 'name'],
      [{ colour: 'red' }, 'additional properties'],
    ] as const) {
      const res = await answer(await post(t, OWNER_KEY, body));
      assert.equal(res.status, 400, JSON.stringify(body));
      const b = res.body as { error: string; message: string };
      assert.equal(b.error, 'BAD_PARAMS');
      assert.match(b.message, new RegExp(field), JSON.stringify(res));
    }
  });

  it('refuses a lock the account does not own, naming lock_ids', async () => {
    const res = await answer(await post(t, OWNER_KEY, { lock_ids: [OTHER_LOCK] }));
    assert.equal(res.status, 400);
    assert.match((res.body as { message: string }).message, /^lock_ids: /);
    const other = await answer(await post(t, OTHER_KEY, { lock_ids: [LOCK_A] }));
    assert.equal(other.status, 400, 'a lock shared with the account is not its own');
  });

  it('refuses limits beyond the calling key with 403', async () => {
    const now = await simNow(t);
    const { key } = await makeKey(t, {
      scopes: ['keys:manage', 'locks:read'],
      lock_ids: [LOCK_A],
      expires_at: new Date(now + 3_600_000).toISOString(),
    });
    const within = {
      scopes: ['locks:read'],
      lock_ids: [LOCK_A],
      expires_at: new Date(now + 60_000).toISOString(),
    };
    assert.equal((await post(t, key, within)).status, 201);
    for (const wider of [
      { ...within, scopes: ['locks:operate'] },
      { ...within, scopes: null },
      { ...within, lock_ids: [LOCK_A, LOCK_B] },
      { ...within, lock_ids: null },
      { ...within, expires_at: new Date(now + 7_200_000).toISOString() },
      { ...within, expires_at: null },
    ]) {
      const res = await post(t, key, wider);
      assert.equal(res.headers.get('retry-after'), null);
      const a = await answer(res);
      assert.equal(a.status, 403, JSON.stringify(wider));
      assert.equal((a.body as { error: string }).error, 'ACCESS_DENY');
    }
  });

  it('answers 404 for a key not the account, and 403 to a key without keys:manage', async () => {
    const { id } = await makeKey(t, {}, OTHER_KEY);
    const foreign = await t.request(`/ext/keys/${id}`, { method: 'DELETE', key: OWNER_KEY });
    assert.deepEqual(await answer(foreign), {
      status: 404,
      body: { error: 'NOT_FOUND', message: 'no such API key' },
    });
    const unknown = await t.request('/ext/keys/no-such-key', { method: 'DELETE', key: OWNER_KEY });
    assert.equal(unknown.status, 404);
    const { key } = await makeKey(t, { scopes: ['locks:read'] });
    const lacks = {
      status: 403,
      body: { error: 'ACCESS_DENY', message: 'the API key lacks the scope keys:manage' },
    };
    assert.deepEqual(await answer(await t.request('/ext/keys', { key })), lacks);
    assert.deepEqual(await answer(await post(t, key, {})), lacks);
    assert.deepEqual(await answer(await t.request(`/ext/keys/${id}`, { method: 'DELETE', key })), lacks);
  });
});
