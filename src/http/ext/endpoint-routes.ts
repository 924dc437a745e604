import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Lockcloud } from '../../app/lockcloud.ts';
import type { Delivery } from '../../domain/delivery.ts';
import type { WebhookEndpoint } from '../../domain/webhook-endpoint.ts';
import { requirePrincipal } from '../principal.ts';
import { deliveryProgress, iso } from './delivery-view.ts';
import {
  EndpointCreateBody,
  EndpointDeliveriesQuery,
  EndpointDeliveryPage,
  EndpointDeliveryParams,
  EndpointIdParams,
  EndpointListView,
  EndpointPatchBody,
  EndpointView,
} from './endpoint-schemas.ts';
import { DeliveryAccepted, ExtError, SecretView } from './schemas.ts';

const endpointView = (e: WebhookEndpoint) => ({
  id: e.id,
  url: e.url,
  types: [...e.types],
  device_ids: [...e.deviceIds],
  retries: e.retries,
  enabled: e.enabled,
  disabled_at: iso(e.disabledAt),
  disabled_reason: e.disabledReason,
  failing_since: iso(e.failingSince),
  created_at: new Date(e.createdAt).toISOString(),
});

const deliveryView = (d: Delivery) => ({
  id: d.id,
  event: d.event,
  event_id: d.eventId ?? '',
  device_id: d.deviceId === '' ? null : d.deviceId,
  url: d.url,
  ...deliveryProgress(d),
});

const tags = ['extensions'];
const security = [{ apiKey: [] }];
const badLimit = () => Object.assign(new Error('limit: must be from 1 to 500'), { statusCode: 400 });

/** /ext/webhook-endpoints: registered inside the extension plugin, under its key check and limits. */
export function endpointRoutes(app: FastifyInstance, lockcloud: Lockcloud): void {
  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  const endpoints = lockcloud.webhookEndpoints;
  const account = (request: FastifyRequest): string => requirePrincipal(request.principal).accountId;
  const actor = (request: FastifyRequest) => requirePrincipal(request.principal).actor;
  const errors = { 400: ExtError, 401: ExtError, 404: ExtError };

  api.post(
    '/webhook-endpoints',
    {
      config: { scope: 'webhooks:manage' },
      schema: {
        summary: 'Register a webhook endpoint for the event log',
        description:
          'The answer carries the signing secret (whsec_...), shown this once. At most 10 per account.',
        tags,
        security,
        body: EndpointCreateBody,
        response: { 201: EndpointView, 400: ExtError, 401: ExtError },
      },
    },
    async (request, reply) => {
      const { endpoint, secret } = await endpoints.create(account(request), request.body, actor(request));
      return reply.code(201).send({ ...endpointView(endpoint), secret });
    },
  );

  api.get(
    '/webhook-endpoints',
    {
      config: { scope: 'webhooks:manage' },
      schema: {
        summary: "The account's webhook endpoints, oldest first",
        tags,
        security,
        response: { 200: EndpointListView, 401: ExtError },
      },
    },
    async (request) => ({ endpoints: (await endpoints.list(account(request))).map(endpointView) }),
  );

  api.get(
    '/webhook-endpoints/:id',
    {
      config: { scope: 'webhooks:manage' },
      schema: {
        summary: 'One webhook endpoint',
        tags,
        security,
        params: EndpointIdParams,
        response: { 200: EndpointView, ...errors },
      },
    },
    async (request) => endpointView(await endpoints.get(account(request), request.params.id)),
  );

  api.patch(
    '/webhook-endpoints/:id',
    {
      config: { scope: 'webhooks:manage' },
      schema: {
        summary: 'Change a webhook endpoint; enabled: true enables a disabled one again',
        tags,
        security,
        params: EndpointIdParams,
        body: EndpointPatchBody,
        response: { 200: EndpointView, ...errors },
      },
    },
    async (request) =>
      endpointView(await endpoints.update(account(request), request.params.id, request.body, actor(request))),
  );

  api.delete(
    '/webhook-endpoints/:id',
    {
      config: { scope: 'webhooks:manage' },
      schema: {
        summary: 'Remove a webhook endpoint and its delivery log',
        tags,
        security,
        params: EndpointIdParams,
        response: { 204: { type: 'null' }, ...errors },
      },
    },
    async (request, reply) => {
      await endpoints.remove(account(request), request.params.id, actor(request));
      return reply.code(204).send(null);
    },
  );

  api.post(
    '/webhook-endpoints/:id/rotate-secret',
    {
      config: { scope: 'webhooks:manage' },
      schema: {
        summary: 'Make a new signing secret for the endpoint; the old one signs too for 24 h',
        tags,
        security,
        params: EndpointIdParams,
        response: { 200: SecretView, ...errors },
      },
    },
    async (request) => ({ secret: await endpoints.rotateSecret(account(request), request.params.id) }),
  );

  api.get(
    '/webhook-endpoints/:id/deliveries',
    {
      config: { scope: 'webhooks:manage' },
      schema: {
        summary: "The endpoint's delivery log, newest first (the last 500 are kept)",
        tags,
        security,
        params: EndpointIdParams,
        querystring: EndpointDeliveriesQuery,
        response: { 200: EndpointDeliveryPage, ...errors },
      },
    },
    async (request) => {
      const limit = request.query.limit === undefined ? 50 : Number(request.query.limit);
      if (limit < 1 || limit > 500) throw badLimit();
      const page = await endpoints.deliveries(
        account(request),
        request.params.id,
        limit,
        request.query.cursor,
      );
      return { deliveries: page.deliveries.map(deliveryView), next_cursor: page.nextCursor };
    },
  );

  api.post(
    '/webhook-endpoints/:id/deliveries/:delivery_id/resend',
    {
      config: { scope: 'webhooks:manage' },
      schema: {
        summary: 'Send a logged message again (the same event and webhook-id), as a new log entry',
        tags,
        security,
        params: EndpointDeliveryParams,
        response: { 202: DeliveryAccepted, ...errors, 429: ExtError },
      },
    },
    async (request, reply) => {
      const { id, delivery_id } = request.params;
      const delivery = await endpoints.resend(account(request), id, delivery_id);
      return reply.code(202).send({ delivery_id: delivery.id });
    },
  );
}
