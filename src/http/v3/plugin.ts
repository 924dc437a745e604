import type { FastifyInstance } from 'fastify';
import type { Lockcloud } from '../../app/lockcloud.ts';
import { answerErrorsWith } from '../error-pipeline.ts';
import { keyRefusal, pathDeviceId } from '../key-check.ts';
import {
  authenticateAndLimit,
  countBudgetRefusals,
  hookDone,
  limitAddress,
  refuseBlocked,
} from '../rate-limits-hook.ts';
import { requireRouteScopes } from '../route-scope.ts';
import { v3Errors } from './errors.ts';
import { v3KeyRefusal } from './key-refusal.ts';
import { actionResultRoutes } from './routes/action-result.ts';
import { commandRoutes } from './routes/commands.ts';
import { lockRoutes } from './routes/locks.ts';
import { partnerRoutes } from './routes/partner.ts';

export interface V3Options {
  readonly lockcloud: Lockcloud;
}

/** The v3 public API under /public: its own auth, its own errors. */
export async function v3Plugin(app: FastifyInstance, { lockcloud }: V3Options): Promise<void> {
  const limits = lockcloud.rateLimits;
  answerErrorsWith(app, v3Errors);
  // Every route below takes a key, so each names the scope it needs (the server does not start otherwise).
  requireRouteScopes(app);
  // A command refused by its lock's budget spends the address's excess like a 429 of the limits.
  countBudgetRefusals(app, limits);
  // Before anything else: a blocked address is refused; any other spends its address's budget.
  // Callback-style: with the in-memory limits, no promise is made for it on any request.
  app.addHook('onRequest', (request, reply, done) =>
    hookDone(() => {
      refuseBlocked(limits, request, reply);
      return limitAddress(limits, request, reply);
    }, done),
  );

  // Routes that carry the key in the Authorization header. onRequest runs before the body is read,
  // so a missing key answers 401 (and a throttled one 429) before any body error: the documented order.
  await app.register(async (keyed) => {
    keyed.addHook('onRequest', async (request, reply) =>
      authenticateAndLimit(limits, request, reply, async () => {
        // The key's limits right after the key (before its use is recorded and the account's rate
        // limit): the route's scope and the lock of its path, before the body is read.
        request.principal = await lockcloud.auth.fromHeader(
          request.headers.authorization,
          request.ip,
          (keyLimits) => {
            const refusal = keyRefusal(request, keyLimits, lockcloud.auth.now(), pathDeviceId(request));
            if (refusal !== undefined) throw v3KeyRefusal(refusal);
            return true;
          },
        );
        return request.principal;
      }),
    );
    await keyed.register(lockRoutes, { lockcloud });
    await keyed.register(commandRoutes, { lockcloud });
    await keyed.register(actionResultRoutes, { lockcloud });
  });
  await app.register(partnerRoutes, { lockcloud });
}
