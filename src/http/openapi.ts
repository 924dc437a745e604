import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';

/**
 * OpenAPI 3.1 from the same route schemas that validate requests. Registered before any route so
 * that every route is seen; served at /openapi.json, browsable at /docs.
 */
export async function registerOpenApi(app: FastifyInstance, version: string): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'lockcloud',
        version,
        description:
          'The v3 public lock API (under /public), the legacy v1 API (under /v1) and the sandbox controls (under /_sim, off in production). Errors: docs/errors.md.',
      },
      components: {
        securitySchemes: {
          loginToken: {
            type: 'apiKey',
            in: 'header',
            name: 'X-Authorization',
            description: 'the token POST /v1/accounts/login answered',
          },
          apiKey: {
            type: 'apiKey',
            in: 'header',
            name: 'Authorization',
            description: 'the API key; `Bearer <key>` is also accepted',
          },
        },
      },
      tags: [
        { name: 'v3', description: 'public API, API keys, asynchronous commands' },
        { name: 'v1', description: 'legacy API, login tokens, synchronous control' },
        {
          name: 'extensions',
          description: "lockcloud's own API: webhook settings, secret, test, delivery log",
        },
        { name: 'sandbox', description: 'simulator controls (sandbox mode only)' },
      ],
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { deepLinking: true } });
}

export function registerOpenApiJson(app: FastifyInstance): void {
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}
