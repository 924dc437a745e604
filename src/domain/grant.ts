/**
 * Grants (issue 23): an owner gives a guest account access to one lock, which the guest accepts or
 * declines. A grant has a role, an optional window (`starts_at` to `ends_at`), an optional weekly
 * schedule (schedule.ts) and may be one-time (it ends with its first successful unlock). Pure rules,
 * no I/O: the time is passed in, as is the lock's time zone; stores, routes and events come later.
 */
import { checkFields, DomainError } from './errors.ts';
import { parseRfc3339 } from './rfc3339.ts';
import { checkScheduleInput, localTime, scheduleAllows, type WeeklySchedule } from './schedule.ts';

export type GrantRole = 'view' | 'operate';
export const GRANT_ROLES: readonly GrantRole[] = ['view', 'operate'];

/**
 * pending: invited, not answered; accepted; declined (also an accepted grant the guest gave back);
 * revoked by the owner (a pending one: withdrawn); used: a one-time grant after its unlock. Only
 * pending and accepted ones change again.
 */
export type GrantState = 'pending' | 'accepted' | 'declined' | 'revoked' | 'used';
export const GRANT_STATES: readonly GrantState[] = ['pending', 'accepted', 'declined', 'revoked', 'used'];

/** What the owner sets, and edits. */
export interface GrantTerms {
  readonly role: GrantRole;
  /** Epoch ms; access from then on (included). null: from acceptance. */
  readonly startsAt: number | null;
  /** Epoch ms; access until then (excluded). null: until revoked. */
  readonly endsAt: number | null;
  /** When within the window; null: at any time. */
  readonly schedule: WeeklySchedule | null;
  /** It ends after its first successful unlock (operate grants only). */
  readonly oneTime: boolean;
}

/** What grantAllows reads of a grant. */
export interface GrantRules extends GrantTerms {
  readonly state: GrantState;
}

/** A grant as the owner makes it: pending, its terms, nobody's answer yet. */
export interface NewGrant extends GrantTerms {
  readonly id: string;
  readonly deviceId: string;
  /** The owner who granted it (the lock's owner then). */
  readonly ownerId: string;
  readonly guestId: string;
  /** When it was made (invited, or for a share from before grants, migrated or shared). */
  readonly createdAt: number;
}

export interface Grant extends NewGrant, GrantRules {
  /**
   * When it was last answered: accepted or declined by the guest, or revoked by the owner; null
   * while pending. Only the last answer is kept (an accepted grant given back shows the decline).
   */
  readonly respondedAt: number | null;
  /** When a one-time grant was used up by its unlock; null until then. */
  readonly usedAt: number | null;
}

/** The states a grant is answered into (GrantStore.updateStateIf); 'used' comes from an unlock only. */
export type GrantAnswer = Extract<GrantState, 'accepted' | 'declined' | 'revoked'>;

/** A grant in its lock's list, as the owner sees it: to whom. */
export interface OwnerGrant extends Grant {
  readonly guestEmail: string;
}

/** A grant in a guest's list: which lock, and from whom. */
export interface GuestGrant extends Grant {
  readonly lockNickname: string;
  readonly ownerEmail: string;
  /** The lock's IANA time zone: the grant's window and schedule are read on it. */
  readonly lockTimeZone: string;
}

/** The API's body (POST and PATCH of a grant), unchecked. */
export interface GrantInput {
  readonly role?: unknown;
  readonly starts_at?: unknown;
  readonly ends_at?: unknown;
  readonly schedule?: unknown;
  readonly one_time?: unknown;
}

/** An edit: only the terms the request gave. */
export type GrantChange = Partial<GrantTerms>;

const invalid = (field: string, message: string): DomainError =>
  new DomainError('INVALID_INPUT', `${field}: ${message}`, { field });

const roleOf = (value: unknown): GrantRole => {
  if (!GRANT_ROLES.includes(value as GrantRole)) throw invalid('role', 'must be "view" or "operate"');
  return value as GrantRole;
};

/** null clears a bound; an `ends_at` already past is refused, as it grants nothing. */
const instantOf = (field: 'starts_at' | 'ends_at', value: unknown, nowMs: number): number | null => {
  if (value === null) return null;
  const at = typeof value === 'string' ? parseRfc3339(value) : null;
  if (at === null)
    throw invalid(field, 'must be an RFC 3339 date-time with an offset (2026-05-01T08:00:00Z), or null');
  if (field === 'ends_at' && at <= nowMs) throw invalid(field, 'must be in the future');
  return at;
};

const oneTimeOf = (value: unknown): boolean => {
  if (typeof value !== 'boolean') throw invalid('one_time', 'must be true or false');
  return value;
};

const optional =
  <T>(value: unknown, check: (v: unknown) => T) =>
  (): T | undefined =>
    value === undefined ? undefined : check(value);

/** Every field checked at once (checkFields), each one only when given. */
const checkGiven = (input: GrantInput, nowMs: number): GrantChange => {
  const [role, startsAt, endsAt, schedule, oneTime] = checkFields(
    optional(input.role, roleOf),
    optional(input.starts_at, (v) => instantOf('starts_at', v, nowMs)),
    optional(input.ends_at, (v) => instantOf('ends_at', v, nowMs)),
    optional(input.schedule, checkScheduleInput),
    optional(input.one_time, oneTimeOf),
  );
  return {
    ...(role === undefined ? {} : { role }),
    ...(startsAt === undefined ? {} : { startsAt }),
    ...(endsAt === undefined ? {} : { endsAt }),
    ...(schedule === undefined ? {} : { schedule }),
    ...(oneTime === undefined ? {} : { oneTime }),
  };
};

