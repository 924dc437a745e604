/**
 * Grants on the dashboard (issue 23, docs/locks.md "Grants"): the owner invites an account to a
 * lock, edits and revokes its grants; the guest accepts or declines an invitation, or gives an
 * accepted grant back. Thin, as /ext's: the rules are the Grants use case's; the forms are read by
 * grant-form.ts. Every form redirects to the locks page (Post/Redirect/Get), a refusal with its
 * errors next to the form's fields.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Lockcloud } from '../../../app/lockcloud.ts';
import { sessionActor } from '../../../domain/event.ts';
import type { GuestGrant, OwnerGrant } from '../../../domain/grant.ts';
import type { Lock } from '../../../domain/lock.ts';
import type { Flashes } from '../flash.ts';
import { grantInputOf, refusedGrantForm } from '../grant-form.ts';
import { form, HIDDEN } from '../reply.ts';
import { deviceId, me, onTop, pageKit } from './page-kit.ts';

/** What the locks page shows of grants: the owner's by lock, the guest's invitations and grants. */
export interface GrantsOfPage {
  readonly byLock: ReadonlyMap<string, readonly OwnerGrant[]>;
  readonly invitations: readonly GuestGrant[];
  /** The guest's accepted grants, by device id. */
  readonly mine: ReadonlyMap<string, GuestGrant>;
}

export async function grantsOfPage(
  lockcloud: Lockcloud,
  accountId: string,
  owned: readonly Lock[],
): Promise<GrantsOfPage> {
  const { grants } = lockcloud;
  const [lists, invitations, mine] = await Promise.all([
    Promise.all(owned.map((l) => grants.listForLock(accountId, l.deviceId))),
    grants.invitations(accountId),
    grants.myGrants(accountId),
  ]);
  return {
    byLock: new Map(owned.map((l, i) => [l.deviceId, lists[i] ?? []])),
    invitations,
    mine: new Map(mine.filter((g) => g.state === 'accepted').map((g) => [g.deviceId, g])),
  };
}

const grantId = (request: FastifyRequest) => String((request.params as { grant_id: string }).grant_id);

export function grantRoutes(app: FastifyInstance, lockcloud: Lockcloud, flashes: Flashes): void {
  const { grants, lockSettings } = lockcloud;
  const { done, refuse } = pageKit(flashes);
  const actor = (request: FastifyRequest) => sessionActor(me(request).account.id);

  // The owner invites: the same budgets as /ext's invitation (the client address's and the owner's).
  app.post('/locks/:id/grants', HIDDEN, async (request, reply) => {
    const body = form(request);
    const id = deviceId(request);
    try {
      const owner = me(request).account.id;
      const lock = await lockSettings.owned(owner, id);
      const grant = await grants.invite(
        owner,
        lock.deviceId,
        body.email,
        grantInputOf(body, lock.timeZone),
        actor(request),
        request.ip,
      );
      return done(request, reply, {
        kind: 'success',
        text: `${grant.guestEmail} is invited to ${lock.nickname}: the lock is theirs to use once they accept.`,
      });
    } catch (error) {
      return refuse(request, reply, refusedGrantForm(error, id, body));
    }
  });

  // The owner edits a pending or accepted grant; the guest is not asked again.
  app.post('/locks/:id/grants/:grant_id', HIDDEN, async (request, reply) => {
    const body = form(request);
    const key = grantId(request);
    try {
      const owner = me(request).account.id;
      const lock = await lockSettings.owned(owner, deviceId(request));
      const current = await grants.getForOwner(owner, lock.deviceId, key);
      const after = await grants.edit(
        owner,
        lock.deviceId,
        current.id,
        grantInputOf(body, lock.timeZone, current),
        actor(request),
      );
      return done(request, reply, { kind: 'success', text: `The grant of ${after.guestEmail} is saved.` });
    } catch (error) {
      return refuse(request, reply, refusedGrantForm(error, key, body));
    }
  });

  // The owner revokes (a pending one: withdraws): from the next request on it gives nothing.
  app.post('/locks/:id/grants/:grant_id/revoke', HIDDEN, async (request, reply) => {
    try {
      const owner = me(request).account.id;
      const grant = await grants.getForOwner(owner, deviceId(request), grantId(request));
      await grants.revoke(owner, grant.deviceId, grant.id, actor(request));
      const what = grant.state === 'pending' ? 'invitation of' : 'grant of';
      return done(request, reply, {
        kind: 'success',
        text: `The ${what} ${grant.guestEmail} is ${grant.state === 'pending' ? 'withdrawn' : 'revoked'}.`,
      });
    } catch (error) {
      return refuse(request, reply, onTop(error));
    }
  });

  // The guest answers: accept shows the lock; decline (also of an accepted grant) makes it go.
  for (const step of ['accept', 'decline'] as const)
    app.post(`/invitations/:grant_id/${step}`, HIDDEN, async (request, reply) => {
      try {
        const g = await grants.answer(me(request).account.id, grantId(request), step, actor(request));
        return done(request, reply, {
          kind: 'success',
          text:
            step === 'accept'
              ? `You accepted the invitation: ${g.lockNickname} is in your locks.`
              : `You declined: ${g.lockNickname} is not in your locks.`,
        });
      } catch (error) {
        return refuse(request, reply, onTop(error));
      }
    });
}
