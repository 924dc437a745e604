/**
 * Commands on /ext (issue 23): the lock's owner as on v3, and a guest through an accepted operate
 * grant, within its window and schedule on the lock's wall clock. v1 and v3 keep their own rules
 * (only owners control); they do not come here.
 */
import { DomainError } from '../domain/errors.ts';
import { type Actor, grantActor, type LockMethod } from '../domain/event.ts';
import { type Grant, type GrantDenial, grantAllows } from '../domain/grant.ts';
import type { LockCommand } from '../domain/lock.ts';
import type { Task } from '../domain/task.ts';
import type { Commands } from './commands.ts';
import type { EventLog } from './event-log.ts';
import { grantEvents } from './grants.ts';
import type { Clock, IdempotencyClaim, Store } from './ports.ts';

const WHY: Record<Exclude<GrantDenial, 'not_accepted' | 'revoked'>, string> = {
  used: 'the one-time grant was used: its unlock is done',
  expired: 'outside the grant window: it ended',
  view_only: 'the grant is view only: it reads the lock, it does not operate it',
  not_yet: 'outside the grant window: it has not started yet',
  outside_schedule: "outside the grant schedule (on the lock's time zone)",
};

export interface GuestCommandsDeps {
  readonly store: Pick<Store, 'locks' | 'grants'>;
  readonly commands: Commands;
  readonly clock: Clock;
}

export class GuestCommands {
  constructor(private readonly deps: GuestCommandsDeps) {}

  /**
   * Sends `command` for `accountId`: its own lock as v3 does (the key as actor), another account's
   * through the grant (the grant as actor). LOCK_NOT_FOUND when the account has no accepted grant of
   * it at all (pending, declined, revoked: the lock does not exist for it); GRANT_DENIED, saying
   * why, when the grant does not allow it now. The grant is read at each command, so a revocation
   * or an edit holds from the next one on. `method`: the surface it came through (the dashboard
   * passes its own), written on the task and the events it leads to.
   */
  async send(
    accountId: string,
    deviceId: string,
    command: LockCommand,
    keyActor: Actor,
    key?: IdempotencyClaim,
    method: LockMethod = 'api_ext',
  ): Promise<Task> {
    const { store, commands, clock } = this.deps;
    const lock = await store.locks.get(deviceId);
    if (!lock) throw new DomainError('LOCK_NOT_FOUND');
    if (lock.ownerId === accountId)
      return commands.send(accountId, lock.deviceId, command, { actor: keyActor, method }, key);
    const grant = await store.grants.getFor(lock.deviceId, accountId);
    if (!grant) throw new DomainError('LOCK_NOT_FOUND');
    const decision = grantAllows(grant, 'operate', clock.now(), lock.timeZone);
    if (!decision.ok) {
      if (decision.reason === 'not_accepted' || decision.reason === 'revoked')
        throw new DomainError('LOCK_NOT_FOUND');
      throw new DomainError('GRANT_DENIED', WHY[decision.reason]);
    }
    return commands.sendForGuest(
      lock,
      accountId,
      command,
      { actor: grantActor(grant.id, accountId), method },
      key,
    );
  }

  /** A task for its owner or the guest who sent it. */
  result(accountId: string, taskId: string): Promise<Task> {
    return this.deps.commands.resultForSender(accountId, taskId);
  }
}

/**
 * A one-time grant ends with its first successful unlock (Commands' onUnlocked): `used`, with its
 * grant.used events in the same write. Only where the grant is still accepted and one-time: of two
 * unlocks (which the lock's one-command-at-a-time rule already keeps apart) one marks it.
 */
export class OneTimeGrants {
  constructor(
    private readonly store: Pick<Store, 'grants'>,
    private readonly clock: Clock,
    private readonly eventLog?: EventLog,
  ) {}

  readonly unlocked = async (task: Task): Promise<void> => {
    const actor = task.origin?.actor;
    if (actor?.kind !== 'grant' || actor.grantId === undefined) return;
    const grant: Grant | undefined = await this.store.grants.get(actor.grantId);
    if (!grant?.oneTime || grant.state !== 'accepted') return;
    const events = this.eventLog?.stampAll(grantEvents('grant.used', grant, actor, 'used')) ?? [];
    await this.store.grants.markUsedIf(grant.id, this.clock.now(), events);
  };
}
