/**
 * What each API-key route needs of its key (issue 23): a route of v3 and /ext names its scope in
 * its options, `config: { scope: 'locks:read' }`, and the surface's key check refuses a key without
 * it (docs/security.md). Declared once here so every route is typed the same way.
 */
import type { FastifyRequest } from 'fastify';
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
