/**
 * Grants (issue 23): the owner invites an account by e-mail to one lock, the guest accepts or
 * declines, the owner edits or revokes; a guest with an accepted operate grant commands the lock
 * within its window and schedule (GuestAccess, guest-access.ts). Every change is an event, written
 * with it by the store, in the owner's log and in the guest's (docs/events.md).
 */
import { normalizeEmail } from '../domain/account.ts';
import { DomainError } from '../domain/errors.ts';
import type { Actor, EventDraft } from '../domain/event.ts';
import {
  canEditGrant,
  checkGrantChange,
  checkGrantInput,
  type Grant,
  type GrantInput,
  type GrantStep,
  type GuestGrant,
  grantStateAfter,
  type OwnerGrant,
} from '../domain/grant.ts';
import type { Budgets } from './accounts/limits.ts';
import type { EventLog } from './event-log.ts';
import type { LockQueries } from './locks.ts';
import type { Clock, RandomSource, Store } from './ports.ts';

export const GRANT_ID_PREFIX = 'grt_';

export type GrantEventType =
  | 'grant.invited'
  | 'grant.accepted'
  | 'grant.declined'
  | 'grant.revoked'
  | 'grant.changed'
  | 'grant.used';

export interface GrantsDeps {
  readonly store: Pick<Store, 'grants' | 'accounts'>;
  readonly queries: LockQueries;
  readonly clock: Clock;
  readonly random: RandomSource;
  readonly budgets: Budgets;
  readonly eventLog?: EventLog;
}

const noGrant = (): DomainError => new DomainError('GRANT_NOT_FOUND', 'no such grant');
const noInvitation = (): DomainError => new DomainError('GRANT_NOT_FOUND', 'no such invitation');

/**
 * One event for each of the two accounts a grant joins: the owner's log and the guest's (a grant
 * event is not a lock event a guest reads through the lock, so the guest gets a copy of its own).
 * The data names the grant, its role and the guest; `state` is the grant's after the change. The
 * guest's copy is an event of the account, not of the lock (`device_id` in its data): the guest may
 * never see the lock, or no longer, and a lock's events are for those who see it.
 */
export function grantEvents(
  type: GrantEventType,
  grant: Pick<Grant, 'id' | 'deviceId' | 'ownerId' | 'guestId' | 'role'>,
  actor: Actor,
  state: string,
): EventDraft[] {
  const data = { grant_id: grant.id, role: grant.role, guest_id: grant.guestId, state };
  const base = { type, deviceId: grant.deviceId, actor, method: null, taskId: null, data } as const;
  return [
    { ...base, accountId: grant.ownerId },
    { ...base, accountId: grant.guestId, deviceId: null, data: { ...data, device_id: grant.deviceId } },
  ];
}

export class Grants {
  constructor(private readonly deps: GrantsDeps) {}

  /**
   * The owner invites the account at `email` to the lock. An address with no live, verified
   * account answers exactly as an unknown one (INVALID_INPUT on `email`), and every invitation
   * spends the budgets of the dashboard's share form first (the client address's and the owner
   * account's), answered or not: telling whether an address has an account is what inviting must
   * do, the budgets keep it from sorting a list of addresses, and sharing them means the form and
   * the API together get no more tries than either (docs/security.md). A guest who has a pending or accepted grant already is refused (CONFLICT):
   * the owner edits that one; a declined, revoked or used one is replaced by the new invitation.
   */
  async invite(
    ownerId: string,
    deviceId: string,
    email: unknown,
    body: GrantInput,
    actor: Actor,
    clientIp: string,
  ): Promise<OwnerGrant> {
    const { store, budgets, clock } = this.deps;
    const lock = await this.deps.queries.getOwned(ownerId, deviceId);
    const now = clock.now();
    const terms = checkGrantInput(body, now);
    if (typeof email !== 'string' || email.trim() === '')
      throw new DomainError('INVALID_INPUT', 'email: enter the e-mail address to invite', { field: 'email' });
    await budgets.spend(`share-ip:${clientIp}`, budgets.limits.requestsPerIp, 'shares from this address');
    await budgets.spend(`share-account:${ownerId}`, budgets.limits.requestsPerIp, 'shares');
    const guest = await store.accounts.findByEmail(normalizeEmail(email));
    if (!guest || guest.deletedAt !== null || !guest.verified)
      throw new DomainError('INVALID_INPUT', 'email: no lockcloud account can be invited at that address', {
        field: 'email',
      });
    if (guest.id === ownerId)
      throw new DomainError('CONFLICT', 'email: you own this lock: it needs no grant', { field: 'email' });
    const existing = await store.grants.getFor(lock.deviceId, guest.id);
    if (existing && canEditGrant(existing.state))
      throw new DomainError(
        'CONFLICT',
        `email: the account has a ${existing.state} grant of this lock already (${existing.id}): edit it`,
        { field: 'email' },
      );
    const grant = {
      ...terms,
      id: GRANT_ID_PREFIX + this.deps.random.uuid().replace(/-/g, ''),
      deviceId: lock.deviceId,
      ownerId,
      guestId: guest.id,
      createdAt: now,
    };
    await store.grants.invite(grant, this.stamp(grantEvents('grant.invited', grant, actor, 'pending')));
    return { ...grant, state: 'pending', respondedAt: null, usedAt: null, guestEmail: guest.email };
  }

