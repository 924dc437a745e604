import { Type } from 'typebox';

export const WebhookBody = Type.Object(
  {
    url: Type.String({
      description: 'http(s), at most 256 characters; {device_id} and {state} are substituted',
    }),
    method: Type.Optional(Type.Union([Type.Literal('GET'), Type.Literal('POST')], { default: 'POST' })),
    retries: Type.Optional(
      Type.Boolean({ description: 'opt-in retries with backoff; off by default (one attempt)' }),
    ),
  },
  { additionalProperties: false },
);

export const WebhookView = Type.Object({
  url: Type.String(),
  method: Type.String(),
  retries: Type.Boolean(),
  secret: Type.Optional(Type.String({ description: 'the signing secret: answered once, when first made' })),
});

export const SecretView = Type.Object({
  secret: Type.String({
    description: 'the new signing secret, shown once; the previous one signs too for 24 h',
  }),
});

export const DeliveryAccepted = Type.Object({ delivery_id: Type.String() });

export const DeliveriesQuery = Type.Object({
  limit: Type.Optional(Type.String({ pattern: '^[0-9]{1,3}$', description: '1 to 500, default 50' })),
});

export const DeliveryIdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });

/**
 * A delivery's progress, the same in both delivery logs (the webhook's here and an endpoint's in
 * endpoint-schemas.ts); spread last into each view, which keeps the documents' field order.
 */
export const DeliveryAttemptFields = {
  status: Type.String({ description: 'pending, sending, delivered or failed' }),
  attempts: Type.Integer(),
  response_status: Type.Union([Type.Integer(), Type.Null()]),
  error: Type.Union([Type.String(), Type.Null()]),
  latency_ms: Type.Union([Type.Integer(), Type.Null()]),
  created_at: Type.String(),
  last_attempt_at: Type.Union([Type.String(), Type.Null()]),
  next_attempt_at: Type.Union([Type.String(), Type.Null()]),
};

export const DeliveryView = Type.Object({
  id: Type.String({ description: 'the webhook-id header of the message' }),
  event: Type.String(),
  device_id: Type.String(),
  url: Type.String(),
  method: Type.String(),
  ...DeliveryAttemptFields,
});

export const ExtError = Type.Object({ error: Type.String(), message: Type.Optional(Type.String()) });

export const EventsQuery = Type.Object(
  {
    device_id: Type.Optional(Type.String({ maxLength: 128, description: "one lock's events" })),
    type: Type.Optional(
      Type.String({ maxLength: 64, description: 'a type or its start: `lock.` is every lock event' }),
    ),
    after: Type.Optional(Type.String({ maxLength: 64, description: 'only events after this event id' })),
    before: Type.Optional(Type.String({ maxLength: 64, description: 'only events before this event id' })),
    limit: Type.Optional(Type.String({ pattern: '^[0-9]{1,3}$', description: '1 to 500, default 50' })),
    order: Type.Optional(
      Type.Union([Type.Literal('oldest-first'), Type.Literal('newest-first')], {
        description: 'oldest-first (the default) or newest-first',
      }),
    ),
    cursor: Type.Optional(
      Type.String({ maxLength: 64, description: "the last page's next_cursor: the page after it" }),
    ),
  },
  { additionalProperties: false },
);

export const EventStreamQuery = Type.Object(
  {
    device_id: EventsQuery.properties.device_id,
    type: EventsQuery.properties.type,
    last_event_id: Type.Optional(
      Type.String({
        maxLength: 64,
        description: 'resume after this event id (the Last-Event-ID header wins when both are given)',
      }),
    ),
  },
  { additionalProperties: false },
);

export const EventView = Type.Object({
  id: Type.String({ description: 'unique, sorts by time: evt_ and 28 hex digits' }),
  type: Type.String({ description: 'lock.unlocked, command.failed, ... (docs/events.md)' }),
  occurred_at: Type.String({ description: 'RFC 3339' }),
  device_id: Type.Union([Type.String(), Type.Null()]),
  actor: Type.Object({
    kind: Type.String({
      description:
        'account, api_key, v1_token, partner, dashboard_session, device, system, grant or oauth_app',
    }),
    account_id: Type.Optional(Type.String()),
    key_prefix: Type.Optional(Type.String({ description: "the key's display prefix, never the key" })),
    grant_id: Type.Optional(Type.String({ description: 'for grant: the grant a guest acted through' })),
    app_id: Type.Optional(
      Type.String({ description: 'for oauth_app: the app (its OAuth client id) that acted for account_id' }),
    ),
    app_name: Type.Optional(
      Type.String({ description: "for oauth_app: the app's name when it acted (a later rename leaves it)" }),
    ),
  }),
  method: Type.Union([Type.String(), Type.Null()], {
    description:
      'how a lock moved or a command came: api_v3, api_v1, api_ext, partner, dashboard, manual, auto',
  }),
  task_id: Type.Union([Type.String(), Type.Null()]),
  data: Type.Record(Type.String(), Type.Unknown()),
});

export const EventPageView = Type.Object({
  events: Type.Array(EventView),
  next_cursor: Type.Union([Type.String(), Type.Null()], {
    description: 'pass as `cursor` (with the same filters) for the next page; null: no more for now',
  }),
});
