import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Html } from './html.ts';

/** Every dashboard route stays out of the OpenAPI document, which describes the APIs. */
export const HIDDEN = { schema: { hide: true } } as const;

export function sendPage(reply: FastifyReply, page: Html, status = 200): FastifyReply {
  // Pages can show a key or a secret once: never kept by a cache or the back button's store.
  return reply
    .code(status)
    .header('cache-control', 'no-store')
    .type('text/html; charset=utf-8')
    .send(page.text);
}

/** The form's fields as strings; anything else (arrays, missing) reads as undefined. */
export function form(request: FastifyRequest): Record<string, string | undefined> {
  const body = request.body;
  const out: Record<string, string | undefined> = {};
  if (typeof body !== 'object' || body === null) return out;
  for (const [key, value] of Object.entries(body)) if (typeof value === 'string') out[key] = value;
  return out;
}

export function query(request: FastifyRequest): Record<string, string | undefined> {
  return form({ body: request.query } as FastifyRequest);
}

/** Only a path inside the dashboard may be a redirect target: `next` never leads off the site. */
export function safeNext(next: string | undefined): string {
  return next !== undefined && /^\/dashboard\/[A-Za-z0-9/_-]*$/.test(next) ? next : '/dashboard/locks';
}

export function isApi(request: FastifyRequest): boolean {
  return request.url.startsWith('/dashboard/api/');
}
