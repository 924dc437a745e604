/**
 * The route table's rows for /ext grants and invitations (issue 23). The refusals are the point:
 * a guest of the lock and everyone else meet 404 on the owner's grant routes, and nobody answers an
 * invitation that is not theirs. The allowed invite, edit, revoke and answers write to two accounts'
 * logs (the owner's and the guest's), which the matrix's one-account rule cannot hold: they are
 * test/http/ext/grants.test.ts's.
 */
import type { Ctx, Endpoint } from './route-kit.ts';
import { LOCKS, PEOPLE } from './world.ts';

const NO_GRANT = 'grt_00000000000000000000000000000000';

/** The lock's grant (the porch's share is one), or an id no grant has. */
function grantOf(ctx: Ctx, deviceId: string): string {
  const row = ctx.w.db
    .prepare('SELECT id FROM grants WHERE device_id = ? ORDER BY id LIMIT 1')
    .get(deviceId.toLowerCase()) as { id: string } | undefined;
  return row?.id ?? NO_GRANT;
}

/** The porch's grant: the one grant of the world, the shared account's. */
const porchGrant = (ctx: Ctx) => grantOf(ctx, LOCKS[0]?.deviceId ?? '');

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

const SKIP_TWO_LOGS =
  "a grant's change is written in the owner's log and the guest's: test/http/ext/grants.test.ts carries it out";

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
    request: (ctx) => ({
      json: { email: PEOPLE[ctx.actor === 'stranger' ? 'owner' : 'stranger'].email, role: 'view' },
    }),
    skipAllowed: SKIP_TWO_LOGS,
    shared: { status: 404, error: 'NOT_FOUND' },
    foreign: { status: 404, error: 'NOT_FOUND' },
  },
  {
    method: 'PATCH',
    route: '/ext/locks/:device_id/grants/:grant_id',
    surface: 'ext',
    target: 'lock',
    request: (ctx) => ({
      path: `/ext/locks/${ctx.target}/grants/${grantOf(ctx, ctx.target)}`,
      json: { role: 'operate' },
    }),
    skipAllowed: SKIP_TWO_LOGS,
    shared: { status: 404, error: 'NOT_FOUND' },
    foreign: { status: 404, error: 'NOT_FOUND' },
  },
  {
    method: 'DELETE',
    route: '/ext/locks/:device_id/grants/:grant_id',
    surface: 'ext',
    target: 'lock',
    request: (ctx) => ({ path: `/ext/locks/${ctx.target}/grants/${grantOf(ctx, ctx.target)}` }),
    skipAllowed: SKIP_TWO_LOGS,
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
    // The porch's grant, already accepted: its guest has nothing to accept, the others no invitation.
    request: (ctx) => ({ path: `/ext/invitations/${porchGrant(ctx)}/accept` }),
    own: { status: 404, error: 'NOT_FOUND' },
  },
  {
    method: 'POST',
    route: '/ext/invitations/:grant_id/decline',
    surface: 'ext',
    target: 'none',
    // The porch's guest would give it back (two logs, as above): it tries an id no grant has; the
    // others try the porch's, which is not theirs.
    request: (ctx) => ({
      path: `/ext/invitations/${ctx.actor === 'shared' ? NO_GRANT : porchGrant(ctx)}/decline`,
    }),
    own: { status: 404, error: 'NOT_FOUND' },
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
