import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import type { Lockcloud } from '../../app/lockcloud.ts';
import type { Delivery } from '../../domain/delivery.ts';
import { eventJson } from '../../domain/event.ts';
import { answerErrorsWith } from '../error-pipeline.ts';
import { keyRefusal, keyRefusalError, pathDeviceId } from '../key-check.ts';
import { requirePrincipal } from '../principal.ts';
import {
  authenticateAndLimit,
  countBudgetRefusals,
  limitAddress,
  refuseBlocked,
} from '../rate-limits-hook.ts';
import { requireRouteScopes } from '../route-scope.ts';
import { commandRoutes } from './command-routes.ts';
import { deliveryProgress } from './delivery-view.ts';
import { endpointRoutes } from './endpoint-routes.ts';
import { extErrors } from './errors.ts';
import { eventStreamRoute } from './event-stream-route.ts';
import { grantRoutes } from './grant-routes.ts';
import { keyRoutes } from './key-routes.ts';
import { lockRoutes } from './lock-routes.ts';
import { NO_SUCH_LOCK } from './not-found.ts';
import {
  DeliveriesQuery,
  DeliveryAccepted,
  DeliveryIdParams,
  DeliveryView,
  EventPageView,
  EventsQuery,
  ExtError,
  SecretView,
  WebhookBody,
  WebhookView,
} from './schemas.ts';

const deliveryView = (d: Delivery) => ({
  id: d.id,
  event: d.event,
  device_id: d.deviceId,
  url: d.url,
  method: d.method,
  ...deliveryProgress(d),
});

const tags = ['extensions'];
const security = [{ apiKey: [] }];

