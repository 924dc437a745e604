/**
 * The route table's rows for /ext grants and invitations (issue 23). Refused: a guest of the lock
 * and everyone else meet 404 on the owner's grant routes. Allowed: each owner invites, edits and
 * revokes on its own locks, and each account accepts and declines an invitation made to it for the
 * row (prepare), the world put back after (restore). A grant's change is written in the owner's
 * log and the guest's, so those rows name the other account they may change (alsoChanges).
 */
import { answer } from '../support/server.ts';
import type { Ctx, Endpoint } from './route-kit.ts';
import { type Actor, LOCKS, PEOPLE } from './world.ts';

export const NO_GRANT = 'grt_00000000000000000000000000000000';

/** The lock's grant (the porch's share is one), or an id no grant has. */
export function grantOf(ctx: Ctx, deviceId: string): string {
  const row = ctx.w.db
    .prepare('SELECT id FROM grants WHERE device_id = ? ORDER BY id LIMIT 1')
    .get(deviceId.toLowerCase()) as { id: string } | undefined;
  return row?.id ?? NO_GRANT;
}

interface GrantJson {
  id: string;
  device_id: string;
}

/** A grant list holds only the grants of the lock asked for, or only the actor's own. */
function checkGrants(field: 'grants' | 'invitations', deviceId?: string) {
  return (ctx: Ctx, body: unknown): void => {
    const list = (body as Record<string, GrantJson[]>)[field] ?? [];
    const rows = ctx.w.db
      .prepare('SELECT id FROM grants WHERE account_id = ?')
      .all(ctx.w.of[ctx.actor].accountId) as { id: string }[];
    const mine = new Set(rows.map((r) => r.id));
    for (const g of list) {
      if (deviceId === undefined ? !mine.has(g.id) : g.device_id !== deviceId.toLowerCase())
        throw new Error(`${ctx.actor}'s ${field}: ${JSON.stringify(g)}`);
    }
  };
}

/** Whom an owner invites on its own locks: an account with no grant there. */
export const invitee = (owner: Actor): Actor => (owner === 'stranger' ? 'owner' : 'stranger');

/** Who invites the actor, and to which lock: the owner's cellar, or for the owner the stranger's shed. */
export function inviterOf(guest: Actor): { owner: Actor; deviceId: string } {
  const lock = LOCKS.find(
    (l) => l.owner === (guest === 'owner' ? 'stranger' : 'owner') && l.sharedWith.length === 0,
  );
  if (!lock) throw new Error(`no lock to invite ${guest} to`);
  return { owner: lock.owner, deviceId: lock.deviceId };
}

/** The guest's grant on the lock that still gives or offers something (pending or accepted). */
export function liveGrant(ctx: Ctx, deviceId: string, guest: Actor): string {
  const row = ctx.w.db
    .prepare(
      "SELECT id FROM grants WHERE device_id = ? AND account_id = ? AND state IN ('pending', 'accepted')",
    )
    .get(deviceId.toLowerCase(), ctx.w.of[guest].accountId) as { id: string } | undefined;
  if (!row) throw new Error(`no live grant of ${guest} on ${deviceId}`);
  return row.id;
}

/**
 * The invitation made to the actor for an allowed row; a request refused for its credential (no
 * prepare ran) names an id no grant has, which it never gets to look up.
 */
export const invitationFor = (ctx: Ctx): string =>
  ctx.own ? liveGrant(ctx, inviterOf(ctx.actor).deviceId, ctx.actor) : NO_GRANT;

/** The owner invites the guest to view the lock, as the API does it. */
async function invite(ctx: Ctx, owner: Actor, deviceId: string, guest: Actor): Promise<void> {
  const made = await answer(
    await ctx.w.t.request(`/ext/locks/${deviceId}/grants`, {
      method: 'POST',
      key: PEOPLE[owner].key,
      json: { email: PEOPLE[guest].email, role: 'view' },
    }),
  );
  if (made.status !== 201)
    throw new Error(`${owner} invites ${guest}: ${made.status} ${JSON.stringify(made.body)}`);
}

/** The owner revokes the guest's live grant on the lock (the world had none). */
export async function revoke(ctx: Ctx, owner: Actor, deviceId: string, guest: Actor): Promise<void> {
  const id = liveGrant(ctx, deviceId, guest);
  const res = await ctx.w.t.request(`/ext/locks/${deviceId}/grants/${id}`, {
    method: 'DELETE',
    key: PEOPLE[owner].key,
  });
  if (res.status !== 204) throw new Error(`${owner} revokes ${id}: ${res.status}`);
}

/** The allowed owner's row: its invitation made first, named by the request, revoked after. */
export const ownersGrant = {
  prepare: (ctx: Ctx) => invite(ctx, ctx.actor, ctx.target, invitee(ctx.actor)),
  alsoChanges: (ctx: Ctx) => [invitee(ctx.actor)],
};
const grantPath = (ctx: Ctx) =>
  `/ext/locks/${ctx.target}/grants/${ctx.own ? liveGrant(ctx, ctx.target, invitee(ctx.actor)) : grantOf(ctx, ctx.target)}`;

