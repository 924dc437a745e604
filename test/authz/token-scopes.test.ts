/**
 * OAuth access tokens in the authorization matrix (issue 24): every route of v3 and /ext, read
 * from the running server's route table, against a token granted every scope but the one the
 * route needs (refused as a key without it is), a token granted only that scope (let through), a
 * token limited to another lock, and an expired token. The tokens come from the real flow: an app,
 * the owner's consent with the scopes and locks picked, the code exchanged by oauth4webapi.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { hasScope, SCOPES, type Scope } from '../../src/domain/scope.ts';
import { DECLARED_SCOPES } from '../../src/http/route-scope.ts';
import type { FormClient } from '../dashboard/support.ts';
import { authorize, discover, exchange, type oauth, registerApp, signedIn } from '../support/oauth.ts';
import { PARTNER, sendToRoute } from '../support/route-request.ts';
import { parseRouteTree } from '../support/route-tree.ts';
import {
  advanceClock,
  answer,
  LOCK_A,
  LOCK_B,
  OTHER,
  OWNER,
  startServer,
  type TestServer,
} from '../support/server.ts';

const send = (t: TestServer, route: string, token: string, deviceId = LOCK_A): Promise<Response> =>
  sendToRoute(t, route, `Bearer ${token}`, token, deviceId);

describe('OAuth tokens against every API route', () => {
  let t: TestServer;
  let as: oauth.AuthorizationServer;
  let browser: FormClient;
  let routes: string[];
  let apps = 0;
  before(async () => {
    t = await startServer({ flags: ['--no-rate-limit'] });
    as = await discover(t);
    browser = await signedIn(t, OWNER, 'owner-password');
    routes = parseRouteTree(t.server.http.printRoutes({ commonPrefix: false })).filter(
      (r) => / \/(public|ext)\//.test(r) && !r.startsWith('HEAD ') && r !== 'GET /ext/events/stream',
    );
  });
  after(() => t.close());

  /** A token of a new app, with the scopes and locks the owner picked. */
  async function token(scopes: readonly Scope[], locks: readonly string[] | null = null): Promise<string> {
    const app = await registerApp(t, OTHER, { name: `Matrix app ${++apps}` });
    const fields = {
      decision: 'allow',
      scope: [...scopes],
      ...(locks === null ? { locks: 'all' } : { locks: 'some', lock: [...locks] }),
    };
    const { callback, verifier } = await authorize(t, browser, as, app, { scope: SCOPES.join(' ') }, fields);
    return (await exchange(as, app, callback, verifier)).access_token;
  }

  it('refuses a token without the route scope: 403 in the surface shape', async () => {
    const tokens = new Map<Scope, string>();
    for (const need of SCOPES) tokens.set(need, await token(SCOPES.filter((s) => !hasScope([s], need))));
    assert.ok(routes.length > 20, routes.join('\n'));
    for (const route of routes) {
      const need = DECLARED_SCOPES.get(route) as Scope;
      const want = route.includes(' /public/')
        ? { status: 403, body: { error: 'ACCESS_DENY' } }
        : {
            status: 403,
            body: { error: 'ACCESS_DENY', message: `the access token lacks the scope ${need}` },
          };
      assert.deepEqual(await answer(await send(t, route, tokens.get(need) as string)), want, route);
    }
  });

  it('lets a token with only the route scope through', async () => {
    const tokens = new Map<Scope, string>();
    for (const scope of SCOPES) tokens.set(scope, await token([scope]));
    for (const route of routes) {
      const need = DECLARED_SCOPES.get(route) as Scope;
      const { status, body } = await answer(await send(t, route, tokens.get(need) as string));
      assert.notEqual(status, 401, `${route}: ${JSON.stringify(body)}`);
      const refusal = JSON.stringify(body);
      const forScope = /lacks the scope/.test(refusal) || refusal === '{"error":"ACCESS_DENY"}';
      assert.ok(status !== 403 || !forScope, `${route}: ${refusal}`);
    }
  });

  it('lets a token with keys:manage make keys within its own limits only: none outliving the token', async () => {
    const keysToken = await token(['keys:manage', 'locks:read'], [LOCK_A]);
    const make = (json: object) =>
      t.request('/ext/keys', { method: 'POST', key: `Bearer ${keysToken}`, json });
    const now = ((await (await t.request('/_sim/clock')).json()) as { epoch_ms: number }).epoch_ms;
    const within = {
      scopes: ['locks:read'],
      lock_ids: [LOCK_A],
      expires_at: new Date(now + 30 * 60_000).toISOString(),
    };
    assert.equal((await make(within)).status, 201);
    assert.equal((await make({ ...within, expires_at: null })).status, 403, 'a key that never expires');
    assert.equal((await make({ ...within, lock_ids: [LOCK_B] })).status, 403, 'another lock');
  });

  it('refuses a token limited to another lock as the lock of no account', async () => {
    const limited = await token([...SCOPES], [LOCK_A]);
    const aboutALock = routes.filter((r) => r.includes(':device_id') || r === PARTNER);
    assert.ok(aboutALock.length >= 5, aboutALock.join('\n'));
    for (const route of aboutALock) {
      const want = route.includes(' /public/')
        ? { status: 400, body: { error: 'BAD_PARAMS' } }
        : { status: 404, body: { error: 'NOT_FOUND', message: 'no such lock' } };
      assert.deepEqual(await answer(await send(t, route, limited, LOCK_B)), want, route);
    }
    // Lists leave the other lock out.
    const listed = await answer(await send(t, 'GET /public/locks', limited));
    assert.deepEqual(
      (listed.body as { device_id: string }[]).map((l) => l.device_id),
      [LOCK_A],
    );
  });

  it('refuses an expired token on every route: 401', async () => {
    const expiring = await token([...SCOPES]);
    await advanceClock(t, 3600);
    for (const route of routes) {
      const { status } = await answer(await send(t, route, expiring));
      assert.equal(status, 401, route);
    }
  });
});