/** lockcloud's own API under /ext: the webhook settings and log (the dashboard uses the same use cases). */
export const extPlugin: FastifyPluginAsyncTypebox<{ lockcloud: Lockcloud }> = async (app, { lockcloud }) => {
  const { webhooks } = lockcloud;
  const limits = lockcloud.rateLimits;
  answerErrorsWith(app, extErrors);
  // Every route takes a key, so each names the scope it needs (the server does not start otherwise).
  requireRouteScopes(app);
  // Limited per account and address as v3 is, and under the same block (docs/rate-limits.md); the
  // address's limit is told before the key, so a flood of bad keys meets 429 without a key lookup.
  countBudgetRefusals(app, limits);
  app.addHook('onRequest', async (request, reply) => {
    refuseBlocked(limits, request, reply);
    await limitAddress(limits, request, reply, true);
    // The key's limits right after the key, before its use is recorded: the route's scope (403), and
    // the lock of its path, which outside the key's locks does not exist for it (404 once the
    // account's limit is told, as a lock not shared with the account).
    let outsideKey = false;
    await authenticateAndLimit(limits, request, reply, async () => {
      request.principal = await lockcloud.auth.fromHeader(
        request.headers.authorization,
        request.ip,
        (keyLimits, credential) => {
          const refusal = keyRefusal(request, keyLimits, lockcloud.auth.now(), pathDeviceId(request));
          if (refusal === undefined) return true;
          if (refusal.reason !== 'lock_not_allowed') throw keyRefusalError(refusal, credential);
          outsideKey = true;
          return false;
        },
      );
      return request.principal;
    });
    if (outsideKey) return reply.code(404).send(NO_SUCH_LOCK);
  });
  const account = (request: FastifyRequest): string => requirePrincipal(request.principal).accountId;
  const actor = (request: FastifyRequest) => requirePrincipal(request.principal).actor;
  endpointRoutes(app, lockcloud);
  lockRoutes(app, lockcloud);
  keyRoutes(app, lockcloud);
  grantRoutes(app, lockcloud);
  commandRoutes(app, lockcloud);

  app.get(
    '/webhook',
    {
      config: { scope: 'webhooks:manage' },
      schema: {
        summary: "The account's webhook",
        tags,
        security,
        response: { 200: WebhookView, 401: ExtError, 404: ExtError },
      },
    },
    async (request, reply) => {
      const config = await webhooks.get(account(request));
      if (!config) return reply.code(404).send({ error: 'NOT_FOUND', message: 'no webhook is set' });
      return { url: config.url, method: config.method, retries: config.retries };
    },
  );

  app.put(
    '/webhook',
    {
      config: { scope: 'webhooks:manage' },
      schema: {
        summary: 'Set the webhook (URL, method, opt-in retries)',
        description: 'The first time, the answer carries the signing secret (whsec_...), shown this once.',
        tags,
        security,
        body: WebhookBody,
        response: { 200: WebhookView, 400: ExtError, 401: ExtError },
      },
    },
    async (request) => {
      const { config, secret } = await webhooks.set(account(request), request.body, actor(request));
      return {
        url: config.url,
        method: config.method,
        retries: config.retries,
        ...(secret === undefined ? {} : { secret }),
      };
    },
  );

  app.delete(
    '/webhook',
    {
      config: { scope: 'webhooks:manage' },
      schema: {
        summary: 'Remove the webhook',
        tags,
        security,
        response: { 204: { type: 'null' }, 401: ExtError, 404: ExtError },
      },
    },
    async (request, reply) => {
      const removed = await webhooks.remove(account(request), actor(request));
      if (!removed) return reply.code(404).send({ error: 'NOT_FOUND', message: 'no webhook is set' });
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/webhook/rotate-secret',
    {
      config: { scope: 'webhooks:manage' },
      schema: {
        summary: 'Make a new signing secret; the old one signs too for 24 h',
        tags,
        security,
        response: { 200: SecretView, 400: ExtError, 401: ExtError },
      },
    },
    async (request) => ({ secret: await webhooks.rotateSecret(account(request)) }),
  );

  app.post(
    '/webhook/test',
    {
      config: { scope: 'webhooks:manage' },
      schema: {
        summary: "Send a test event (the account's first lock, its current state)",
        tags,
        security,
        response: { 202: DeliveryAccepted, 400: ExtError, 401: ExtError, 429: ExtError },
      },
    },
    async (request, reply) => {
      const delivery = await webhooks.sendTest(account(request));
      return reply.code(202).send({ delivery_id: delivery.id });
    },
  );

  app.get(
    '/webhook/deliveries',
    {
      config: { scope: 'webhooks:manage' },
      schema: {
        summary: 'The delivery log, newest first (the last 500 are kept)',
        tags,
        security,
        querystring: DeliveriesQuery,
        response: { 200: { type: 'array', items: DeliveryView }, 400: ExtError, 401: ExtError },
      },
    },
    async (request) => {
      const limit = request.query.limit === undefined ? 50 : Number(request.query.limit);
      if (limit < 1 || limit > 500)
        throw Object.assign(new Error('limit: must be from 1 to 500'), { statusCode: 400 });
      return (await webhooks.deliveries(account(request), limit)).map(deliveryView);
    },
  );

  app.get(
    '/events',
    {
      config: { scope: 'events:read' },
      schema: {
        summary: "The event log: the account's and its locks' events, and those of locks shared with it",
        description:
          "Filters: device_id, type (a prefix: `lock.`), after and before (event ids); limit 1 to 500 (default 50); order oldest-first (default) or newest-first. `next_cursor`, passed as `cursor` with the same filters, continues. A guest sees lock events only, without the owner's account or key. Kept --event-retention-days (90). See docs/events.md.",
        tags,
        security,
        querystring: EventsQuery,
        response: { 200: EventPageView, 400: ExtError, 401: ExtError },
      },
    },
    async (request) => {
      const q = request.query;
      const { accountId, limits } = requirePrincipal(request.principal);
      const page = await lockcloud.eventLog.list(accountId, {
        lockIds: limits.lockIds,
        deviceId: q.device_id,
        type: q.type,
        after: q.after,
        before: q.before,
        limit: q.limit === undefined ? undefined : Number(q.limit),
        order: q.order,
        cursor: q.cursor,
      });
      return { events: page.events.map(eventJson), next_cursor: page.nextCursor };
    },
  );

  await app.register(eventStreamRoute, { lockcloud });

  app.post(
    '/webhook/deliveries/:id/resend',
    {
      config: { scope: 'webhooks:manage' },
      schema: {
        summary: 'Send a logged message again, as a new message',
        tags,
        security,
        params: DeliveryIdParams,
        response: { 202: DeliveryAccepted, 400: ExtError, 401: ExtError, 404: ExtError, 429: ExtError },
      },
    },
    async (request, reply) => {
      const delivery = await webhooks.resend(account(request), request.params.id);
      return reply.code(202).send({ delivery_id: delivery.id });
    },
  );
};
