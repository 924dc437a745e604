import { Type } from 'typebox';
import { UUID_PATTERN } from '../../app/seed/schema.ts';

/**
 * The v3 wire format, once: these schemas validate requests, shape responses (serialized from the
 * schema, so no field can leak), and produce the OpenAPI document.
 */
export const DeviceIdParams = Type.Object({
  device_id: Type.String({ pattern: UUID_PATTERN, description: 'lock UUID' }),
});

export const LockListItem = Type.Object({
  device_id: Type.String({ format: 'uuid', description: 'unique lock identifier' }),
  serial: Type.String({ description: 'lock serial' }),
  nickname: Type.String({ description: 'lock nickname' }),
});
export const LockList = Type.Array(LockListItem);

export const LockStatus = Type.Object({
  locked: Type.Boolean({ description: 'true = locked, false = unlocked' }),
  battery: Type.Integer({ minimum: 0, maximum: 100, description: 'battery status (a percentage)' }),
  responsive: Type.Boolean({ description: 'true when the lock is responsive now' }),
});

export const CommandBody = Type.Object(
  { command: Type.Union([Type.Literal('lock'), Type.Literal('unlock'), Type.Literal('sync')]) },
  { additionalProperties: false },
);

export const TaskCreated = Type.Object({
  task_id: Type.String({ description: 'identifier used to query the execution result' }),
});

export const ActionResultQuery = Type.Object({
  task_id: Type.String({ minLength: 1, maxLength: 128 }),
});

export const ActionResult = Type.Object({
  status: Type.Union([Type.Literal('processing'), Type.Literal('terminated')]),
  task_id: Type.String({
    description: 'the task asked for (as published clients of the original service read it)',
  }),
  successful: Type.Optional(Type.Boolean({ description: 'present only when status is terminated' })),
  error: Type.Optional(
    Type.Union(
      ['TIMEOUT', 'DEVICE_UNREACHABLE', 'DEVICE_IS_BUSY', 'JAMMED', 'LOW_BATTERY', 'INTERNAL_ERROR'].map(
        (e) => Type.Literal(e),
      ),
      { description: 'reason the execution failed' },
    ),
  ),
});

export const PartnerBody = Type.Object(
  {
    command: Type.Union([Type.Literal('lock'), Type.Literal('unlock')]),
    apikey: Type.String({ description: 'the API key' }),
    device_id: Type.String({ pattern: UUID_PATTERN, description: 'lock device_id' }),
  },
  { additionalProperties: false },
);

export const V3Error = Type.Object(
  { error: Type.String({ description: 'the error detail, e.g. BAD_PARAMS or DEVICE_IS_BUSY 12' }) },
  { $id: 'V3Error' },
);

/**
 * The refusals every keyed v3 operation can answer, whatever its route (docs/errors.md): no valid
 * key (401), a blocked address or a key without the route's scope (403 ACCESS_DENY), a rate limit
 * (429 THROTTLED). Their bodies are V3Error's one field, so declaring them changes no byte.
 */
export const V3_REFUSALS = { 401: V3Error, 403: V3Error, 429: V3Error } as const;
