/**
 * Under /ext/locks/{device_id} (and /ext/tasks), a lock the account cannot reach is one that does
 * not exist for it: a 404, where v3's routes answer the same thing as BAD_PARAMS, as published, and
 * where the rest of /ext (a webhook endpoint's lock filter, say) names the field in a 400.
 */
import type { FastifyReply } from 'fastify';
import { DomainError } from '../../domain/errors.ts';

export const NO_SUCH_LOCK = { error: 'NOT_FOUND', message: 'no such lock' };
const NO_SUCH_TASK = { error: 'NOT_FOUND', message: 'no such task' };

/** `run`'s answer, or the 404 of a lock or task the account cannot reach. */
export async function orNotFound<T>(reply: FastifyReply, run: Promise<T>): Promise<T | FastifyReply> {
  try {
    return await run;
  } catch (error) {
    if (error instanceof DomainError && error.code === 'LOCK_NOT_FOUND')
      return reply.code(404).send(NO_SUCH_LOCK);
    if (error instanceof DomainError && error.code === 'TASK_NOT_FOUND')
      return reply.code(404).send(NO_SUCH_TASK);
    throw error;
  }
}
