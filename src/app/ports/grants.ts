/**
 * The grant store port (issue 23): an owner's grants of a lock to guest accounts, one per lock and
 * guest. The store only compares and sets: which step applies to which state is the domain's
 * (grantStateAfter, canEditGrant, grantStateAfterUnlock), checked by the use case, and the store
 * writes only if the state is still the one the use case read, so a racing step changes nothing.
 * Every write takes `events`, written in the same transaction and only when the write happened.
 * Re-exported by app/ports.ts.
 */
import type { LockEvent } from '../../domain/event.ts';
import type {
  Grant,
  GrantAnswer,
  GrantChange,
  GrantState,
  GuestGrant,
  NewGrant,
  OwnerGrant,
} from '../../domain/grant.ts';

export interface GrantStore {
  /**
   * Stores a pending grant. One already there for the lock and guest, in whatever state, is
   * replaced: its id, owner, terms and creation time become the new grant's, and it is pending
   * again with no answer or use (a new invitation; an answer sent to the old id finds nothing).
   */
  invite(grant: NewGrant, events?: readonly LockEvent[]): Promise<void>;
  get(id: string): Promise<Grant | undefined>;
  /** The guest's grant to the lock, in whatever state. */
  getFor(deviceId: string, guestId: string): Promise<Grant | undefined>;
  /** Every grant of the lock, in every state, with the guest's e-mail: the owner's view, by e-mail. */
  listForLock(deviceId: string): Promise<OwnerGrant[]>;
  /**
   * The guest's grants with the lock's nickname and the owner's e-mail, oldest first; only those in
   * `states` when given (an invitation list: pending; the guest's locks: accepted).
   */
  listForGuest(guestId: string, states?: readonly GrantState[]): Promise<GuestGrant[]>;
  /**
   * Sets the state to `to` and the answer's time to `at`, only if the grant is in state `from`;
   * false, and nothing written, when it is not (or is gone).
   */
  updateStateIf(
    id: string,
    from: GrantState,
    to: GrantAnswer,
    at: number,
    events?: readonly LockEvent[],
  ): Promise<boolean>;
  /**
   * The owner's edit: the terms given in `change` (absent ones stay; null clears), only while the
   * grant is pending or accepted (canEditGrant); false, and nothing written, otherwise. The state is
   * left as it is: an edit does not ask the guest again.
   */
  updateTermsIf(id: string, change: GrantChange, events?: readonly LockEvent[]): Promise<boolean>;
  /** Revokes a pending or accepted grant at `at`, whichever it is now; false when it was neither. */
  revoke(id: string, at: number, events?: readonly LockEvent[]): Promise<boolean>;
  /**
   * Ends a one-time grant with its unlock: state `used` at `at`, only if it is one-time and still
   * accepted. Of two unlocks racing, exactly one gets true.
   */
  markUsedIf(id: string, at: number, events?: readonly LockEvent[]): Promise<boolean>;
}
