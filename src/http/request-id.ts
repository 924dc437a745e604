import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

// A caller's id is echoed only when it is short and plain, so it cannot inject into logs or headers.
const SANE_REQUEST_ID = /^[A-Za-z0-9._:@/+=-]{1,128}$/;

/** The caller's id when it sent a sane one, else a new one. */
export function saneRequestIdOrNew(given: unknown): string {
  return typeof given === 'string' && SANE_REQUEST_ID.test(given) ? given : randomUUID();
}

export function requestIdFrom(request: IncomingMessage): string {
  return saneRequestIdOrNew(request.headers['x-request-id']);
}
