/**
 * Part of the composition root: what readiness checks and how the HTTP front drains at shutdown.
 * The database is every server's; the other checks come from the adapters that have a backend to
 * lose (the device link, Redis), each naming its own.
 */
import type { FastifyInstance } from 'fastify';
import type { Logger, ReadinessCheck, Store } from './app/ports.ts';

export function readinessChecks(
  store: Store,
  ...contributed: readonly (readonly ReadinessCheck[] | undefined)[]
): ReadinessCheck[] {
  return [{ name: 'database', check: () => store.ping() }, ...contributed.flatMap((checks) => checks ?? [])];
}

/**
 * Closes the HTTP front: readiness fails and the listener stops at once (ops.ts), idle keep-alive
 * connections close, and the requests in flight (a v1 control waiting for its lock, too) get their
 * answers, for up to `graceMs`; then the connections still open are cut.
 */
export async function drainHttp(http: FastifyInstance, graceMs: number, logger: Logger): Promise<void> {
  const closed = http.close();
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<'expired'>((resolve) => {
    timer = setTimeout(() => resolve('expired'), graceMs);
  });
  const how = await Promise.race([closed.then(() => 'drained' as const), expired]);
  clearTimeout(timer);
  if (how === 'expired') {
    logger.warn({ graceMs }, 'requests still in flight at the end of the shutdown grace: cut short');
    http.server.closeAllConnections();
    await closed;
  }
}
