/**
 * What each API-key route needs of its key (issue 23): a route of v3 and /ext names its scope in
 * its options, `config: { scope: 'locks:read' }`, and the surface's key check refuses a key without
 * it (docs/security.md). Declared once here so every route is typed the same way.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Scope } from '../domain/scope.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The scope an API key needs for this route; absent on routes no key reaches. */
    scope?: Scope;
  }
}

/** The scope the matched route declares; undefined when it declares none (or no route matched). */
export function routeScope(request: FastifyRequest): Scope | undefined {
  return request.routeOptions.config.scope;
}

/** "GET /ext/locks/:device_id" -> its scope: every key route registered in this process. */
export const DECLARED_SCOPES = new Map<string, Scope>();

/**
 * Makes every route registered in `app` (and the plugins it registers afterwards) declare its scope:
 * one that does not stops the server at start, so a route cannot be added that a scoped key reaches
 * unchecked. The routes are recorded in DECLARED_SCOPES for test/authz/route-scopes.test.ts.
 */
export function requireRouteScopes(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    const scope = route.config?.scope;
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) {
      const name = `${method} ${route.url}`;
      if (scope === undefined) throw new Error(`${name} takes an API key but declares no config.scope`);
      DECLARED_SCOPES.set(name, scope);
    }
  });
}
