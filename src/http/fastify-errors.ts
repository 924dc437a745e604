import type { FastifyError } from 'fastify';

/**
 * Fastify's own errors for bad requests (unparsable JSON, wrong content type, a body too large, a
 * schema violation) all carry a 4xx status. They are the client's fault and become each version's
 * "bad parameters" answer; the size error keeps its 413 as docs/decisions.md allows.
 */
export type RequestFault = 'too-large' | 'bad-request' | undefined;

export function requestFault(error: unknown): RequestFault {
  const e = error as Partial<FastifyError>;
  if (e.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return 'too-large';
  if (e.validation !== undefined) return 'bad-request';
  if (typeof e.code === 'string' && e.code.startsWith('FST_ERR_CTP_')) return 'bad-request';
  if (typeof e.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500) return 'bad-request';
  return undefined;
}
