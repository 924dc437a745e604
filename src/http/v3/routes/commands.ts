import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { IdempotencyHeaders } from '../../idempotency-headers.ts';
import { requirePrincipal } from '../../principal.ts';
import type { V3Options } from '../plugin.ts';
import { CommandBody, DeviceIdParams, TaskCreated, V3_REFUSALS, V3Error } from '../schemas.ts';
import { sendCommand } from '../send-command.ts';

export const commandRoutes: FastifyPluginAsyncTypebox<V3Options> = async (app, { lockcloud }) => {
  app.post(
    '/lock/:device_id',
    {
      schema: {
        summary: 'Send lock, unlock or sync; answers a task id at once',
        description:
          'The task id only confirms receipt: read the outcome from /action-result. Checks run in this order: key, body, Idempotency-Key, lock, integration, battery, busy.',
        tags: ['v3'],
        security: [{ apiKey: [] }],
        params: DeviceIdParams,
        headers: IdempotencyHeaders,
        body: CommandBody,
        response: { 200: TaskCreated, 400: V3Error, ...V3_REFUSALS, 413: V3Error },
      },
      config: { scope: 'locks:operate' },
    },
    async (request) => {
      const { accountId, actor } = requirePrincipal(request.principal);
      const taskId = await sendCommand(
        lockcloud,
        request,
        'v3 POST /lock',
        accountId,
        request.params.device_id.toLowerCase(),
        request.body.command,
        { actor, method: 'api_v3' },
      );
      return { task_id: taskId };
    },
  );
};
