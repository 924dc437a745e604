import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Lockcloud } from '../app/lockcloud.ts';
import { dashboardPlugin } from './dashboard/plugin.ts';
import { clientErrorHandler, frameworkErrorHandler } from './edge-errors.ts';
import { answerErrorsWith } from './error-pipeline.ts';
import { extPlugin } from './ext/plugin.ts';
import { oauthPlugin } from './oauth/plugin.ts';
import { OAuthServer } from './oauth/server.ts';
import { registerOpenApi, registerOpenApiJson } from './openapi.ts';
import { type OpsOptions, registerOps } from './ops.ts';
import { requestIdFrom } from './request-id.ts';
import { RequestLog } from './request-log.ts';
import { sandboxPlugin } from './sandbox/plugin.ts';
import { v1Plugin } from './v1/plugin.ts';
import { v3Errors } from './v3/errors.ts';
import { v3Plugin } from './v3/plugin.ts';
import './principal.ts';

/** docs/decisions.md: a body over 16 KiB is a bad request. */
export const BODY_LIMIT_BYTES = 16 * 1024;

export interface HttpOptions {
  readonly lockcloud: Lockcloud;
  readonly logger: FastifyBaseLogger;
  readonly sandbox: boolean;
  readonly version: string;
  /** Proxies whose X-Forwarded-For names the client; otherwise the client is the socket's peer. */
  readonly trustProxy: readonly string[];
  /** /healthz and /readyz, and the request metrics; readiness checks nothing by default. */
  readonly ops?: OpsOptions;
  /** The OAuth authorization server (docs/oauth.md); none: no /oauth, and no consent page. */
  readonly oauth?: OAuthOptions;
}

export interface OAuthOptions {
  /** The public base URL (--public-url); undefined: the address the server listens on. */
  readonly publicUrl: string | undefined;
  /** 32 bytes for OAuth alone, derived from the server key (its signing and cookie keys). */
  readonly keyMaterial: Uint8Array;
}

/** http://host:port of a listening server; a wildcard address is reached on loopback. */
function listeningAt(app: FastifyInstance): string {
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('the server does not listen yet');
  const host =
    address.address === '0.0.0.0' || address.address === '::'
      ? '127.0.0.1'
      : address.family === 'IPv6'
        ? `[${address.address}]`
        : address.address;
  return `http://${host}:${address.port}`;
}

/** Builds the HTTP application over the use cases. It does not listen: the caller decides where. */
export async function buildHttp(options: HttpOptions): Promise<FastifyInstance> {
  const { lockcloud } = options;
  const app = Fastify({
    loggerInstance: options.logger,
    genReqId: requestIdFrom,
    bodyLimit: BODY_LIMIT_BYTES,
    trustProxy: options.trustProxy.length === 0 ? false : [...options.trustProxy],
    // Any path parameter that fits in Node's 16 KiB of request line and headers reaches the route
    // and its schema (BAD_PARAMS for a malformed id), instead of the router's own 414.
    routerOptions: { maxParamLength: 16 * 1024 },
    // Requests that never reach a route still get their surface's error body and an X-Request-Id.
    frameworkErrors: frameworkErrorHandler(options.sandbox),
    clientErrorHandler: clientErrorHandler(options.sandbox, options.logger),
    logController: new RequestLog(),
    // While closing, requests on connections still open get ops.ts's 503, with an X-Request-Id;
    // idle keep-alive connections are closed so only requests in flight hold up the close.
    return503OnClosing: false,
    forceCloseConnections: 'idle',
    // Wrong types are errors, not coerced; unknown fields are kept so the schema can refuse them.
    ajv: { customOptions: { coerceTypes: false, removeAdditional: false, allErrors: false } },
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.decorateRequest('principal', undefined);
  // Callback-style, as the other per-request hooks that need not wait: no promise per request.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });
  registerOps(app, options.ops ?? { checks: [] });

  await registerOpenApi(app, options.version);
  registerOpenApiJson(app);
  await app.register(v1Plugin, { prefix: '/v1', lockcloud });
  await app.register(v3Plugin, { prefix: '/public', lockcloud });
  await app.register(extPlugin, { prefix: '/ext', lockcloud });
  const oauth =
    options.oauth &&
    new OAuthServer(
      {
        publicUrl: options.oauth.publicUrl,
        keyMaterial: options.oauth.keyMaterial,
        records: lockcloud.oauthRecords,
        apps: lockcloud.oauthApps,
        behindProxy: options.trustProxy.length > 0,
        onServerError: (error) => options.logger.error({ err: error }, 'the OAuth server failed a request'),
      },
      () => listeningAt(app),
    );
  if (oauth) await app.register(oauthPlugin, { oauth, limits: lockcloud.rateLimits });
  if (options.sandbox) await app.register(sandboxPlugin, { prefix: '/_sim', lockcloud });
  await app.register(dashboardPlugin, { prefix: '/dashboard', lockcloud, sandbox: options.sandbox, oauth });
  // People who open the bare address get the dashboard.
  app.get('/', { schema: { hide: true } }, (_request, reply) => reply.redirect('/dashboard'));

  // Outside the versioned prefixes (ops, the OpenAPI document, a path no plugin has): v3's words.
  answerErrorsWith(app, v3Errors);
  return app;
}
