import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { V1Options } from '../plugin.ts';
import { LoginAnswer, LoginBody, V1Error } from '../schemas.ts';

function field(body: unknown, name: string): unknown {
  return typeof body === 'object' && body !== null && !Array.isArray(body)
    ? (body as Record<string, unknown>)[name]
    : undefined;
}

export const loginRoutes: FastifyPluginAsyncTypebox<V1Options> = async (app, { lockcloud }) => {
  app.post(
    '/accounts/login',
    {
      schema: {
        summary: 'Log in with e-mail and password; answers a token for X-Authorization',
        description:
          'Each login issues a new token; earlier tokens stay valid until they expire (30 days, or a password change).',
        tags: ['v1'],
        body: LoginBody,
        response: { 200: LoginAnswer, 400: V1Error, 403: V1Error, 429: V1Error },
      },
      // The use case checks the fields itself, after the attempt budget, each with its own code.
      attachValidation: true,
    },
    async (request) => {
      const token = await lockcloud.login.login(
        field(request.body, 'email'),
        field(request.body, 'password'),
        request.ip,
      );
      return { authorization: token };
    },
  );
};
