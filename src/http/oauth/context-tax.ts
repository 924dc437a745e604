import context from 'oidc-provider/lib/helpers/als.js';

/**
 * oidc-provider runs each request it handles in an AsyncLocalStorage (`als.run(ctx, ...)`, its
 * lib/helpers/initialize_app.js), so that its token models can read the request's context. On Node
 * 20 and 22 the first such run turns on async_hooks' promise hooks for the whole process, and they
 * stay on: after a single OAuth request, every request the server answers afterwards (v1, v3, /ext)
 * pays for them on each of its promises. Measured (server CPU per GET /public/lock/{id}, pinned, four
 * rounds): 23.5 and 23.7 us on a server that had served no OAuth request, 32.6 and 34.4 us on one
 * that had served one authorization flow.
 *
 * So the storage is switched off whenever no OAuth request is in flight; its next `run` switches it
 * back on. Nothing of oidc-provider reads it outside a request (a run's context ends with it), and
 * the requests are counted from before they reach oidc-provider until its handler has answered.
 */
// Per process, as the storage is: every server in this process (tests run several) counts here.
let inFlight = 0;

/** Runs one request through oidc-provider's handler, switching its storage off once none is left. */
export async function withOidcContext(handle: () => unknown): Promise<void> {
  inFlight++;
  try {
    await handle();
  } finally {
    inFlight--;
    if (inFlight === 0) context.disable();
  }
}

/** Whether oidc-provider's storage is switched on now (for the tests). */
export function oidcContextOn(): boolean {
  return (context as unknown as { enabled?: boolean }).enabled === true;
}
