/** The /ext/webhook-endpoints schemas (OpenAPI and validation); docs/webhooks.md "Endpoints". */
import { Type } from 'typebox';
import { DeliveryAttemptFields } from './schemas.ts';

const Types = Type.Array(Type.String({ maxLength: 64 }), {
  maxItems: 32,
  description: 'event types or their starts (`lock.`); empty or left out: every type',
});
const DeviceIds = Type.Array(Type.String({ maxLength: 128 }), {
  maxItems: 100,
  description: "locks the account owns; empty or left out: every lock's events and the account's",
});

export const EndpointCreateBody = Type.Object(
  {
    url: Type.String({ description: 'http(s), at most 256 characters, no credentials, no placeholders' }),
    types: Type.Optional(Types),
    device_ids: Type.Optional(DeviceIds),
    retries: Type.Optional(Type.Boolean({ description: 'retries on the schedule; on by default' })),
    enabled: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

export const EndpointPatchBody = Type.Object(
  {
    url: Type.Optional(Type.String()),
    types: Type.Optional(Types),
    device_ids: Type.Optional(DeviceIds),
    retries: Type.Optional(Type.Boolean()),
    enabled: Type.Optional(
      Type.Boolean({ description: 'true enables a disabled endpoint again; false disables it' }),
    ),
  },
  { additionalProperties: false },
);

export const EndpointView = Type.Object({
  id: Type.String({ description: 'we_ and 32 hex digits' }),
  url: Type.String(),
  types: Type.Array(Type.String()),
  device_ids: Type.Array(Type.String()),
  retries: Type.Boolean(),
  enabled: Type.Boolean(),
  disabled_at: Type.Union([Type.String(), Type.Null()]),
  disabled_reason: Type.Union([Type.String(), Type.Null()]),
  failing_since: Type.Union([Type.String(), Type.Null()], {
    description: 'since when every attempt failed; null when the last one was delivered',
  }),
  created_at: Type.String(),
  secret: Type.Optional(
    Type.String({ description: 'the signing secret (whsec_...), answered once, on create' }),
  ),
});

export const EndpointListView = Type.Object({ endpoints: Type.Array(EndpointView) });

export const EndpointIdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });

export const EndpointDeliveryParams = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 64 }),
  delivery_id: Type.String({ minLength: 1, maxLength: 64 }),
});

export const EndpointDeliveriesQuery = Type.Object(
  {
    limit: Type.Optional(Type.String({ pattern: '^[0-9]{1,3}$', description: '1 to 500, default 50' })),
    cursor: Type.Optional(Type.String({ maxLength: 64, description: "the last page's next_cursor" })),
  },
  { additionalProperties: false },
);

export const EndpointDeliveryView = Type.Object({
  id: Type.String({ description: "this log entry's id (the webhook-id header is the event id)" }),
  event: Type.String({ description: "the event's type" }),
  event_id: Type.String(),
  device_id: Type.Union([Type.String(), Type.Null()]),
  url: Type.String(),
  ...DeliveryAttemptFields,
});

export const EndpointDeliveryPage = Type.Object({
  deliveries: Type.Array(EndpointDeliveryView),
  next_cursor: Type.Union([Type.String(), Type.Null()]),
});
