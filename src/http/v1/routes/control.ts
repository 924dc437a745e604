import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { DomainError } from '../../../domain/errors.ts';
import { requirePrincipal } from '../../principal.ts';
import { sendV1Answer, v1FailureAnswer } from '../errors.ts';
import type { V1Options } from '../plugin.ts';
import { ControlBody, LockIdParams, V1Error } from '../schemas.ts';

/** 10000 for a missing or empty type, 10005 for any other value: the two codes v1 documents. */
function controlType(body: unknown): 'lock' | 'unlock' {
  const type =
    typeof body === 'object' && body !== null && !Array.isArray(body)
      ? (body as Record<string, unknown>).type
      : undefined;
  if (type === undefined || type === null || type === '')
    throw new DomainError('MISSING_FIELD', 'type is required');
  if (type !== 'lock' && type !== 'unlock')
    throw new DomainError('INVALID_COMMAND', 'type must be lock or unlock');
  return type;
}

export const controlRoutes: FastifyPluginAsyncTypebox<V1Options> = async (app, { lockcloud }) => {
  app.post(
    '/locks/:lockId/control',
    {
      schema: {
        summary: 'Lock or unlock, answering once the lock has confirmed',
        description:
          "Checks in order: token (200xx), body (10000, 10005), lock (11002), ownership (30000), api_enabled (32000), battery (50004) and the mobile app (50001), the lock's command budget (42900, with Retry-After), a running command (50001), then execution (50002-50005). Shares the command path, the busy rule and the command budget with v3, the partner endpoint and the dashboard.",
        tags: ['v1'],
        security: [{ loginToken: [] }],
        params: LockIdParams,
        body: ControlBody,
        response: {
          204: { type: 'null' },
          400: V1Error,
          401: V1Error,
          403: V1Error,
          429: V1Error,
          500: V1Error,
        },
      },
      attachValidation: true,
    },
    async (request, reply) => {
      const { accountId, actor } = requirePrincipal(request.principal);
      const type = controlType(request.body);
      const deviceId = request.params.lockId.toLowerCase();
      await lockcloud.locks.getUsable(accountId, deviceId);
      const task = await lockcloud.commands.send(accountId, deviceId, type, { actor, method: 'api_v1' });
      const ended = await lockcloud.commands.waitForEnd(task);
      if (!ended.outcome.successful) return sendV1Answer(reply, v1FailureAnswer(ended.outcome.error));
      return reply.code(204).send(null);
    },
  );
};
