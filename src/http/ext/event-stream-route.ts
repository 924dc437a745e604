/**
 * GET /ext/events/stream: the event log as Server-Sent Events (docs/events.md, "The live stream"),
 * with the API key of the rest of /ext (the plugin's hooks authenticate and limit it).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Lockcloud } from '../../app/lockcloud.ts';
import { answerWithStream, resumeIdOf } from '../event-stream.ts';
import { requirePrincipal } from '../principal.ts';
import { EventStreamQuery, ExtError } from './schemas.ts';

const tags = ['extensions'];

export const eventStreamRoute: FastifyPluginAsyncTypebox<{ lockcloud: Lockcloud }> = async (
  app,
  { lockcloud },
) => {
  // The server stops: every stream ends with `shutting_down` before the HTTP server waits for them.
  app.addHook('preClose', (done) => {
    lockcloud.eventStreams.closeAll();
    done();
  });
  app.get(
    '/events/stream',
    {
      config: { scope: 'events:read' },
      schema: {
        summary: 'The event log as it grows (Server-Sent Events)',
        description:
          'Filters device_id and type as GET /ext/events. Resume with the Last-Event-ID header (or last_event_id): every event after it, once, in order. Each event: `id`, `event: lock_event`, `data` the event as GET /ext/events lists it. A heartbeat comment every 15 s; `event: close` with a reason (too_slow, shutting_down, unauthorized: the key was deleted) before the server ends it. At most 20 streams per account (429). See docs/events.md.',
        tags,
        security: [{ apiKey: [] }],
        querystring: EventStreamQuery,
        response: {
          200: {
            description: 'text/event-stream',
            content: { 'text/event-stream': { schema: { type: 'string' } } },
          },
          400: ExtError,
          401: ExtError,
          429: ExtError,
        },
      },
    },
    async (request, reply) => {
      const q = request.query;
      const { accountId, keyId, limits } = requirePrincipal(request.principal);
      await answerWithStream(
        lockcloud,
        accountId,
        {
          deviceId: q.device_id,
          type: q.type,
          lastEventId: resumeIdOf(request, q.last_event_id),
          keyId,
          lockIds: limits.lockIds,
          expiresAt: limits.expiresAt,
        },
        reply,
      );
    },
  );
};
