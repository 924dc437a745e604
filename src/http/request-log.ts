import { LogController } from 'fastify';

/**
 * One log line a request, written when it completes (Fastify's default is two), carrying the
 * request id that the response's X-Request-Id also carries.
 */
export class RequestLog extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(
    error: Error | null,
    request: Parameters<LogController['requestCompleted']>[1],
    reply: Parameters<LogController['requestCompleted']>[2],
  ): void {
    const line = {
      method: request.method,
      url: request.url,
      status: reply.statusCode,
      ms: Math.round(reply.elapsedTime * 10) / 10,
    };
    if (error) reply.log.error({ ...line, err: error }, 'request failed');
    else reply.log.info(line, 'request');
  }
}
