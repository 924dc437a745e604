import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Lockcloud } from '../../app/lockcloud.ts';
import { isDomainError } from '../../domain/errors.ts';
import { requestFault } from '../fastify-errors.ts';
import { prepareUnavailable } from '../unavailable.ts';
import {
  sendV1Answer,
  V1_BAD_REQUEST,
  V1_INTERNAL_ERROR,
  V1_NOT_FOUND,
  V1_UNAVAILABLE,
  v1Answer,
} from './errors.ts';
import { controlRoutes } from './routes/control.ts';
import { lockRoutes } from './routes/locks.ts';
import { loginRoutes } from './routes/login.ts';

export interface V1Options {
  readonly lockcloud: Lockcloud;
}

function sendV1Error(error: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  // A body that cannot be read on a route that does not exist (or a wrong method): still 404.
  if (request.is404) return reply.code(404).send(V1_NOT_FOUND);
  if (isDomainError(error)) return sendV1Answer(reply, v1Answer(error));
  const fault = requestFault(error);
  if (fault === 'too-large') return reply.code(413).send(V1_BAD_REQUEST);
  if (fault === 'bad-request') return reply.code(400).send(V1_BAD_REQUEST);
  if (prepareUnavailable(error, request, reply)) return reply.send(V1_UNAVAILABLE);
  request.log.error({ err: error }, 'v1 request failed');
  return reply.code(500).send(V1_INTERNAL_ERROR);
}

/** The legacy v1 API under /v1: login tokens in X-Authorization, synchronous control. */
export async function v1Plugin(app: FastifyInstance, { lockcloud }: V1Options): Promise<void> {
  app.setErrorHandler(sendV1Error);
  app.setNotFoundHandler((_request, reply) => reply.code(404).send(V1_NOT_FOUND));
  await app.register(loginRoutes, { lockcloud });
  // Token checks come before everything else (DECISIONS.md): onRequest runs before the body is read.
  await app.register(async (authed) => {
    authed.addHook('onRequest', async (request) => {
      const header = request.headers['x-authorization'];
      request.principal = await lockcloud.tokenAuth.fromHeader(Array.isArray(header) ? header[0] : header);
    });
    await authed.register(lockRoutes, { lockcloud });
    await authed.register(controlRoutes, { lockcloud });
  });
}
