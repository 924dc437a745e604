/**
 * The route table's rows for the lock APIs: v1 (X-Authorization token), v3 and partner
 * (Authorization key).
 */
import { V1_LOCK_NOT_FOUND, V1_NOT_OWNER, V1_WRONG_CREDENTIALS, V3_BAD_PARAMS } from './presentations.ts';
import { type Ctx, type Endpoint, ownLocks, sameSet, visibleLocks } from './route-kit.ts';
import { PEOPLE } from './world.ts';

/**
 * The v3 commands carry an Idempotency-Key (issue 21): a new one for each request on the account's
 * own lock (each must move it), and one key for every refused request of every account, so that
 * the refusals are answered through the keyed path with a key others have used, and leave no row.
 * test/authz/idempotency-scope.test.ts tries one account's key on every other account.
 */
let keysMade = 0;
const idempotencyKey = (ctx: Ctx): Record<string, string> => ({
  'idempotency-key': ctx.own ? `authz-own-${++keysMade}` : 'authz-one-key-for-all',
});

export const API_ROUTES: readonly Endpoint[] = [
  // ---- v1: X-Authorization token; a shared lock is visible in the list and refused with 30000.
  {
    method: 'POST',
    route: '/v1/accounts/login',
    surface: 'v1-login',
    target: 'account',
    request: (ctx) => ({ json: { email: ctx.target, password: PEOPLE[ctx.actor].password } }),
    own: { status: 200 },
    foreign: V1_WRONG_CREDENTIALS,
  },
  {
    method: 'GET',
    route: '/v1/locks',
    surface: 'v1',
    target: 'none',
    own: { status: 200 },
    check: (ctx, body) =>
      sameSet(
        (body as { locks: { device_id: string }[] }).locks.map((l) => l.device_id),
        visibleLocks(ctx.actor),
        'v1 list',
      ),
  },
  {
    method: 'GET',
    route: '/v1/locks/:lockId',
    surface: 'v1',
    target: 'lock',
    own: { status: 200 },
    shared: V1_NOT_OWNER,
    foreign: V1_LOCK_NOT_FOUND,
  },
  {
    method: 'POST',
    route: '/v1/locks/:lockId/control',
    surface: 'v1',
    target: 'lock',
    request: () => ({ json: { type: 'unlock' } }),
    own: { status: 204 },
    shared: V1_NOT_OWNER,
    foreign: V1_LOCK_NOT_FOUND,
    moves: true,
  },
  // ---- v3: Authorization key; only owned locks exist for it, foreign ones answer like unknown ones.
  {
    method: 'GET',
    route: '/public/locks',
    surface: 'v3',
    target: 'none',
    own: { status: 200 },
    check: (ctx, body) =>
      sameSet(
        (body as { device_id: string }[]).map((l) => l.device_id),
        ownLocks(ctx.actor),
        'v3 list',
      ),
  },
  {
    method: 'GET',
    route: '/public/lock/:device_id',
    surface: 'v3',
    target: 'lock',
    own: { status: 200 },
    foreign: V3_BAD_PARAMS,
  },
  {
    method: 'POST',
    route: '/public/lock/:device_id',
    surface: 'v3',
    target: 'lock',
    request: (ctx) => ({ json: { command: 'unlock' }, headers: idempotencyKey(ctx) }),
    own: { status: 200 },
    foreign: V3_BAD_PARAMS,
    moves: true,
  },
  {
    method: 'GET',
    route: '/public/action-result',
    surface: 'v3',
    target: 'task',
    request: (ctx) => ({ path: `/public/action-result?task_id=${ctx.target}` }),
    own: { status: 200 },
    foreign: V3_BAD_PARAMS,
  },
  {
    method: 'POST',
    route: '/public/partners/automation',
    surface: 'partner',
    target: 'lock',
    request: (ctx) => ({ json: { command: 'unlock', device_id: ctx.target }, headers: idempotencyKey(ctx) }),
    own: { status: 200 },
    foreign: V3_BAD_PARAMS,
    moves: true,
  },
];
