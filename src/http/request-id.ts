import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

// A caller's id is echoed only when it is short and plain, so it cannot inject into logs or headers.
const SANE_REQUEST_ID = /^[A-Za-z0-9._:@/+=-]{1,128}$/;

export function requestIdFrom(request: IncomingMessage): string {
  const given = request.headers['x-request-id'];
  return typeof given === 'string' && SANE_REQUEST_ID.test(given) ? given : randomUUID();
}
