/**
 * Every API-key route against keys it must refuse (issue 23, docs/security.md "Scoped, expiring API
 * keys"): read from the running server's route table, each route of v3 and /ext is sent with a key
 * holding every scope but the one it needs, with an expired key, and (routes about one lock) with a
 * key limited to another lock. Each answer is the surface's documented refusal, and no row of the
 * store changes, not even the key's last use.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { BetterSqlite3, type SqliteConnection } from '../../src/adapters/stores/sqlite/better-sqlite3.ts';
import { hasScope, SCOPES, type Scope } from '../../src/domain/scope.ts';
import { DECLARED_SCOPES } from '../../src/http/route-scope.ts';
import { PARTNER, sendToRoute } from '../support/route-request.ts';
import { parseRouteTree } from '../support/route-tree.ts';
import { makeKey, simNow } from '../support/scoped-keys.ts';
import { seededDevicesReported } from '../support/seeded-devices.ts';
import { advanceClock, answer, LOCK_A, LOCK_B, startServer, type TestServer } from '../support/server.ts';

/**
 * Every row of every table, as text by table: what a refusal must leave as it was. The webhook
 * relay's read position is left out: it follows the event log in the background (the keys made
 * here are events), whatever the requests do.
 */
function snapshot(db: SqliteConnection): Map<string, string> {
  const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as {
    name: string;
  }[];
  return new Map(
    tables
      .filter(({ name }) => name !== 'webhook_relay')
      .map(({ name }) => [name, JSON.stringify(db.prepare(`SELECT * FROM "${name}"`).raw().all())]),
  );
}

/** The tables whose rows differ, with their rows after. */
function changed(before: Map<string, string>, after: Map<string, string>): string[] {
  return [...after]
    .filter(([name, rows]) => before.get(name) !== rows)
    .map(([name, rows]) => `${name}: ${rows.slice(0, 400)}`);
}

const send = (t: TestServer, route: string, key: string, deviceId = LOCK_A): Promise<Response> =>
  sendToRoute(t, route, key, key, deviceId);

describe('every key route refuses keys beyond their limits, and changes nothing', () => {
  let t: TestServer;
  let db: SqliteConnection;
  let routes: string[];
  before(async () => {
    t = await startServer({ flags: ['--no-rate-limit'] });
    db = new BetterSqlite3(join(t.dataDir, 'lockcloud.sqlite'), { readonly: true });
    routes = parseRouteTree(t.server.http.printRoutes({ commonPrefix: false })).filter(
      (r) => / \/(public|ext)\//.test(r) && !r.startsWith('HEAD '),
    );
    await seededDevicesReported(db);
  });
  after(async () => {
    db.close();
    await t.close();
  });

  /** Sends and checks the answer, and that the store is as it was. */
  async function refused(route: string, request: () => Promise<Response>, want: object, why: string) {
    const before = snapshot(db);
    const res = await request();
    assert.equal(res.headers.get('retry-after'), null, `${why} ${route}: no Retry-After`);
    assert.deepEqual(await answer(res), want, `${why} ${route}`);
    assert.deepEqual(changed(before, snapshot(db)), [], `${why} ${route}: the store changed`);
  }

  it('refuses a key without the route scope: 403 ACCESS_DENY in the surface shape', async () => {
    const keys = new Map<Scope, string>();
    for (const need of SCOPES) {
      // Every scope that does not give `need` (locks:operate gives locks:read).
      const others = SCOPES.filter((s) => !hasScope([s], need));
      keys.set(need, (await makeKey(t, { scopes: others })).key);
    }
    assert.ok(routes.length > 20, routes.join('\n'));
    for (const route of routes) {
      const need = DECLARED_SCOPES.get(route);
      assert.ok(need, `${route} declares its scope`);
      const v3 = route.includes(' /public/');
      const want = v3
        ? { status: 403, body: { error: 'ACCESS_DENY' } }
        : { status: 403, body: { error: 'ACCESS_DENY', message: `the API key lacks the scope ${need}` } };
      await refused(route, () => send(t, route, keys.get(need) as string), want, 'without its scope:');
    }
  });

  it('refuses a key limited to another lock as the lock of no account', async () => {
    const { key } = await makeKey(t, { lock_ids: [LOCK_A] });
    const aboutALock = routes.filter((r) => r.includes(':device_id') || r === PARTNER);
    assert.ok(aboutALock.length >= 5, aboutALock.join('\n'));
    for (const route of aboutALock) {
      const want = route.includes(' /public/')
        ? { status: 400, body: { error: 'BAD_PARAMS' } }
        : { status: 404, body: { error: 'NOT_FOUND', message: 'no such lock' } };
      await refused(route, () => send(t, route, key, LOCK_B), want, 'a lock outside the key:');
    }
  });

  it('refuses an expired key on every route: 401 UNAUTHORIZED', async () => {
    const now = await simNow(t);
    const { key } = await makeKey(t, { expires_at: new Date(now + 60_000).toISOString() });
    await advanceClock(t, 60);
    for (const route of routes)
      await refused(
        route,
        () => send(t, route, key),
        { status: 401, body: { error: 'UNAUTHORIZED' } },
        'expired:',
      );
  });
});
