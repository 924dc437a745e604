/**
 * The types of `/ext` grants and invitations (docs/locks.md "Grants"): an owner's grant of a lock to
 * a guest account, which the guest accepts. Checked against `/openapi.json` by
 * `test/sdk/drift.test.ts`.
 */

/**
 * `view` reads the lock; `operate` also locks, unlocks and syncs it through `/ext`.
 *
 * @example
 * const role: GrantRole = 'operate';
 */
export type GrantRole = 'view' | 'operate';

/**
 * `pending` until the guest answers; `declined` (also given back), `revoked` by the owner, `used`: a
 * one-time grant after its unlock.
 *
 * @example
 * const live = (state: GrantState) => state === 'pending' || state === 'accepted';
 */
export type GrantState = 'pending' | 'accepted' | 'declined' | 'revoked' | 'used';

/**
 * One entry of a weekly schedule, on the wall clock of the lock's time zone: `end` not after `start`
 * runs past midnight.
 *
 * @example
 * const weekdays: GrantScheduleEntry = { days: ['mon', 'tue', 'wed', 'thu', 'fri'], start: '08:00', end: '18:00' };
 */
export interface GrantScheduleEntry {
  days: string[];
  start: string;
  end: string;
}

/**
 * The terms an owner sets and changes; dates are RFC 3339 with an offset, null clears.
 *
 * @example
 * const terms: GrantTerms = { role: 'operate', ends_at: '2030-01-01T00:00:00Z', one_time: true };
 */
export interface GrantTerms {
  role?: GrantRole;
  starts_at?: string | null;
  ends_at?: string | null;
  schedule?: GrantScheduleEntry[] | null;
  one_time?: boolean;
}

/**
 * `POST /ext/locks/{device_id}/grants`: whom to invite, and on what terms.
 *
 * @example
 * const invitation: GrantInvitation = { email: 'guest@example.com', role: 'view' };
 */
export interface GrantInvitation extends GrantTerms {
  email: string;
  role: GrantRole;
}

/**
 * A grant, as its owner or its guest reads it.
 *
 * @example
 * const open = (g: Grant) => g.state === 'accepted' && g.ends_at === null;
 */
export interface Grant {
  /** `grt_…` */
  id: string;
  device_id: string;
  role: GrantRole;
  state: GrantState;
  starts_at: string | null;
  ends_at: string | null;
  schedule: GrantScheduleEntry[] | null;
  one_time: boolean;
  created_at: string;
  responded_at: string | null;
  used_at: string | null;
}

/**
 * A grant as the lock's owner reads it: to whom.
 *
 * @example
 * const who = (g: OwnerGrant) => `${g.guest_email}: ${g.state}`;
 */
export interface OwnerGrant extends Grant {
  guest_email: string;
}

/**
 * `GET /ext/locks/{device_id}/grants`.
 *
 * @example
 * const { grants } = await client.grants.list(deviceId);
 */
export interface OwnerGrantList {
  grants: OwnerGrant[];
}

/**
 * A grant or invitation as its guest reads it: which lock, from whom.
 *
 * @example
 * const from = (g: GuestGrant) => `${g.lock_nickname}, from ${g.owner_email}`;
 */
export interface GuestGrant extends Grant {
  lock_nickname: string;
  /** The lock's IANA time zone: the grant's schedule is read on it. */
  lock_time_zone: string;
  owner_email: string;
}

/**
 * `GET /ext/invitations`.
 *
 * @example
 * const { invitations } = await client.grants.invitations();
 */
export interface InvitationList {
  invitations: GuestGrant[];
}

/**
 * `GET /ext/grants`.
 *
 * @example
 * const { grants } = await client.grants.mine();
 */
export interface GuestGrantList {
  grants: GuestGrant[];
}
