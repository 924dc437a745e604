import type { FastifyInstance } from 'fastify';
import type { Lockcloud } from '../../app/lockcloud.ts';
import { answerErrorsWith } from '../error-pipeline.ts';
import { v1Errors } from './errors.ts';
import { controlRoutes } from './routes/control.ts';
import { lockRoutes } from './routes/locks.ts';
import { loginRoutes } from './routes/login.ts';

export interface V1Options {
  readonly lockcloud: Lockcloud;
}

/** The legacy v1 API under /v1: login tokens in X-Authorization, synchronous control. */
export async function v1Plugin(app: FastifyInstance, { lockcloud }: V1Options): Promise<void> {
  answerErrorsWith(app, v1Errors);
  await app.register(loginRoutes, { lockcloud });
  // Token checks come before everything else (docs/decisions.md): onRequest runs before the body is read.
  await app.register(async (authed) => {
    authed.addHook('onRequest', async (request) => {
      const header = request.headers['x-authorization'];
      request.principal = await lockcloud.tokenAuth.fromHeader(Array.isArray(header) ? header[0] : header);
    });
    await authed.register(lockRoutes, { lockcloud });
    await authed.register(controlRoutes, { lockcloud });
  });
}
