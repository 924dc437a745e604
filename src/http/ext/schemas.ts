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

export const DeliveryView = Type.Object({
  id: Type.String({ description: 'the webhook-id header of the message' }),
  event: Type.String(),
  device_id: Type.String(),
  url: Type.String(),
  method: Type.String(),
  status: Type.String({ description: 'pending, sending, delivered or failed' }),
  attempts: Type.Integer(),
  response_status: Type.Union([Type.Integer(), Type.Null()]),
  error: Type.Union([Type.String(), Type.Null()]),
  latency_ms: Type.Union([Type.Integer(), Type.Null()]),
  created_at: Type.String(),
  last_attempt_at: Type.Union([Type.String(), Type.Null()]),
  next_attempt_at: Type.Union([Type.String(), Type.Null()]),
});

export const ExtError = Type.Object({ error: Type.String(), message: Type.Optional(Type.String()) });
