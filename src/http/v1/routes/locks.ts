import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { apiEnabled } from '../../../domain/lock.ts';
import { requirePrincipal } from '../../principal.ts';
import type { V1Options } from '../plugin.ts';
import { LockIdParams, V1Error, V1LockList, V1LockStatus } from '../schemas.ts';

const security = [{ loginToken: [] }];

export const lockRoutes: FastifyPluginAsyncTypebox<V1Options> = async (app, { lockcloud }) => {
  app.get(
    '/locks',
    {
      schema: {
        summary: 'List the locks the account owns and those shared with it',
        tags: ['v1'],
        security,
        response: { 200: V1LockList, 401: V1Error },
      },
    },
    async (request) => {
      const locks = await lockcloud.locks.listVisible(requirePrincipal(request.principal).accountId);
      return {
        locks: locks.map((lock) => ({
          device_id: lock.deviceId,
          nickname: lock.nickname,
          is_unlocked: !lock.locked,
          api_enabled: apiEnabled(lock),
          battery: lock.battery,
        })),
      };
    },
  );

  app.get(
    '/locks/:lockId',
    {
      schema: {
        summary: 'Read a lock the account owns',
        tags: ['v1'],
        security,
        params: LockIdParams,
        response: { 200: V1LockStatus, 400: V1Error, 401: V1Error, 403: V1Error },
      },
    },
    async (request) => {
      const { accountId } = requirePrincipal(request.principal);
      const lock = await lockcloud.locks.getUsable(accountId, request.params.lockId.toLowerCase());
      return {
        nickname: lock.nickname,
        is_unlocked: !lock.locked,
        api_enabled: apiEnabled(lock),
        battery: lock.battery,
      };
    },
  );
};
