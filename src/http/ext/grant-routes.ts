/**
 * /ext grants (issue 23, docs/locks.md "Grants"): the owner's grants of a lock, and the guest's
 * invitations and grants. Thin: the rules are the Grants use case's.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Lockcloud } from '../../app/lockcloud.ts';
import type { Grant, GuestGrant, OwnerGrant } from '../../domain/grant.ts';
import { requirePrincipal } from '../principal.ts';
import '../route-scope.ts';
import { iso } from './delivery-view.ts';
import {
  GrantChangeBody,
  GrantInviteBody,
  GrantParams,
  GuestGrantList,
  GuestGrantView,
  InvitationList,
  InvitationParams,
  OwnerGrantList,
  OwnerGrantView,
} from './grant-schemas.ts';
import { LockIdParams } from './lock-schemas.ts';
import { orNotFound } from './not-found.ts';
import { ExtError } from './schemas.ts';

const grantFields = (g: Grant) => ({
  id: g.id,
  device_id: g.deviceId,
  role: g.role,
  state: g.state,
  starts_at: iso(g.startsAt),
  ends_at: iso(g.endsAt),
  schedule:
    g.schedule === null ? null : g.schedule.map((e) => ({ days: [...e.days], start: e.start, end: e.end })),
  one_time: g.oneTime,
  created_at: new Date(g.createdAt).toISOString(),
  responded_at: iso(g.respondedAt),
  used_at: iso(g.usedAt),
});

export const ownerGrantView = (g: OwnerGrant) => ({ ...grantFields(g), guest_email: g.guestEmail });
export const guestGrantView = (g: GuestGrant) => ({
  ...grantFields(g),
  lock_nickname: g.lockNickname,
  lock_time_zone: g.lockTimeZone,
  owner_email: g.ownerEmail,
});

const tags = ['extensions'];
const security = [{ apiKey: [] }];
const read = { scope: 'locks:read' } as const;
const operate = { scope: 'locks:operate' } as const;

/** Registered inside the extension plugin, under its key check and limits. */
export function grantRoutes(app: FastifyInstance, lockcloud: Lockcloud): void {
  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  const { grants } = lockcloud;
  const principal = (request: FastifyRequest) => requirePrincipal(request.principal);

  api.get(
    '/locks/:device_id/grants',
    {
      config: read,
      schema: {
        summary: "The lock's grants in every state, with each guest's e-mail (owner only)",
        tags,
        security,
        params: LockIdParams,
        response: { 200: OwnerGrantList, 401: ExtError, 404: ExtError },
      },
    },
    async (request, reply) =>
      orNotFound(
        reply,
        grants
          .listForLock(principal(request).accountId, request.params.device_id.toLowerCase())
          .then((list) => ({ grants: list.map(ownerGrantView) })),
      ),
  );

  api.post(
    '/locks/:device_id/grants',
    {
      config: operate,
      schema: {
        summary: 'Invite an account, by e-mail, to the lock (owner only); the guest accepts or declines',
        description:
          'An address with no verified account is refused like an unknown one, and every invitation spends the budgets of the dashboard share form (the client address and the owner account: 10, then 1 a minute). See docs/locks.md "Grants".',
        tags,
        security,
        params: LockIdParams,
        body: GrantInviteBody,
        response: { 201: OwnerGrantView, 400: ExtError, 401: ExtError, 404: ExtError, 429: ExtError },
      },
    },
    async (request, reply) => {
      const { accountId, actor } = principal(request);
      const { email, ...terms } = request.body;
      const deviceId = request.params.device_id.toLowerCase();
      return orNotFound(
        reply,
        grants
          .invite(accountId, deviceId, email, terms, actor, request.ip)
          .then((grant) => reply.code(201).send(ownerGrantView(grant))),
      );
    },
  );

  api.patch(
    '/locks/:device_id/grants/:grant_id',
    {
      config: operate,
      schema: {
        summary: "Change a pending or accepted grant's terms (owner only); the guest is not asked again",
        tags,
        security,
        params: GrantParams,
        body: GrantChangeBody,
        response: { 200: OwnerGrantView, 400: ExtError, 401: ExtError, 404: ExtError },
      },
    },
    async (request, reply) => {
      const { accountId, actor } = principal(request);
      const { device_id, grant_id } = request.params;
      return orNotFound(
        reply,
        grants.edit(accountId, device_id.toLowerCase(), grant_id, request.body, actor).then(ownerGrantView),
      );
    },
  );

  api.delete(
    '/locks/:device_id/grants/:grant_id',
    {
      config: operate,
      schema: {
        summary: 'Revoke a pending or accepted grant (owner only): it gives nothing from now on',
        tags,
        security,
        params: GrantParams,
        response: { 204: { type: 'null' }, 400: ExtError, 401: ExtError, 404: ExtError },
      },
    },
    async (request, reply) => {
      const { accountId, actor } = principal(request);
      const { device_id, grant_id } = request.params;
      return orNotFound(
        reply,
        grants
          .revoke(accountId, device_id.toLowerCase(), grant_id, actor)
          .then(() => reply.code(204).send(null)),
      );
    },
  );

  api.get(
    '/invitations',
    {
      config: read,
      schema: {
        summary: "The account's pending invitations to other accounts' locks",
        tags,
        security,
        response: { 200: InvitationList, 401: ExtError },
      },
    },
    async (request) => ({
      invitations: (await grants.invitations(principal(request).accountId)).map(guestGrantView),
    }),
  );

  for (const step of ['accept', 'decline'] as const) {
    api.post(
      `/invitations/:grant_id/${step}`,
      {
        config: operate,
        schema: {
          summary:
            step === 'accept'
              ? 'Accept an invitation: the lock appears in the account'
              : 'Decline an invitation, or give back an accepted grant',
          tags,
          security,
          params: InvitationParams,
          response: { 200: GuestGrantView, 401: ExtError, 404: ExtError },
        },
      },
      async (request) => {
        const { accountId, actor } = principal(request);
        return guestGrantView(await grants.answer(accountId, request.params.grant_id, step, actor));
      },
    );
  }

  api.get(
    '/grants',
    {
      config: read,
      schema: {
        summary: "The account's grants of other accounts' locks: accepted ones, and used one-time ones",
        tags,
        security,
        response: { 200: GuestGrantList, 401: ExtError },
      },
    },
    async (request) => ({
      grants: (await grants.myGrants(principal(request).accountId)).map(guestGrantView),
    }),
  );
}
