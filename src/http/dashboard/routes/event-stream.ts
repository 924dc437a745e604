/**
 * GET /dashboard/api/events/stream: the live event stream for the signed-in account, as
 * GET /ext/events/stream sends it (docs/events.md, "The live stream"); the lock page listens to it.
 * The plugin's hooks have checked the session (401 JSON without one) before this runs.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Lockcloud } from '../../../app/lockcloud.ts';
import { DomainError } from '../../../domain/errors.ts';
import { answerWithStream, resumeIdOf } from '../../event-stream.ts';
import { state } from '../context.ts';

export function eventStreamRoutes(app: FastifyInstance, lockcloud: Lockcloud): void {
  const accountOf = (request: FastifyRequest): string => {
    const signedIn = state(request).me;
    if (!signedIn) throw new Error('event stream route ran without a session');
    return signedIn.account.id;
  };
  app.get(
    '/api/events/stream',
    // Checked in the handler, not by a schema: the session (checked before the handler) comes first.
    { schema: { hide: true } },
    async (request, reply) => {
      const q = streamQuery(request.query);
      await answerWithStream(
        lockcloud,
        accountOf(request),
        { deviceId: q.device_id, type: q.type, lastEventId: resumeIdOf(request, q.last_event_id) },
        reply,
      );
    },
  );
}

const PARAMS = ['device_id', 'type', 'last_event_id'] as const;

function streamQuery(query: unknown): Partial<Record<(typeof PARAMS)[number], string>> {
  const out: Partial<Record<(typeof PARAMS)[number], string>> = {};
  for (const [name, value] of Object.entries((query ?? {}) as Record<string, unknown>)) {
    const known = PARAMS.find((p) => p === name);
    if (known === undefined)
      throw new DomainError('INVALID_INPUT', `${name}: unknown parameter`, { field: name });
    if (typeof value !== 'string')
      throw new DomainError('INVALID_INPUT', `${name}: given more than once`, { field: name });
    out[known] = value;
  }
  return out;
}
