/**
 * Every route that takes an API key (v3 under /public, the extension API under /ext) declares the
 * scope a key needs for it (issue 23, docs/security.md): this reads the routes the running server
 * registered and fails on one without a scope, and holds the known routes to the documented scope.
 * A route added later (grants, keys) must declare one, or this fails (and the server does not start:
 * requireRouteScopes, src/http/route-scope.ts).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SCOPES, type Scope } from '../../src/domain/scope.ts';
import { DECLARED_SCOPES } from '../../src/http/route-scope.ts';
import { parseRouteTree } from '../support/route-tree.ts';
import { startServer, type TestServer } from '../support/server.ts';

/** The scopes docs/security.md gives, by route; the ones not named here must still declare one. */
const DOCUMENTED: Readonly<Record<string, Scope>> = {
  'GET /public/locks': 'locks:read',
  'GET /public/lock/:device_id': 'locks:read',
  'GET /public/action-result': 'locks:read',
  'POST /public/lock/:device_id': 'locks:operate',
  'POST /public/partners/automation': 'locks:operate',
  'GET /ext/locks': 'locks:read',
  'GET /ext/locks/:device_id': 'locks:read',
  'PATCH /ext/locks/:device_id': 'locks:operate',
  'GET /ext/events': 'events:read',
  'GET /ext/events/stream': 'events:read',
  'GET /ext/webhook': 'webhooks:manage',
  'PUT /ext/webhook': 'webhooks:manage',
  'DELETE /ext/webhook': 'webhooks:manage',
  'POST /ext/webhook/rotate-secret': 'webhooks:manage',
  'POST /ext/webhook/test': 'webhooks:manage',
  'GET /ext/webhook/deliveries': 'webhooks:manage',
  'POST /ext/webhook/deliveries/:id/resend': 'webhooks:manage',
};

const takesKey = (route: string) => / \/(public|ext)\//.test(route);

describe('every API-key route declares its scope', () => {
  let t: TestServer;
  before(async () => {
    t = await startServer();
  });
  after(() => t.close());

  it('finds a declared scope for every route under /public and /ext', () => {
    const routes = parseRouteTree(t.server.http.printRoutes({ commonPrefix: false })).filter(takesKey);
    assert.ok(routes.length >= Object.keys(DOCUMENTED).length, routes.join('\n'));
    const undeclared = routes.filter((r) => !SCOPES.includes(DECLARED_SCOPES.get(r) as Scope));
    assert.deepEqual(undeclared, [], 'routes that take an API key but declare no config.scope');
  });

  it('gives each documented route its documented scope', () => {
    for (const [route, scope] of Object.entries(DOCUMENTED))
      assert.equal(DECLARED_SCOPES.get(route), scope, route);
    for (const [route, scope] of DECLARED_SCOPES)
      if (
        route.startsWith('GET /ext/webhook-endpoints') ||
        /^(POST|PATCH|PUT|DELETE) \/ext\/webhook-endpoints/.test(route)
      )
        assert.equal(scope, 'webhooks:manage', route);
  });
});
