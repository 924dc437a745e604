import { Type } from 'typebox';

const Optional = Type.Optional;

import { UUID_PATTERN } from '../../app/seed/schema.ts';

export const SimLockParams = Type.Object({ device_id: Type.String({ pattern: UUID_PATTERN }) });

export const SimLockChange = Type.Object(
  {
    locked: Type.Optional(
      Type.Boolean({ description: 'the lock turned by hand (a change fires the webhook)' }),
    ),
    battery: Type.Optional(Type.Integer({ minimum: 0, maximum: 100 })),
    responsive: Type.Optional(Type.Boolean({ description: 'the lock within reach of its access point' })),
    integration: Type.Optional(Type.Boolean({ description: "the owner's integration switch in the app" })),
    access_point: Type.Optional(Type.Boolean({ description: 'the lock paired with an access point' })),
    app_open: Type.Optional(Type.Boolean({ description: "the mobile app holds the lock's one connection" })),
    latency_ms: Type.Optional(Type.Integer({ minimum: 0, maximum: 600_000 })),
    fail_next: Type.Optional(
      Type.Union(
        [Type.Literal('JAMMED'), Type.Literal('TIMEOUT'), Type.Literal('DEVICE_UNREACHABLE'), Type.Null()],
        {
          description: 'make the next command fail this way (null clears it)',
        },
      ),
    ),
    door: Optional(
      Type.Union([Type.Literal('open'), Type.Literal('closed'), Type.Null()], {
        description:
          'the door sensor: opened or closed by hand; null removes the sensor (device protocol 2 only)',
      }),
    ),
    jammed: Optional(
      Type.Boolean({
        description: 'the bolt blocked, or freed (device protocol 2 only; a hand turn frees it too)',
      }),
    ),
    firmware: Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        description: "the lock's firmware version (protocol 2 only)",
      }),
    ),
  },
  { additionalProperties: false },
);

export const SimLockState = Type.Object({
  device_id: Type.String(),
  locked: Type.Boolean(),
  battery: Type.Integer(),
  responsive: Type.Boolean(),
  integration: Type.Boolean(),
  access_point: Type.Boolean(),
  app_open: Type.Boolean(),
  latency_ms: Type.Integer(),
  fail_next: Type.Union([Type.String(), Type.Null()]),
  jammed: Type.Boolean({ description: 'always false on device protocol 1' }),
  door: Type.Union([Type.Literal('open'), Type.Literal('closed'), Type.Null()], {
    description: 'null: no door sensor (always, on device protocol 1)',
  }),
  firmware: Type.Union([Type.String(), Type.Null()], { description: 'null on device protocol 1' }),
  auto_lock_seconds: Type.Union([Type.Integer(), Type.Null()], {
    description: 'the auto-lock delay the lock runs now (0: off); null on device protocol 1',
  }),
  protocol_version: Type.Integer({ description: "the device protocol version of the lock's access point" }),
});

/** POST /_sim/locks: a simulated lock added to an account; the seed's defaults for the rest. */
export const SimLockAdd = Type.Object(
  {
    owner: Type.String({ minLength: 3, maxLength: 254, description: 'the e-mail of the account it joins' }),
    nickname: Type.Optional(
      Type.String({ minLength: 1, maxLength: 128, description: 'default: Lock and its serial' }),
    ),
    locked: Type.Optional(Type.Boolean({ description: 'default true' })),
    battery: Type.Optional(Type.Integer({ minimum: 0, maximum: 100, description: 'default 100' })),
    latency_ms: Type.Optional(
      Type.Integer({ minimum: 0, maximum: 600_000, description: 'how long it takes to move; default 0' }),
    ),
  },
  { additionalProperties: false },
);

/** The added lock: its simulated state (as POST /_sim/locks/{device_id} answers) and what the cloud knows. */
export const SimLockAdded = Type.Object({
  ...SimLockState.properties,
  serial: Type.String(),
  nickname: Type.String(),
  owner: Type.String({ description: "the owner's e-mail" }),
  access_point_id: Type.String({ description: 'the simulated access point it is paired with' }),
});

export const ClockAdvance = Type.Object(
  { advance_seconds: Type.Integer({ minimum: 0, maximum: 10 * 365 * 24 * 3600 }) },
  { additionalProperties: false },
);

export const ClockState = Type.Object({
  now: Type.String({ description: 'the server clock, ISO 8601 UTC' }),
  epoch_ms: Type.Integer(),
});

export const AccountParams = Type.Object({ email: Type.String({ minLength: 3, maxLength: 254 }) });

export const AccountChange = Type.Object(
  {
    password: Type.Optional(Type.String({ minLength: 1, maxLength: 1024 })),
    deleted: Type.Optional(Type.Literal(true)),
  },
  { additionalProperties: false, minProperties: 1 },
);

export const AccountChanged = Type.Object({
  email: Type.String(),
  password_changed: Type.Boolean(),
  deleted: Type.Boolean(),
});

export const MailboxQuery = Type.Object({ to: Type.String({ minLength: 3, maxLength: 254 }) });

export const MailList = Type.Array(
  Type.Object({ to: Type.String(), subject: Type.String(), text: Type.String(), sent_at: Type.String() }),
);

/** POST /_sim/reset takes no fields: no body, or an empty object. */
export const ResetBody = Type.Object({}, { additionalProperties: false });
export const ResetDone = Type.Null({ description: 'reset: no body' });

export const SimError = Type.Object({ error: Type.String(), message: Type.Optional(Type.String()) });
