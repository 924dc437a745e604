import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { keyCoversLock } from '../../../domain/scope.ts';
import { requirePrincipal } from '../../principal.ts';
import type { V3Options } from '../plugin.ts';
import { DeviceIdParams, LockList, LockStatus, V3_REFUSALS, V3Error } from '../schemas.ts';

const security = [{ apiKey: [] }];

export const lockRoutes: FastifyPluginAsyncTypebox<V3Options> = async (app, { lockcloud }) => {
  app.get(
    '/locks',
    {
      schema: {
        summary: 'List the locks the account owns',
        tags: ['v3'],
        security,
        response: { 200: LockList, ...V3_REFUSALS },
      },
      config: { scope: 'locks:read' },
    },
    async (request) => {
      const { accountId, limits } = requirePrincipal(request.principal);
      const owned = await lockcloud.locks.listOwned(accountId);
      // A key limited to some locks lists those only: the others do not exist for it.
      const locks = limits.lockIds === null ? owned : owned.filter((l) => keyCoversLock(limits, l.deviceId));
      return locks.map((lock) => ({
        device_id: lock.deviceId,
        serial: lock.serial,
        nickname: lock.nickname,
      }));
    },
  );

  app.get(
    '/lock/:device_id',
    {
      schema: {
        summary: 'Read lock, battery and responsiveness status',
        description: 'Answers from the stored status whatever the integration setting.',
        tags: ['v3'],
        security,
        params: DeviceIdParams,
        response: { 200: LockStatus, 400: V3Error, ...V3_REFUSALS },
      },
      config: { scope: 'locks:read' },
    },
    async (request) => {
      const { accountId } = requirePrincipal(request.principal);
      const lock = await lockcloud.locks.getOwned(accountId, request.params.device_id.toLowerCase());
      return { locked: lock.locked, battery: lock.battery, responsive: lock.responsive };
    },
  );
};
