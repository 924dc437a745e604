import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Lockcloud } from '../../app/lockcloud.ts';
import { isDomainError } from '../../domain/errors.ts';
import { requestFault } from '../fastify-errors.ts';
import { prepareUnavailable } from '../unavailable.ts';
import { V3_BAD_PARAMS, V3_INTERNAL_ERROR, V3_NOT_FOUND, V3_UNAVAILABLE, v3Answer } from './errors.ts';
import { authenticateAndLimit, limitAddress, refuseBlocked } from './limits-hook.ts';
import { actionResultRoutes } from './routes/action-result.ts';
import { commandRoutes } from './routes/commands.ts';
import { lockRoutes } from './routes/locks.ts';
import { partnerRoutes } from './routes/partner.ts';

export interface V3Options {
  readonly lockcloud: Lockcloud;
}

function sendV3Error(error: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  // A body that cannot be read on a route that does not exist (or a wrong method): still 404.
  if (request.is404) return reply.code(404).send(V3_NOT_FOUND);
  if (isDomainError(error)) {
    const { status, body } = v3Answer(error);
    const wait = error.details.retryAfterSeconds;
    if ((error.code === 'THROTTLED' || error.code === 'BLOCKED') && wait !== undefined) {
      reply.header('retry-after', String(wait));
    }
    return reply.code(status).send(body);
  }
  const fault = requestFault(error);
  if (fault === 'too-large') return reply.code(413).send(V3_BAD_PARAMS);
  if (fault === 'bad-request') return reply.code(400).send(V3_BAD_PARAMS);
  if (prepareUnavailable(error, request, reply)) return reply.send(V3_UNAVAILABLE);
  request.log.error({ err: error }, 'v3 request failed');
  return reply.code(500).send(V3_INTERNAL_ERROR);
}

/** The v3 public API under /public: its own auth, its own errors. */
export async function v3Plugin(app: FastifyInstance, { lockcloud }: V3Options): Promise<void> {
  const limits = lockcloud.rateLimits;
  app.setErrorHandler(sendV3Error);
  app.setNotFoundHandler((_request, reply) => reply.code(404).send(V3_NOT_FOUND));
  // Before anything else: a blocked address is refused; any other spends its address's budget.
  app.addHook('onRequest', async (request, reply) => {
    refuseBlocked(limits, request, reply);
    await limitAddress(limits, request, reply);
  });

  // Routes that carry the key in the Authorization header. onRequest runs before the body is read,
  // so a missing key answers 401 (and a throttled one 429) before any body error: the documented order.
  await app.register(async (keyed) => {
    keyed.addHook('onRequest', async (request, reply) =>
      authenticateAndLimit(limits, request, reply, async () => {
        request.principal = await lockcloud.auth.fromHeader(request.headers.authorization);
        return request.principal;
      }),
    );
    await keyed.register(lockRoutes, { lockcloud });
    await keyed.register(commandRoutes, { lockcloud });
    await keyed.register(actionResultRoutes, { lockcloud });
  });
  await app.register(partnerRoutes, { lockcloud });
}
