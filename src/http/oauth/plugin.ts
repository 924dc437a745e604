/**
 * /oauth: oidc-provider's endpoints (authorization, token, revocation, keys, metadata), handed the
 * raw request and response. oidc-provider reads its own bodies and writes its own answers, in the
 * shapes the RFCs give (RFC 6749 section 5.2 errors, RFC 7009, RFC 8414), so this scope parses no
 * body and runs none of the APIs' hooks. The RFC 8414 metadata address, outside /oauth, answers
 * what the provider's discovery document says.
 *
 * Rate limits come first (docs/rate-limits.md, "OAuth"): a blocked address is refused on every
 * /oauth path, and the endpoints that do work per request are limited per address, their refusals
 * spending the address's excess as any other. Both answer 429 in the RFC 6749 shape.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { RateLimits } from '../../app/rate-limits.ts';
import { OAUTH_LIMITED_ENDPOINTS, type OAuthLimitedEndpoint } from '../../domain/rate-limit.ts';
import { setBlockedHeaders, setRateLimitHeaders } from '../rate-limit-headers.ts';
import { withOidcContext } from './context-tax.ts';
import type { OAuthServer } from './server.ts';

const PREFIX = '/oauth';
const HIDDEN = { schema: { hide: true } } as const;

type Callback = (req: IncomingMessage, res: ServerResponse) => Promise<void> | void;

const LIMITED: ReadonlySet<string> = new Set(OAUTH_LIMITED_ENDPOINTS);

/** `POST` and `/token?x` -> `POST /oauth/token`, when that is a limited endpoint. */
function limitedEndpoint(method: string, path: string): OAuthLimitedEndpoint | undefined {
  const query = path.indexOf('?');
  const name = `${method === 'HEAD' ? 'GET' : method} ${PREFIX}${query < 0 ? path : path.slice(0, query)}`;
  return LIMITED.has(name) ? (name as OAuthLimitedEndpoint) : undefined;
}

/** RFC 6749 has no error of its own for a rate limit: `temporarily_unavailable` says "come back". */
const refusal = (description: string) => ({
  error: 'temporarily_unavailable',
  error_description: description,
});

export async function oauthPlugin(
  app: FastifyInstance,
  { oauth, limits }: { oauth: OAuthServer; limits: RateLimits | undefined },
): Promise<void> {
  let callback: Callback | undefined;
  const handOver = async (request: FastifyRequest, reply: FastifyReply, path: string): Promise<void> => {
    if (limits) {
      const blocked = limits.blockedFor(request.ip);
      if (blocked !== undefined) {
        setBlockedHeaders(reply, blocked);
        return reply
          .code(429)
          .send(
            refusal(
              `this client address is blocked for exceeding the rate limits again and again; try again in ${blocked} s`,
            ),
          );
      }
      const endpoint = limitedEndpoint(request.method, path);
      if (endpoint !== undefined) {
        const check = await limits.checkOAuth(endpoint, request.ip);
        if (check.kind === 'throttled') {
          setRateLimitHeaders(reply, check);
          reply.header('retry-after', String(check.retryAfterSeconds));
          return reply
            .code(429)
            .send(refusal(`over this endpoint's rate limit; try again in ${check.retryAfterSeconds} s`));
        }
        // oidc-provider writes the answer itself: the fields go on it directly.
        setRateLimitHeaders({ header: (name, value) => reply.raw.setHeader(name, value) }, check);
      }
    }
    const provider = await oauth.provider();
    callback ??= provider.callback() as Callback;
    reply.hijack();
    const raw = request.raw as IncomingMessage & { originalUrl?: string };
    // As a mounted app sees it: the path below /oauth, and the whole one as originalUrl.
    raw.originalUrl = `${PREFIX}${path === '/' ? '' : path}`;
    raw.url = path;
    reply.raw.setHeader('x-request-id', request.id);
    const handle = callback;
    await withOidcContext(() => handle(raw, reply.raw));
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
