import { type Static, Type } from 'typebox';

/** RFC 4122 shape, any version; device ids are compared in lower case. */
export const UUID_PATTERN = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';

const Email = Type.String({ minLength: 3, maxLength: 254, pattern: '^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$' });
const Battery = Type.Integer({ minimum: 0, maximum: 100 });

export const SeedAccount = Type.Object(
  {
    email: Email,
    password: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 1024 }), Type.Null()])),
    verified: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

export const SeedApiKey = Type.Object(
  { account: Email, key: Type.String({ minLength: 8, maxLength: 512, pattern: '^\\S+$' }) },
  { additionalProperties: false },
);

export const SeedLock = Type.Object(
  {
    device_id: Type.String({ pattern: UUID_PATTERN }),
    serial: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    nickname: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
    owner: Email,
    shared_with: Type.Optional(Type.Array(Email)),
    locked: Type.Optional(Type.Boolean()),
    battery: Type.Optional(Battery),
    responsive: Type.Optional(Type.Boolean()),
    integration: Type.Optional(Type.Boolean()),
    access_point: Type.Optional(Type.Boolean()),
    /** Which of seed.access_points speaks for the lock; by default one made for the owner. */
    access_point_id: Type.Optional(Type.String({ pattern: UUID_PATTERN })),
    app_open: Type.Optional(Type.Boolean()),
    latency_ms: Type.Optional(Type.Integer({ minimum: 0, maximum: 600_000 })),
  },
  { additionalProperties: false },
);

/** A simulated Wi-Fi access point; its locks name it in `access_point_id`. */
export const SeedAccessPoint = Type.Object(
  {
    id: Type.String({ pattern: UUID_PATTERN }),
    account: Email,
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
    /** Its MQTT password, for a simulator run as a separate process (`lockcloud sim --seed`). */
    secret: Type.Optional(Type.String({ minLength: 16, maxLength: 256, pattern: '^\\S+$' })),
  },
  { additionalProperties: false },
);

export const SeedWebhook = Type.Object(
  {
    account: Email,
    method: Type.Optional(Type.Union([Type.Literal('GET'), Type.Literal('POST')])),
    url: Type.String({ minLength: 1, maxLength: 256, pattern: '^[hH][tT][tT][pP][sS]?://\\S+$' }),
    retries: Type.Optional(Type.Boolean()),
    /** A known signing secret for tests; without one, a random secret is made when first needed. */
    secret: Type.Optional(Type.String({ pattern: '^whsec_[A-Za-z0-9+/]{16,}={0,2}$' })),
  },
  { additionalProperties: false },
);

export const Seed = Type.Object(
  {
    accounts: Type.Optional(Type.Array(SeedAccount)),
    api_keys: Type.Optional(Type.Array(SeedApiKey)),
    access_points: Type.Optional(Type.Array(SeedAccessPoint)),
    locks: Type.Optional(Type.Array(SeedLock)),
    webhooks: Type.Optional(Type.Array(SeedWebhook)),
  },
  { additionalProperties: false },
);

export type Seed = Static<typeof Seed>;
export type SeedLock = Static<typeof SeedLock>;
export type SeedAccessPoint = Static<typeof SeedAccessPoint>;
