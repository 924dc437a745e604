/** The /ext/locks schemas (OpenAPI and validation); docs/locks.md. */
import { Type } from 'typebox';

export const LockIdParams = Type.Object({
  device_id: Type.String({ minLength: 1, maxLength: 128, description: 'lock UUID' }),
});

const Iso = Type.Union([Type.String({ description: 'RFC 3339' }), Type.Null()]);

export const AccessPointView = Type.Object({
  id: Type.String(),
  name: Type.String(),
  online: Type.Boolean(),
  last_seen_at: Iso,
  firmware: Type.Union([Type.String(), Type.Null()]),
  signal: Type.Union([Type.Integer({ description: 'Wi-Fi signal strength, dBm' }), Type.Null()]),
  protocol_version: Type.Integer({ description: 'the device protocol version it speaks with the cloud' }),
});

export const ExtLockView = Type.Object({
  device_id: Type.String(),
  nickname: Type.String(),
  role: Type.Union([Type.Literal('owner'), Type.Literal('guest')], {
    description: 'owner, or guest: a lock shared with the account (no settings, no access point)',
  }),
  locked: Type.Boolean({ description: 'as v3: true = locked' }),
  battery: Type.Integer({ minimum: 0, maximum: 100, description: 'as v3: percent' }),
  responsive: Type.Boolean({ description: 'as v3: its access point is online and the lock in reach' }),
  battery_state: Type.Union([Type.Literal('ok'), Type.Literal('low'), Type.Literal('critical')], {
    description: "against the lock's thresholds, with 5 points of hysteresis (docs/locks.md)",
  }),
  battery_per_day: Type.Union([Type.Number(), Type.Null()], {
    description:
      'the trend, percent points per day over a day or more of readings (negative: draining); null until then',
  }),
  jammed: Type.Boolean({ description: 'the bolt is blocked (device protocol 2; false on 1)' }),
  door: Type.Union([Type.Literal('open'), Type.Literal('closed'), Type.Null()], {
    description: 'the door sensor; null: the lock has none (or speaks protocol 1)',
  }),
  last_seen_at: Iso,
  firmware: Type.Union([Type.String(), Type.Null()]),
  time_zone: Type.String({
    description:
      "the lock's IANA time zone ('UTC' until its owner sets one): grants' schedules are read on it",
  }),
  serial: Type.Optional(Type.String({ description: "owner only: the lock's serial" })),
  auto_lock_seconds: Type.Optional(
    Type.Integer({ description: 'owner only: relock this long after an unlock; 0: off' }),
  ),
  battery_low: Type.Optional(
    Type.Integer({ description: 'owner only: under it (percent) the battery is low' }),
  ),
  battery_critical: Type.Optional(
    Type.Integer({ description: 'owner only: under it the battery is critical' }),
  ),
  access_point: Type.Optional(
    Type.Union([AccessPointView, Type.Null()], {
      description: 'owner only: the access point it is paired with; null: none',
    }),
  ),
});

export const ExtLockList = Type.Object({ locks: Type.Array(ExtLockView) });

export const LockSettingsBody = Type.Object(
  {
    nickname: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
    auto_lock_seconds: Type.Optional(
      Type.Integer({ minimum: 0, maximum: 3600, description: '0: off; needs device protocol 2' }),
    ),
    battery_low: Type.Optional(Type.Integer({ minimum: 2, maximum: 100 })),
    battery_critical: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 99, description: 'lower than battery_low' }),
    ),
    time_zone: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        description: "an IANA time zone (Europe/Berlin): grants' schedules are read on its wall clock",
      }),
    ),
  },
  { additionalProperties: false, minProperties: 1 },
);
