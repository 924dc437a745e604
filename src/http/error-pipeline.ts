import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type DomainError, isDomainError } from '../domain/errors.ts';
import { requestFault } from './fastify-errors.ts';
import { isUnavailable, UNAVAILABLE_RETRY_AFTER_SECONDS } from './unavailable.ts';

/** One error answer: a row of its surface's documented table (docs/errors.md). */
export interface ErrorAnswer<Body extends object = object> {
  readonly status: number;
  readonly body: Body;
  /** Whole seconds for Retry-After, on the answers whose surface documents the header. */
  readonly retryAfterSeconds?: number;
}

/**
 * How one surface (v1, v3, the extension API, the sandbox, the dashboard) words its errors. The
 * pipeline below decides which kind of failure an error is; a renderer only says what its surface
 * answers for each kind. `domain` reads the surface's exhaustive `Record<DomainErrorCode, ...>`
 * table, so a code added to the domain does not compile until every surface says how it answers.
 */
export interface ErrorRenderer<Body extends object = object> {
  /** Names the surface in the log line of an unexpected failure. */
  readonly surface: string;
  /** The 404 body: no such route or method. */
  notFound(request: FastifyRequest): Body;
  domain(error: DomainError): ErrorAnswer<Body>;
  /** The body of every refusal of a request that cannot be read (400, 408, 413, 431); `message` says why. */
  badRequest(message: string): Body;
  /** The 503 body while a backend the request needs is away. */
  readonly unavailable: Body;
  /** The 500 body. */
  readonly internal: Body;
  /** Writes an answer; JSON when absent. The dashboard's pages answer HTML. */
  send?(request: FastifyRequest, reply: FastifyReply, status: number, body: Body): FastifyReply;
}

function sendJson(_request: FastifyRequest, reply: FastifyReply, status: number, body: object): FastifyReply {
  return reply.code(status).send(body);
}

/**
 * The one error handler, built for a surface. Its steps, in order:
 * 1. a route that does not exist (or a method it lacks) is 404, even when the body cannot be read;
 * 2. a domain error answers through the surface's table, with Retry-After where the table says;
 * 3. a request fault (unparsable or invalid body, wrong content type, too large) is the surface's
 *    bad request, 413 for the size;
 * 4. a backend that is away is 503 with Retry-After (src/http/unavailable.ts), logged as a warning;
 * 5. anything else is our fault: logged once with the request id, and the surface's 500.
 */
export function errorPipeline<Body extends object>(renderer: ErrorRenderer<Body>) {
  const send = renderer.send ?? sendJson;
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply => {
    if (request.is404) return send(request, reply, 404, renderer.notFound(request));
    if (isDomainError(error)) {
      const { status, body, retryAfterSeconds } = renderer.domain(error);
      if (retryAfterSeconds !== undefined) reply.header('retry-after', String(retryAfterSeconds));
      return send(request, reply, status, body);
    }
    const fault = requestFault(error);
    if (fault !== undefined)
      return send(request, reply, fault === 'too-large' ? 413 : 400, renderer.badRequest(error.message));
    if (isUnavailable(error, request)) {
      reply.header('retry-after', String(UNAVAILABLE_RETRY_AFTER_SECONDS));
      return send(request, reply, 503, renderer.unavailable);
    }
    request.log.error({ err: error, surface: renderer.surface }, 'request failed');
    return send(request, reply, 500, renderer.internal);
  };
}

/**
 * Makes `renderer` answer the unknown routes and the errors of `app`'s scope: its routes and those of
 * the plugins it registers, down to one that answers for itself. Fastify scopes both handlers by
 * plugin, and a plugin is where its surface is known; the requests no plugin gets to see (a path the
 * router cannot decode, bytes that are not HTTP) are answered in src/http/edge-errors.ts, by the same
 * renderers.
 */
export function answerErrorsWith<Body extends object>(
  app: Pick<FastifyInstance, 'setNotFoundHandler' | 'setErrorHandler'>,
  renderer: ErrorRenderer<Body>,
): void {
  const send = renderer.send ?? sendJson;
  app.setNotFoundHandler((request, reply) => send(request, reply, 404, renderer.notFound(request)));
  app.setErrorHandler(errorPipeline(renderer));
}
