/** The /ext grant and invitation schemas (OpenAPI and validation); docs/locks.md "Grants". */
import { Type } from 'typebox';

const Iso = Type.Union([Type.String({ description: 'RFC 3339' }), Type.Null()]);

const Role = Type.Union([Type.Literal('view'), Type.Literal('operate')], {
  description: 'view: reads the lock; operate: also locks, unlocks and syncs it',
});

const ScheduleEntry = Type.Object(
  {
    days: Type.Array(Type.String({ maxLength: 3, description: 'mon, tue, wed, thu, fri, sat or sun' }), {
      minItems: 1,
      maxItems: 7,
    }),
    start: Type.String({ maxLength: 5, description: "'HH:MM' on the lock's wall clock" }),
    end: Type.String({
      maxLength: 5,
      description: "'HH:MM', up to '24:00'; not after start: it runs past midnight",
    }),
  },
  { additionalProperties: false },
);

const Schedule = Type.Union([Type.Array(ScheduleEntry, { minItems: 1, maxItems: 28 }), Type.Null()], {
  description: "weekly, in the lock's time_zone; null: at any time within the window",
});

const terms = {
  starts_at: Type.Optional(
    Type.Union([Type.String({ maxLength: 64 }), Type.Null()], {
      description: 'RFC 3339 with an offset; null: from acceptance',
    }),
  ),
  ends_at: Type.Optional(
    Type.Union([Type.String({ maxLength: 64 }), Type.Null()], {
      description: 'RFC 3339 with an offset, in the future; null: until revoked',
    }),
  ),
  schedule: Type.Optional(Schedule),
  one_time: Type.Optional(
    Type.Boolean({ description: 'it ends after its first successful unlock (operate only)' }),
  ),
};

export const GrantInviteBody = Type.Object(
  {
    email: Type.String({ minLength: 1, maxLength: 320, description: "the guest account's e-mail" }),
    role: Role,
    ...terms,
  },
  { additionalProperties: false },
);

export const GrantChangeBody = Type.Object(
  { role: Type.Optional(Role), ...terms },
  { additionalProperties: false, minProperties: 1 },
);

export const GrantParams = Type.Object({
  device_id: Type.String({ minLength: 1, maxLength: 128, description: 'lock UUID' }),
  grant_id: Type.String({ minLength: 1, maxLength: 64 }),
});

export const InvitationParams = Type.Object({
  grant_id: Type.String({ minLength: 1, maxLength: 64 }),
});

const grantFields = {
  id: Type.String({ description: 'grt_…' }),
  device_id: Type.String(),
  role: Role,
  state: Type.Union(
    [
      Type.Literal('pending'),
      Type.Literal('accepted'),
      Type.Literal('declined'),
      Type.Literal('revoked'),
      Type.Literal('used'),
    ],
    { description: 'pending until the guest answers; used: a one-time grant after its unlock' },
  ),
  starts_at: Iso,
  ends_at: Iso,
  schedule: Type.Union([Type.Array(ScheduleEntry), Type.Null()]),
  one_time: Type.Boolean(),
  created_at: Type.String({ description: 'RFC 3339' }),
  responded_at: Iso,
  used_at: Iso,
};

/** A grant as the lock's owner sees it: to whom. */
export const OwnerGrantView = Type.Object({ ...grantFields, guest_email: Type.String() });
export const OwnerGrantList = Type.Object({ grants: Type.Array(OwnerGrantView) });

/** A grant or invitation as its guest sees it: which lock, from whom. */
export const GuestGrantView = Type.Object({
  ...grantFields,
  lock_nickname: Type.String(),
  lock_time_zone: Type.String({
    description:
      "the lock's IANA time zone: the grant's schedule (and what a window means to the owner) is read on it",
  }),
  owner_email: Type.String(),
});
export const InvitationList = Type.Object({ invitations: Type.Array(GuestGrantView) });
export const GuestGrantList = Type.Object({ grants: Type.Array(GuestGrantView) });
