import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { DomainError } from '../../../domain/errors.ts';
import { IdempotencyHeaders } from '../../idempotency-headers.ts';
import { keyRefusal } from '../../key-check.ts';
import { requirePrincipal } from '../../principal.ts';
import { authenticateAndLimit } from '../../rate-limits-hook.ts';
import { v3KeyRefusal } from '../key-refusal.ts';
import type { V3Options } from '../plugin.ts';
import { PartnerBody, TaskCreated, V3_REFUSALS, V3Error } from '../schemas.ts';
import { sendCommand } from '../send-command.ts';

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export const partnerRoutes: FastifyPluginAsyncTypebox<V3Options> = async (app, { lockcloud }) => {
  app.post(
    '/partners/automation',
    {
      schema: {
        summary: 'Lock or unlock for a partner, with the key in the body',
        description:
          'No Authorization header: `apikey` is checked like it (401) before the other fields. A body that is not a JSON object has no key to check and answers BAD_PARAMS.',
        tags: ['v3'],
        headers: IdempotencyHeaders,
        body: PartnerBody,
        response: { 200: TaskCreated, 400: V3Error, ...V3_REFUSALS, 413: V3Error },
      },
      config: { scope: 'locks:operate' },
      // preValidation runs after the body is parsed and before the schema is checked: the key is
      // checked first, as the header is on the other endpoints.
      preValidation: async (request, reply) => {
        const body = request.body;
        if (!isObject(body)) throw new DomainError('INVALID_INPUT', 'the body must be a JSON object');
        await authenticateAndLimit(lockcloud.rateLimits, request, reply, async () => {
          request.principal = await lockcloud.auth.fromKey(
            typeof body.apikey === 'string' ? body.apikey : undefined,
            request.ip,
            // The key's limits right after the key, as on the other endpoints: its scope, and the
            // body's lock when it names one (else the schema refuses the body: BAD_PARAMS either way).
            (keyLimits) => {
              const deviceId = typeof body.device_id === 'string' ? body.device_id : undefined;
              const refusal = keyRefusal(request, keyLimits, lockcloud.auth.now(), deviceId);
              if (refusal !== undefined) throw v3KeyRefusal(refusal);
              return true;
            },
          );
          return request.principal;
        });
      },
    },
    async (request) => {
      const { accountId, actor } = requirePrincipal(request.principal);
      const deviceId = request.body.device_id.toLowerCase();
      // The partner's key, as the event log tells it: a partner acting with the owner's key.
      const taskId = await sendCommand(
        lockcloud,
        request,
        'v3 POST /partners/automation',
        accountId,
        deviceId,
        request.body.command,
        { actor: { ...actor, kind: 'partner' }, method: 'partner' },
      );
      return { task_id: taskId };
    },
  );
};
