/**
 * Part of the composition root: what readiness checks (the database, Redis when the rate limits
 * live there, the MQTT broker) and how the HTTP front drains at shutdown.
 */
import type { FastifyInstance } from 'fastify';
import type { MqttGateway } from './adapters/devices/mqtt/gateway.ts';
import { RedisRateLimitStore } from './adapters/rate-limit/redis.ts';
import { RedisEventBus } from './adapters/system/redis-event-bus.ts';
import type { EventBus, Logger, RateLimitStore, Store } from './app/ports.ts';
import type { ReadinessCheck } from './http/ops.ts';

export function readinessChecks(
  store: Store,
  gateway: MqttGateway,
  rateLimits: RateLimitStore | undefined,
  events?: EventBus,
): ReadinessCheck[] {
  const checks: ReadinessCheck[] = [
    { name: 'database', check: () => store.ping() },
    {
      name: 'broker',
      // The gateway's own MQTT connection: without it no command can reach a lock.
      check: async () => {
        if (!gateway.connected) throw new Error('the device link is not connected to the broker');
      },
    },
  ];
  // Redis away degrades, it does not stop the service (ops.ts `critical`): the limits fall back to
  // memory, and a v1 control waiting here for a device that answered elsewhere waits for the deadline.
  if (rateLimits instanceof RedisRateLimitStore)
    checks.push({ name: 'redis', critical: false, check: () => rateLimits.ping() });
  if (events instanceof RedisEventBus)
    checks.push({ name: 'events', critical: false, check: () => events.ping() });
  return checks;
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