/** The allowed guest's row: an invitation made to the actor first, named by the request. */
export const invitedGuest = {
  prepare: (ctx: Ctx) => {
    const { owner, deviceId } = inviterOf(ctx.actor);
    return invite(ctx, owner, deviceId, ctx.actor);
  },
  alsoChanges: (ctx: Ctx) => [inviterOf(ctx.actor).owner],
};
const invitationPath = (ctx: Ctx, step: 'accept' | 'decline') =>
  `/ext/invitations/${invitationFor(ctx)}/${step}`;

/** The grant in an allowed answer: its state and role after the request. */
const grantIs = (state: string, role: string) => (ctx: Ctx, body: unknown) => {
  const g = body as { state?: string; role?: string };
  if (g.state !== state || g.role !== role)
    throw new Error(`${ctx.actor}: grant ${JSON.stringify(body)}; expected ${state} ${role}`);
};

export const GRANT_ROUTES: readonly Endpoint[] = [
  {
    method: 'GET',
    route: '/ext/locks/:device_id/grants',
    surface: 'ext',
    target: 'lock',
    own: { status: 200 },
    // Whom the owner invited is the owner's: a guest of the lock does not see the other guests.
    shared: { status: 404, error: 'NOT_FOUND' },
    foreign: { status: 404, error: 'NOT_FOUND' },
    check: (ctx, body) => checkGrants('grants', ctx.target)(ctx, body),
  },
  {
    method: 'POST',
    route: '/ext/locks/:device_id/grants',
    surface: 'ext',
    target: 'lock',
    request: (ctx) => ({ json: { email: PEOPLE[invitee(ctx.actor)].email, role: 'view' } }),
    own: { status: 201 },
    check: grantIs('pending', 'view'),
    alsoChanges: ownersGrant.alsoChanges,
    restore: (ctx) => revoke(ctx, ctx.actor, ctx.target, invitee(ctx.actor)),
    shared: { status: 404, error: 'NOT_FOUND' },
    foreign: { status: 404, error: 'NOT_FOUND' },
  },
  {
    method: 'PATCH',
    route: '/ext/locks/:device_id/grants/:grant_id',
    surface: 'ext',
    target: 'lock',
    request: (ctx) => ({ path: grantPath(ctx), json: { role: 'operate' } }),
    own: { status: 200 },
    check: grantIs('pending', 'operate'),
    ...ownersGrant,
    restore: (ctx) => revoke(ctx, ctx.actor, ctx.target, invitee(ctx.actor)),
    shared: { status: 404, error: 'NOT_FOUND' },
    foreign: { status: 404, error: 'NOT_FOUND' },
  },
  {
    method: 'DELETE',
    route: '/ext/locks/:device_id/grants/:grant_id',
    surface: 'ext',
    target: 'lock',
    request: (ctx) => ({ path: grantPath(ctx) }),
    own: { status: 204 },
    ...ownersGrant,
    shared: { status: 404, error: 'NOT_FOUND' },
    foreign: { status: 404, error: 'NOT_FOUND' },
  },
  {
    method: 'GET',
    route: '/ext/invitations',
    surface: 'ext',
    target: 'none',
    own: { status: 200 },
    check: checkGrants('invitations'),
  },
  {
    method: 'POST',
    route: '/ext/invitations/:grant_id/accept',
    surface: 'ext',
    target: 'none',
    // Answering another's invitation (404) is test/http/ext/grants.test.ts's: here each account
    // accepts its own, and its inviter revokes it after.
    request: (ctx) => ({ path: invitationPath(ctx, 'accept') }),
    own: { status: 200 },
    check: grantIs('accepted', 'view'),
    ...invitedGuest,
    restore: (ctx) => {
      const { owner, deviceId } = inviterOf(ctx.actor);
      return revoke(ctx, owner, deviceId, ctx.actor);
    },
  },
  {
    method: 'POST',
    route: '/ext/invitations/:grant_id/decline',
    surface: 'ext',
    target: 'none',
    request: (ctx) => ({ path: invitationPath(ctx, 'decline') }),
    own: { status: 200 },
    check: grantIs('declined', 'view'),
    ...invitedGuest,
  },
  // ---- commands on /ext: the owner's, and a guest's through an operate grant (the porch's is view).
  {
    method: 'POST',
    route: '/ext/locks/:device_id/commands',
    surface: 'ext',
    target: 'lock',
    request: () => ({ json: { command: 'unlock' } }),
    own: { status: 202 },
    shared: { status: 403, error: 'ACCESS_DENY' },
    foreign: { status: 404, error: 'NOT_FOUND' },
    moves: true,
  },
  {
    method: 'GET',
    route: '/ext/tasks/:task_id',
    surface: 'ext',
    target: 'task',
    own: { status: 200 },
    foreign: { status: 404, error: 'NOT_FOUND' },
  },
  {
    method: 'GET',
    route: '/ext/grants',
    surface: 'ext',
    target: 'none',
    own: { status: 200 },
    check: checkGrants('grants'),
  },
];
