/**
 * The operator's endpoints on the API port, outside every API surface and its auth: `/healthz` (the
 * process answers) and `/readyz` (its dependencies answer, and it is not shutting down); and the
 * request metrics, counted here and served on a listener of their own (metrics-listener.ts), never
 * on this port. Also what shutting down means for requests: from the moment the server starts
 * closing, readiness fails and a request arriving on a connection still open is answered 503 at
 * once, while the requests already in flight run to their end.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ReadinessCheck } from '../app/ports.ts';

export type { ReadinessCheck };

/** Request metrics and their exposition (metrics-listener.ts); the composition root picks the implementation. */
export interface HttpMetrics {
  /** `route` is the route's pattern (`/public/lock/:id`), never the raw URL. */
  observeRequest(method: string, route: string, statusCode: number, seconds: number): void;
  scrape(): Promise<{ readonly contentType: string; readonly body: string }>;
}

export interface OpsOptions {
  readonly checks: readonly ReadinessCheck[];
  /** The longest one check may take before it counts as failed: readiness never hangs. */
  readonly checkTimeoutMs?: number;
  readonly metrics?: HttpMetrics;
}

export const DEFAULT_CHECK_TIMEOUT_MS = 1000;
/** Requests that reach no route: one label for all of them, so scanners cannot grow the series. */
export const UNMATCHED_ROUTE = 'unmatched';
/** The body of a request refused because the server is shutting down (docs/errors.md). */
export const SHUTTING_DOWN = { error: 'SHUTTING_DOWN' } as const;

const OPS_PATHS: ReadonlySet<string> = new Set(['/healthz', '/readyz']);
const NO_STORE = 'no-store';

interface CheckResult {
  readonly status: 'ok' | 'fail';
  readonly ms: number;
  readonly error?: string;
}

class CheckTimeout extends Error {}

async function runCheck(check: ReadinessCheck, timeoutMs: number): Promise<CheckResult & { err?: unknown }> {
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new CheckTimeout(`no answer within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    // A check that throws synchronously fails like one that rejects.
    await Promise.race([Promise.resolve().then(() => check.check()), timedOut]);
    return { status: 'ok', ms: Math.round(performance.now() - started) };
  } catch (err) {
    // The reason goes to the log, not the body: readiness is unauthenticated and errors name hosts.
    const error = err instanceof CheckTimeout ? 'timeout' : 'failed';
    return { status: 'fail', ms: Math.round(performance.now() - started), error, err };
  } finally {
    clearTimeout(timer);
  }
}

const routeOf = (request: FastifyRequest): string => request.routeOptions.url ?? UNMATCHED_ROUTE;

/**
 * Registers the hooks and the two routes. Call it before the API plugins: their routes only get
 * the hooks registered before them.
 */
export function registerOps(app: FastifyInstance, options: OpsOptions): void {
  const timeoutMs = options.checkTimeoutMs ?? DEFAULT_CHECK_TIMEOUT_MS;
  const { metrics } = options;
  let shuttingDown = false;
  let inFlight = 0;
  let lastFailing = '';
  // Once the requests in flight have their answers, the connections left carry none: idle ones
  // Node closes itself, but one opened and silent (a proxy's spare) or halfway through its request
  // line counts as busy and would hold the close for the whole grace. Nothing is lost cutting them.
  const closeLeftovers = (): void => {
    if (shuttingDown && inFlight === 0) setImmediate(() => app.server.closeAllConnections());
  };

  // Fastify's preClose runs once close() has begun and just before the listener stops accepting.
  app.addHook('preClose', (done) => {
    shuttingDown = true;
    closeLeftovers();
    done();
  });
  // Callback-style hooks: they run on every request and never wait, so no promise for each.
  // One listener for every request, not a closure each: a response emits 'close' once.
  const requestClosed = (): void => {
    inFlight--;
    closeLeftovers();
  };
  app.addHook('onRequest', (request, reply, done) => {
    inFlight++;
    reply.raw.on('close', requestClosed);
    if (!shuttingDown || OPS_PATHS.has(routeOf(request))) return done();
    // A request on a connection still open while the in-flight ones drain: answered, not run.
    reply.code(503).header('connection', 'close').send(SHUTTING_DOWN);
  });
  app.addHook('onSend', (_request, reply, payload, done) => {
    // Keep-alive connections end with their answer, so the drain is not held up by idle sockets.
    if (shuttingDown) reply.header('connection', 'close');
    done(null, payload);
  });
  if (metrics) {
    app.addHook('onResponse', (request, reply, done) => {
      metrics.observeRequest(request.method, routeOf(request), reply.statusCode, reply.elapsedTime / 1000);
      done();
    });
  }

  const hidden = { schema: { hide: true } } as const;
  app.get('/healthz', hidden, async (_request, reply) =>
    reply.header('cache-control', NO_STORE).send({ status: 'ok' }),
  );

  app.get('/readyz', hidden, async (request, reply) => {
    reply.header('cache-control', NO_STORE);
    if (shuttingDown) return reply.code(503).send({ status: 'shutting down' });
    const results = await Promise.all(options.checks.map((check) => runCheck(check, timeoutMs)));
    const checks: Record<string, CheckResult> = {};
    const failing: string[] = [];
    const reasons: Record<string, string> = {};
    let unready = false;
    options.checks.forEach((check, i) => {
      const { err, ...result } = results[i] ?? { status: 'fail' as const, ms: 0 };
      checks[check.name] = result;
      if (result.status === 'fail') {
        failing.push(check.name);
        reasons[check.name] = err instanceof Error ? err.message : String(err);
        if (check.critical !== false) unready = true;
      }
    });
    // A log line when readiness changes, not one per probe: load balancers probe every few seconds.
    const now = failing.join(',');
    if (now !== lastFailing) {
      if (failing.length === 0) request.log.info({}, 'ready again');
      else request.log.warn({ failing: reasons }, unready ? 'not ready' : 'degraded');
      lastFailing = now;
    }
    if (unready) return reply.code(503).send({ status: 'unavailable', failing, checks });
    if (failing.length > 0) return reply.send({ status: 'degraded', failing, checks });
    return reply.send({ status: 'ok', checks });
  });
}