/**
 * The rules between fields, on the terms an edit leads to: the window ends after it starts, and only
 * an operate grant is one-time (a view grant never unlocks, so it would never end). The field named
 * is one the request gave: the one to change.
 */
const checkTogether = (terms: GrantTerms, given: GrantChange): void => {
  if (terms.startsAt !== null && terms.endsAt !== null && terms.endsAt <= terms.startsAt) {
    const field = given.endsAt === undefined ? 'starts_at' : 'ends_at';
    throw invalid(field, 'ends_at must be after starts_at');
  }
  if (terms.oneTime && terms.role === 'view') {
    const field = given.oneTime === undefined ? 'role' : 'one_time';
    throw invalid(field, 'only an operate grant can be one-time');
  }
};

/**
 * Checks a new grant's terms (the API's names: role, starts_at, ends_at, schedule, one_time). `role`
 * is required; no window, no schedule and not one-time when absent. Throws INVALID_INPUT naming the
 * field (each wrong one in `fields`); answers the terms.
 */
export function checkGrantInput(input: GrantInput, nowMs: number): GrantTerms {
  const given = checkGiven({ ...input, role: input.role ?? null }, nowMs);
  const terms: GrantTerms = {
    role: given.role as GrantRole,
    startsAt: given.startsAt ?? null,
    endsAt: given.endsAt ?? null,
    schedule: given.schedule ?? null,
    oneTime: given.oneTime ?? false,
  };
  checkTogether(terms, given);
  return terms;
}

/**
 * Checks an owner's edit of a grant's `current` terms: only the fields given change, null clears a
 * bound or the schedule. Answers the change, without the absent fields. An edit does not ask the
 * guest again: the owner may narrow or widen what was given (canEditGrant says when it may edit).
 */
export function checkGrantChange(input: GrantInput, current: GrantTerms, nowMs: number): GrantChange {
  const given = checkGiven(input, nowMs);
  checkTogether({ ...current, ...given }, given);
  return given;
}

/** A grant is edited while it may still give access: pending or accepted. */
export function canEditGrant(state: GrantState): boolean {
  return state === 'pending' || state === 'accepted';
}

export type GrantStep = 'accept' | 'decline' | 'revoke';

/**
 * The state after the guest accepts or declines, or the owner revokes; null when the step does not
 * apply (the caller answers as it sees fit: a guest's step on a grant no longer theirs is best a
 * not-found). A guest may decline an accepted grant too: that gives it back. Revoking takes pending
 * and accepted grants; a declined, used or revoked one has nothing left to revoke.
 */
export function grantStateAfter(state: GrantState, step: GrantStep): GrantState | null {
  switch (step) {
    case 'accept':
      return state === 'pending' ? 'accepted' : null;
    case 'decline':
      return state === 'pending' || state === 'accepted' ? 'declined' : null;
    case 'revoke':
      return canEditGrant(state) ? 'revoked' : null;
  }
}

/**
 * The state after a successful unlock through the grant: a one-time grant is used up. Lock and sync
 * leave it as it is. Two unlocks racing must not both pass: the store writes 'used' only where the
 * grant is still accepted, and the loser is refused.
 */
export function grantStateAfterUnlock(grant: Pick<GrantRules, 'state' | 'oneTime'>): GrantState {
  return grant.oneTime && grant.state === 'accepted' ? 'used' : grant.state;
}

export type GrantAction = 'read' | 'operate';

export type GrantDenial =
  | 'not_accepted'
  | 'revoked'
  | 'used'
  | 'expired'
  | 'view_only'
  | 'not_yet'
  | 'outside_schedule';

export type GrantDecision = { readonly ok: true } | { readonly ok: false; readonly reason: GrantDenial };

// Made once: a decision is answered on every guest request.
const ALLOWED: GrantDecision = Object.freeze({ ok: true });
const denied = (reason: GrantDenial): GrantDecision => Object.freeze({ ok: false, reason });
const DENIED: Readonly<Record<GrantDenial, GrantDecision>> = {
  not_accepted: denied('not_accepted'),
  revoked: denied('revoked'),
  used: denied('used'),
  expired: denied('expired'),
  view_only: denied('view_only'),
  not_yet: denied('not_yet'),
  outside_schedule: denied('outside_schedule'),
};

/**
 * Whether a guest may read or operate the lock through a grant at `nowMs`; `timeZone` is the lock's
 * (read only when the grant has a schedule). The first reason that applies, in this order: the
 * state, the end of the window, the role, the start, the schedule.
 *
 * Reading: a grant the guest has not accepted shows nothing (an invitation is listed apart, without
 * the lock's state). An accepted grant shows the lock from acceptance on, before its window opens
 * and outside its schedule: the guest sees which lock is theirs and that it is not their time yet,
 * which is what the "the lock appears after accepting" means. From `ends_at` on, and once a
 * one-time grant is used, it shows nothing: the access is over, and watching whether the owner's
 * door is locked is not part of it. Operating needs the operate role, the window and the schedule.
 */
export function grantAllows(
  grant: GrantRules,
  action: GrantAction,
  nowMs: number,
  timeZone: string,
): GrantDecision {
  if (grant.state === 'revoked') return DENIED.revoked;
  if (grant.state === 'used') return DENIED.used;
  if (grant.state !== 'accepted') return DENIED.not_accepted;
  if (grant.endsAt !== null && nowMs >= grant.endsAt) return DENIED.expired;
  if (action === 'read') return ALLOWED;
  if (grant.role !== 'operate') return DENIED.view_only;
  if (grant.startsAt !== null && nowMs < grant.startsAt) return DENIED.not_yet;
  if (grant.schedule !== null && !scheduleAllows(grant.schedule, localTime(nowMs, timeZone)))
    return DENIED.outside_schedule;
  return ALLOWED;
}
