import { LogController } from 'fastify';
import { levels } from 'pino';

const INFO = levels.values.info ?? 30;
/** A level's number; a name pino does not know (silent) logs nothing. */
const levelValue = (level: string): number => levels.values[level] ?? Number.POSITIVE_INFINITY;

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
    // At the default level every request writes its line; above it (warn) only failures do, and
    // the line's object is not even built for the others: this runs on every request.
    if (error === null && !(levelValue(reply.log.level) <= INFO)) return;
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
