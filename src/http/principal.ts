import type { Principal } from '../app/auth.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** Who the request acts for; set by the version's auth hook before any handler runs. */
    principal: Principal | undefined;
  }
}

export function requirePrincipal(principal: Principal | undefined): Principal {
  // The auth hooks run before every handler that calls this; reaching it without one is our bug.
  if (!principal) throw new Error('handler ran without an authenticated principal');
  return principal;
}
