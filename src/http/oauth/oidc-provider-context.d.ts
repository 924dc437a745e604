/**
 * oidc-provider's own module holding each request's context (`Provider.ctx`): not part of its typed
 * API, so typed here. context-tax.ts says why lockcloud reaches for it.
 */
declare module 'oidc-provider/lib/helpers/als.js' {
  import type { AsyncLocalStorage } from 'node:async_hooks';

  const context: AsyncLocalStorage<unknown>;
  export default context;
}
