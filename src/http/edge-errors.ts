import type { Socket } from 'node:net';
import type { FastifyBaseLogger, FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { ErrorRenderer } from './error-pipeline.ts';
import { extErrors } from './ext/errors.ts';
import { saneRequestIdOrNew } from './request-id.ts';
import { sandboxErrors } from './sandbox/errors.ts';
import { v1Errors } from './v1/errors.ts';
import { v3Errors } from './v3/errors.ts';

/**
 * Answers for requests that never reach a route: an HTTP message Node cannot parse (a request line
 * and headers over 16 KiB, a malformed request line or header, one that did not arrive in time) and
 * a path the router cannot decode (bad percent-encoding). Node and Fastify answer these with bodies
 * of their own and no X-Request-Id; here they get the bad-request body of the surface the path
 * belongs to, from the renderer its plugin answers with (error-pipeline.ts), and an X-Request-Id like
 * every other answer (docs/decisions.md, "Everywhere").
 */

/** The renderer of the plugin mounted at the path's prefix (server.ts); v3's outside them. */
function rendererOf(path: string | undefined, sandbox: boolean): ErrorRenderer {
  if (path === undefined) return v3Errors;
  if (/^\/v1(?:[/?#]|$)/.test(path)) return v1Errors;
  // The extension API, in both modes.
  if (/^\/ext(?:[/?#]|$)/.test(path)) return extErrors;
  // Without the sandbox, /_sim is a path like any other: the root's v3 words, as its 404 is.
  if (sandbox && /^\/_sim(?:[/?#]|$)/.test(path)) return sandboxErrors;
  // The dashboard's paths too (docs/errors.md: outside /v1, /_sim and /ext, the v3 shape).
  return v3Errors;
}

/** Fastify's `frameworkErrors`: the router cannot decode the path, or a parameter is over its length limit. */
export function frameworkErrorHandler(sandbox: boolean) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply): void => {
    // onRequest hooks do not run for these requests: the id header is set here.
    reply.header('x-request-id', request.id);
    const renderer = rendererOf(request.url, sandbox);
    if (error.code === 'FST_ERR_BAD_URL' || error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
      reply.code(400).send(renderer.badRequest('the path cannot be decoded'));
      return;
    }
    request.log.error({ err: error, surface: renderer.surface }, 'request failed before routing');
    reply.code(500).send(renderer.internal);
  };
}

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad Request',
  408: 'Request Timeout',
  431: 'Request Header Fields Too Large',
};

/**
 * Where the request that failed begins in the bytes Node hands over with a parse error: the chunk it
 * was parsing, which on a keep-alive or pipelined connection may begin with earlier requests whose
 * path and X-Request-Id are not this one's. It is the last request line that starts before the
 * point of the error (`bytesParsed`); the start of the chunk when none does.
 */
function failingRequestStart(text: string, bytesParsed: unknown): number {
  const upTo = typeof bytesParsed === 'number' ? bytesParsed : text.length;
  let start = 0;
  for (const line of text.matchAll(/[A-Z]+ \/\S* HTTP\/\d\.\d\r\n/g)) {
    if (line.index >= upTo) break;
    start = line.index;
  }
  return start;
}

/** What of the raw bytes Node gives with a parse error: the request target and a caller's request id. */
function fromRawPacket(
  raw: unknown,
  bytesParsed: unknown,
): { path: string | undefined; requestId: string | undefined; isHead: boolean } {
  if (!Buffer.isBuffer(raw)) return { path: undefined, requestId: undefined, isHead: false };
  const text = raw.toString('latin1');
  // Found by the fuzzer: behind an earlier request on the same connection, the answer took that
  // request's surface (a /v1 refusal in the v3 shape) and could echo that request's id.
  const start = failingRequestStart(text, bytesParsed);
  const head = text.slice(start, start + 32 * 1024);
  const path = /^[A-Za-z]+ (\/\S*)/.exec(head)?.[1];
  // An id sent twice is no one id (Node joins the two for a routed request, which is then not sane):
  // here too only a single X-Request-Id is the caller's.
  const ids = [...head.matchAll(/\r\nx-request-id:[ \t]*([^\r\n]*?)[ \t]*(?=\r\n)/gi)];
  const requestId = ids.length === 1 ? ids[0]?.[1] : undefined;
  return { path, requestId, isHead: head.startsWith('HEAD ') };
}

/** Node's `clientError`: the bytes are not an HTTP request Node can parse. */
export function clientErrorHandler(sandbox: boolean, logger: FastifyBaseLogger) {
  return (
    error: NodeJS.ErrnoException & { rawPacket?: unknown; bytesParsed?: unknown },
    socket: Socket,
  ): void => {
    // A reset connection has nobody left to answer.
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    const status =
      error.code === 'HPE_HEADER_OVERFLOW' ? 431 : error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
    const { path, requestId, isHead } = fromRawPacket(error.rawPacket, error.bytesParsed);
    const id = saneRequestIdOrNew(requestId);
    const message =
      status === 431
        ? 'the request line and headers are over 16 KiB'
        : status === 408
          ? 'the request did not arrive in time'
          : 'the request is not valid HTTP';
    const body = JSON.stringify(rendererOf(path, sandbox).badRequest(message));
    logger.info({ reqId: id, status, code: error.code }, 'unparsable request');
    if (socket.writable) {
      socket.write(
        `HTTP/1.1 ${status} ${STATUS_TEXT[status]}\r\n` +
          'Content-Type: application/json; charset=utf-8\r\n' +
          `Content-Length: ${Buffer.byteLength(body)}\r\n` +
          `X-Request-Id: ${id}\r\n` +
          'Connection: close\r\n\r\n' +
          // An answer to HEAD has no body: a client reads these bytes as the start of a next answer
          // (Node's own client fails with "Data after Connection: close"). Found by the fuzzer.
          (isHead ? '' : body),
      );
    }
    socket.destroy();
  };
}
