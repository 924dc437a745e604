/** The /ext command and task schemas (OpenAPI and validation); docs/locks.md "Grants". */
import { Type } from 'typebox';

export const ExtCommandBody = Type.Object(
  {
    command: Type.Union([Type.Literal('lock'), Type.Literal('unlock'), Type.Literal('sync')], {
      description: 'as v3',
    }),
  },
  { additionalProperties: false },
);

export const TaskIdParams = Type.Object({
  task_id: Type.String({ minLength: 1, maxLength: 128 }),
});

export const ExtTaskView = Type.Object({
  task_id: Type.String(),
  device_id: Type.String(),
  command: Type.Union([Type.Literal('lock'), Type.Literal('unlock'), Type.Literal('sync')]),
  status: Type.Union([Type.Literal('processing'), Type.Literal('terminated')]),
  successful: Type.Optional(Type.Boolean({ description: 'once terminated' })),
  error: Type.Optional(
    Type.String({
      description: "v3's failure reason (TIMEOUT, DEVICE_UNREACHABLE, JAMMED...), when not successful",
    }),
  ),
  created_at: Type.String({ description: 'RFC 3339' }),
  ended_at: Type.Union([Type.String({ description: 'RFC 3339' }), Type.Null()]),
});