  /** Every grant of the owner's lock, in every state. */
  async listForLock(ownerId: string, deviceId: string): Promise<OwnerGrant[]> {
    const lock = await this.deps.queries.getOwned(ownerId, deviceId);
    return this.deps.store.grants.listForLock(lock.deviceId);
  }

  /** One grant of the owner's lock. */
  async getForOwner(ownerId: string, deviceId: string, grantId: string): Promise<OwnerGrant> {
    const grants = await this.listForLock(ownerId, deviceId);
    const grant = grants.find((g) => g.id === grantId);
    if (!grant) throw noGrant();
    return grant;
  }

  /**
   * The owner changes a pending or accepted grant's terms; the guest is not asked again. CONFLICT
   * for a grant that no longer gives anything (declined, revoked, used): invite again instead.
   */
  async edit(
    ownerId: string,
    deviceId: string,
    grantId: string,
    body: GrantInput,
    actor: Actor,
  ): Promise<OwnerGrant> {
    const grant = await this.getForOwner(ownerId, deviceId, grantId);
    if (!canEditGrant(grant.state))
      throw new DomainError('CONFLICT', `the grant is ${grant.state}: invite the account again instead`);
    const change = checkGrantChange(body, grant, this.deps.clock.now());
    const after = { ...grant, ...change };
    const events = this.stamp(grantEvents('grant.changed', after, actor, grant.state));
    if (!(await this.deps.store.grants.updateTermsIf(grant.id, change, events)))
      throw new DomainError('CONFLICT', 'the grant changed meanwhile: read it again');
    return after;
  }

  /** The owner revokes a pending or accepted grant: from the next request on, it gives nothing. */
  async revoke(ownerId: string, deviceId: string, grantId: string, actor: Actor): Promise<void> {
    const grant = await this.getForOwner(ownerId, deviceId, grantId);
    if (grantStateAfter(grant.state, 'revoke') === null)
      throw new DomainError('CONFLICT', `the grant is ${grant.state}: there is nothing left to revoke`);
    const events = this.stamp(grantEvents('grant.revoked', grant, actor, 'revoked'));
    if (!(await this.deps.store.grants.revoke(grant.id, this.deps.clock.now(), events)))
      throw new DomainError('CONFLICT', 'the grant changed meanwhile: read it again');
  }

  /** The guest's pending invitations. */
  invitations(guestId: string): Promise<GuestGrant[]> {
    return this.deps.store.grants.listForGuest(guestId, ['pending']);
  }

  /** The guest's grants that give access or once did: accepted and used ones. */
  myGrants(guestId: string): Promise<GuestGrant[]> {
    return this.deps.store.grants.listForGuest(guestId, ['accepted', 'used']);
  }

  /**
   * The guest accepts or declines an invitation, or declines an accepted grant (gives it back). A
   * grant that is not the guest's, or not in a state the step applies to, is one the guest does not
   * have (GRANT_NOT_FOUND): a withdrawn invitation is gone, not refused.
   */
  async answer(guestId: string, grantId: string, step: Exclude<GrantStep, 'revoke'>, actor: Actor) {
    const { store, clock } = this.deps;
    const grant = await store.grants.get(grantId);
    if (!grant || grant.guestId !== guestId) throw noInvitation();
    const to = grantStateAfter(grant.state, step);
    if (to === null || to === 'used' || to === 'pending') throw noInvitation();
    const type = to === 'accepted' ? 'grant.accepted' : 'grant.declined';
    const events = this.stamp(grantEvents(type, grant, actor, to));
    if (!(await store.grants.updateStateIf(grant.id, grant.state, to, clock.now(), events)))
      throw noInvitation();
    const [after] = (await store.grants.listForGuest(guestId)).filter((g) => g.id === grant.id);
    if (!after) throw noInvitation();
    return after;
  }

  private stamp(drafts: EventDraft[]) {
    return this.deps.eventLog?.stampAll(drafts) ?? [];
  }
}
