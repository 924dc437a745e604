import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { DomainError } from '../../../domain/errors.ts';
import { keyCoversLock } from '../../../domain/scope.ts';
import { requirePrincipal } from '../../principal.ts';
import type { V3Options } from '../plugin.ts';
import { ActionResult, ActionResultQuery, V3_REFUSALS, V3Error } from '../schemas.ts';

export const actionResultRoutes: FastifyPluginAsyncTypebox<V3Options> = async (app, { lockcloud }) => {
  app.get(
    '/action-result',
    {
      schema: {
        summary: 'Read the result of a command',
        tags: ['v3'],
        security: [{ apiKey: [] }],
        querystring: ActionResultQuery,
        response: { 200: ActionResult, 400: V3Error, ...V3_REFUSALS },
      },
      config: { scope: 'locks:read' },
    },
    async (request) => {
      const { accountId, limits } = requirePrincipal(request.principal);
      const task = await lockcloud.commands.result(accountId, request.query.task_id);
      // A task on a lock outside the key's is one of a lock not the account's: BAD_PARAMS, as unknown.
      if (!keyCoversLock(limits, task.deviceId)) throw new DomainError('TASK_NOT_FOUND');
      // task_id right after status (issue 21): the published clients declare it on the result.
      if (task.status === 'processing') return { status: 'processing' as const, task_id: task.id };
      return task.outcome.successful
        ? { status: 'terminated' as const, task_id: task.id, successful: true }
        : { status: 'terminated' as const, task_id: task.id, successful: false, error: task.outcome.error };
    },
  );
};
