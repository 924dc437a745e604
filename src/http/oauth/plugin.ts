/**
 * /oauth: oidc-provider's endpoints (authorization, token, revocation, keys, metadata), handed the
 * raw request and response. oidc-provider reads its own bodies and writes its own answers, in the
 * shapes the RFCs give (RFC 6749 section 5.2 errors, RFC 7009, RFC 8414), so this scope parses no
 * body and runs none of the APIs' hooks. The RFC 8414 metadata address, outside /oauth, answers
 * what the provider's discovery document says.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { OAuthServer } from './server.ts';

const PREFIX = '/oauth';
const HIDDEN = { schema: { hide: true } } as const;

type Callback = (req: IncomingMessage, res: ServerResponse) => Promise<void> | void;

export async function oauthPlugin(app: FastifyInstance, { oauth }: { oauth: OAuthServer }): Promise<void> {
  let callback: Callback | undefined;
  const handOver = async (request: FastifyRequest, reply: FastifyReply, path: string): Promise<void> => {
    const provider = await oauth.provider();
    callback ??= provider.callback() as Callback;
    reply.hijack();
    const raw = request.raw as IncomingMessage & { originalUrl?: string };
    // As a mounted app sees it: the path below /oauth, and the whole one as originalUrl.
    raw.originalUrl = `${PREFIX}${path === '/' ? '' : path}`;
    raw.url = path;
    reply.raw.setHeader('x-request-id', request.id);
    await callback(raw, reply.raw);
  };
  // The path below /oauth, with its query: `/oauth?x` is `/?x`.
  const below = (request: FastifyRequest): string => {
    const rest = (request.raw.url ?? '').slice(PREFIX.length);
    return rest.startsWith('/') ? rest : `/${rest}`;
  };

  await app.register(async (scope) => {
    // oidc-provider reads the body itself: nothing is parsed (or refused for its type) here.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined));
    // The methods OAuth uses (OPTIONS: a single-page app's CORS preflight); others are not found.
    const methods = ['GET', 'POST', 'OPTIONS'];
    for (const url of [PREFIX, `${PREFIX}/*`])
      scope.route({
        method: methods,
        url,
        ...HIDDEN,
        handler: (request, reply) => handOver(request, reply, below(request)),
      });
    // RFC 8414 section 3: the metadata of the issuer http://host/oauth is at this address.
    scope.get(`/.well-known/oauth-authorization-server${PREFIX}`, HIDDEN, (request, reply) =>
      handOver(request, reply, '/.well-known/openid-configuration'),
    );
  });
}
