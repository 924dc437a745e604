/**
 * The endpoint table the authorization matrix is generated from: every route the server has (the
 * route-table test fails when the server grows one this table lacks), with the object it acts on,
 * the credential it takes (by its surface) and what an account gets for its own object, for a lock
 * shared with it, and for another account's object (or one that does not exist).
 */
import { carriedOut } from '../dashboard/support.ts';
import {
  type Outgoing,
  type Surface,
  V1_LOCK_NOT_FOUND,
  V1_NOT_OWNER,
  V1_WRONG_CREDENTIALS,
  V3_BAD_PARAMS,
  type Want,
} from './presentations.ts';
import { type Actor, hookPath, LOCKS, lockRelation, PEOPLE, unlockApiSettings, type World } from './world.ts';

export type Target =
  | 'lock'
  | 'task'
  | 'delivery'
  | 'endpoint'
  | 'endpoint-delivery'
  | 'key'
  | 'account'
  | 'none';

export interface Ctx {
  readonly w: World;
  readonly actor: Actor;
  /** The object's id (a device id, a task id...); '' for account-scoped routes. */
  readonly target: string;
  readonly own: boolean;
}

export interface Endpoint {
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** The route as the server registers it. */
  readonly route: string;
  readonly surface: Surface;
  readonly target: Target;
  /** The request for one object; by default the route with its parameter replaced and no body. */
  readonly request?: (ctx: Ctx) => Partial<Outgoing>;
  /** The answer for the account's own object (or its own account-scoped data). */
  readonly own?: Want;
  /** For a lock shared with the account; `foreign` when absent. */
  readonly shared?: Want;
  /** For another account's object, or one that does not exist. */
  readonly foreign?: Want;
  /** More checks of an allowed answer's body. */
  readonly check?: (ctx: Ctx, body: unknown) => void;
  /** An allowed request moved the lock: the runner checks it did and locks it again. */
  readonly moves?: true;
  /** Runs before the allowed request; `restore` after it, to leave the world as it was. */
  readonly prepare?: (ctx: Ctx) => Promise<void>;
  readonly restore?: (ctx: Ctx) => Promise<void>;
  /** Why the allowed request is not sent (the refusals still are). */
  readonly skipAllowed?: string;
  /** For routes outside the matrix: why. */
  readonly outside?: string;
}

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

/** Whom an account shares with and unshares from when it may: one with no relation to its locks. */
const other = (a: Actor): Actor => (a === 'owner' ? 'stranger' : 'owner');
const page = (status: number): Want => ({ status, page: true });
/** A change carried out: the redirect to its page (Post/Redirect/Get), which shows the outcome once. */
const redirect = (location: string): Want => ({ status: 303, location });
/** A refused form: the redirect to its page too, which shows the refusal once with its status. */
const refused = (to: string, status: number): Want => ({
  status: 303,
  location: `${to}?refused=`,
  landing: page(status),
});
const dashNotFound: Want = { status: 404, error: 'NOT_FOUND' };
const ownLocks = (a: Actor) => LOCKS.filter((l) => l.owner === a).map((l) => l.deviceId);
const visibleLocks = (a: Actor) =>
  LOCKS.filter((l) => lockRelation(a, l.deviceId) !== 'foreign').map((l) => l.deviceId);
const sameSet = (got: string[], want: string[], what: string) => {
  if (JSON.stringify([...got].sort()) !== JSON.stringify([...want].sort()))
    throw new Error(`${what}: listed ${got.join(', ')}; expected ${want.join(', ')}`);
};

interface EventJson {
  type: string;
  device_id: string | null;
  actor: Record<string, unknown>;
  task_id: string | null;
}

/**
 * An event page holds only what the actor may see: events of no lock or of its own locks, and of
 * locks shared with it only lock and command events, with the actor's kind alone and no task.
 */
function checkEvents(ctx: Ctx, body: unknown, onlyDevice?: string): void {
  const { events } = body as { events: EventJson[] };
  const visible = visibleLocks(ctx.actor);
  for (const e of events) {
    const what = `${ctx.actor}'s event ${JSON.stringify(e)}`;
    if (onlyDevice !== undefined && e.device_id !== onlyDevice) throw new Error(`${what}: another lock`);
    if (e.device_id === null) continue;
    if (!visible.includes(e.device_id)) throw new Error(`${what}: a lock it cannot see`);
    if (lockRelation(ctx.actor, e.device_id) === 'shared') {
      if (!/^(lock|command)\./.test(e.type)) throw new Error(`${what}: not a lock event`);
      if (Object.keys(e.actor).join() !== 'kind' || e.task_id !== null)
        throw new Error(`${what}: the owner's side shown`);
    }
  }
}

/** A dashboard form the actor's own browser sends (used to set things back). */
async function dashPost(ctx: Ctx, path: string, form: Record<string, string>): Promise<void> {
  const res = await ctx.w.of[ctx.actor].session.post(path, form);
  if (!carriedOut(res))
    throw new Error(`${path} for ${ctx.actor}: ${res.status} ${res.res.headers.get('location')}`);
}
async function putWebhookBack(ctx: Ctx): Promise<void> {
  const res = await ctx.w.t.request('/ext/webhook', {
    method: 'PUT',
    key: PEOPLE[ctx.actor].key,
    json: { url: `${ctx.w.receiver.url}${hookPath(ctx.actor)}`, method: 'POST' },
  });
  if (res.status !== 200) throw new Error(`webhook back for ${ctx.actor}: ${res.status}`);
}
const hookUrl = (ctx: Ctx) => `${ctx.w.receiver.url}${hookPath(ctx.actor)}`;
/** Removes the endpoints the matrix's POST made, keeping the world's own. */
async function removeNewEndpoints(ctx: Ctx): Promise<void> {
  const key = PEOPLE[ctx.actor].key;
  const res = await ctx.w.t.request('/ext/webhook-endpoints', { key });
  const { endpoints } = (await res.json()) as { endpoints: { id: string }[] };
  for (const { id } of endpoints.filter((e) => e.id !== ctx.w.of[ctx.actor].endpointId)) {
    const removed = await ctx.w.t.request(`/ext/webhook-endpoints/${id}`, { method: 'DELETE', key });
    if (removed.status !== 204) throw new Error(`endpoint ${id} of ${ctx.actor}: ${removed.status}`);
  }
}

const lockPage = (action: string, form: (ctx: Ctx) => Record<string, string>, more: Partial<Endpoint> = {}) =>
  ({
    method: 'POST',
    route: `/dashboard/locks/:id/${action}`,
    surface: 'dash-page',
    target: 'lock',
    request: (ctx) => ({ form: form(ctx) }),
    own: redirect('/dashboard/locks?note='),
    foreign: refused('/dashboard/locks', 404),
    ...more,
  }) satisfies Endpoint;

const settingsPost = (path: string, more: Partial<Endpoint> = {}) =>
  ({
    method: 'POST',
    route: `/dashboard/api-settings${path}`,
    surface: 'dash-page',
    target: 'none',
    request: () => ({ form: {} }),
    own: redirect('/dashboard/api-settings?note='),
    ...more,
  }) satisfies Endpoint;

const open = (method: 'GET' | 'POST', route: string, surface: Surface, path?: string): Endpoint => ({
  method,
  route,
  surface,
  target: 'none',
  ...(path === undefined ? {} : { request: () => ({ path }) }),
  ...(method === 'POST' ? { request: () => ({ path: path ?? route, form: {} }) } : {}),
  skipAllowed:
    method === 'POST'
      ? 'an account-less flow (log-in, sign-up, codes, log-out): no object of any account'
      : undefined,
});

const SANDBOX = 'the sandbox (/_sim) takes no credential by design and does not exist with --production';

export const ENDPOINTS: readonly Endpoint[] = [
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
  // ---- /ext: Authorization key; the webhook is the account's own, deliveries of others do not exist.
  {
    method: 'GET',
    route: '/ext/webhook',
    surface: 'ext',
    target: 'none',
    own: { status: 200 },
    check: (ctx, body) => {
      if ((body as { url: string }).url !== hookUrl(ctx))
        throw new Error(`webhook of ${ctx.actor}: ${JSON.stringify(body)}`);
    },
  },
  {
    method: 'PUT',
    route: '/ext/webhook',
    surface: 'ext',
    target: 'none',
    request: (ctx) => ({ json: { url: hookUrl(ctx), method: 'POST' } }),
    own: { status: 200 },
  },
  {
    method: 'DELETE',
    route: '/ext/webhook',
    surface: 'ext',
    target: 'none',
    own: { status: 204 },
    restore: putWebhookBack,
  },
  {
    method: 'POST',
    route: '/ext/webhook/rotate-secret',
    surface: 'ext',
    target: 'none',
    own: { status: 200 },
  },
  { method: 'POST', route: '/ext/webhook/test', surface: 'ext', target: 'none', own: { status: 202 } },
  { method: 'GET', route: '/ext/webhook/deliveries', surface: 'ext', target: 'none', own: { status: 200 } },
  {
    method: 'POST',
    route: '/ext/webhook/deliveries/:id/resend',
    surface: 'ext',
    target: 'delivery',
    own: { status: 202 },
    foreign: { status: 404, error: 'NOT_FOUND' },
  },
  // ---- webhook endpoints: the account's own; another account's endpoint or message does not exist.
  {
    method: 'POST',
    route: '/ext/webhook-endpoints',
    surface: 'ext',
    target: 'none',
    request: (ctx) => ({ json: { url: `${ctx.w.receiver.url}/endpoint-new`, types: ['access_point.'] } }),
    own: { status: 201 },
    restore: removeNewEndpoints,
  },
  {
    method: 'GET',
    route: '/ext/webhook-endpoints',
    surface: 'ext',
    target: 'none',
    own: { status: 200 },
    check: (ctx, body) => {
      const ids = (body as { endpoints: { id: string }[] }).endpoints.map((e) => e.id);
      if (ids.join() !== ctx.w.of[ctx.actor].endpointId)
        throw new Error(`endpoints of ${ctx.actor}: ${ids.join()}`);
    },
  },
  {
    method: 'GET',
    route: '/ext/webhook-endpoints/:id',
    surface: 'ext',
    target: 'endpoint',
    own: { status: 200 },
    foreign: { status: 404, error: 'NOT_FOUND' },
  },
  {
    method: 'PATCH',
    route: '/ext/webhook-endpoints/:id',
    surface: 'ext',
    target: 'endpoint',
    request: () => ({ json: { retries: true } }),
    own: { status: 200 },
    foreign: { status: 404, error: 'NOT_FOUND' },
  },
  {
    method: 'DELETE',
    route: '/ext/webhook-endpoints/:id',
    surface: 'ext',
    target: 'endpoint',
    foreign: { status: 404, error: 'NOT_FOUND' },
    // A new endpoint has a new id; the world's would be gone. test/http/endpoints/routes.test.ts deletes.
    skipAllowed: "the world's endpoint would be gone: deleted in test/http/endpoints/routes.test.ts",
  },
  {
    method: 'POST',
    route: '/ext/webhook-endpoints/:id/rotate-secret',
    surface: 'ext',
    target: 'endpoint',
    own: { status: 200 },
    foreign: { status: 404, error: 'NOT_FOUND' },
  },
  {
    method: 'GET',
    route: '/ext/webhook-endpoints/:id/deliveries',
    surface: 'ext',
    target: 'endpoint',
    own: { status: 200 },
    foreign: { status: 404, error: 'NOT_FOUND' },
  },
  {
    method: 'POST',
    route: '/ext/webhook-endpoints/:id/deliveries/:delivery_id/resend',
    surface: 'ext',
    target: 'endpoint-delivery',
    request: (ctx) => ({ path: `/ext/webhook-endpoints/${ctx.target}/resend` }),
    own: { status: 202 },
    foreign: { status: 404, error: 'NOT_FOUND' },
  },
  // ---- the event log: the account's own events and its locks', lock events of locks shared with it.
  {
    method: 'GET',
    route: '/ext/events',
    surface: 'ext',
    target: 'none',
    request: () => ({ path: '/ext/events?limit=500' }),
    own: { status: 200 },
    check: (ctx, body) => checkEvents(ctx, body),
  },
  {
    method: 'GET',
    route: '/ext/events',
    surface: 'ext',
    target: 'lock',
    // One lock's events: a lock of another (or none) is an empty page, as a filter that matches nothing.
    request: (ctx) => ({ path: `/ext/events?device_id=${ctx.target}&limit=500` }),
    own: { status: 200 },
    shared: { status: 200 },
    foreign: { status: 200, body: { events: [], next_cursor: null } },
    check: (ctx, body) => checkEvents(ctx, body, ctx.target.toLowerCase()),
  },
  // The live stream: every credential presentation is refused as on GET /ext/events; an allowed
  // stream never ends, so who sees what on it is tested where it is read frame by frame.
  {
    method: 'GET',
    route: '/ext/events/stream',
    surface: 'ext',
    target: 'none',
    skipAllowed:
      'a stream does not end: its visibility (own, shared, redacted, a share ended) is test/http/ext/event-stream.test.ts',
  },
  // ---- the dashboard's JSON endpoints: session cookie, X-CSRF-Token on POST.
  {
    method: 'GET',
    route: '/dashboard/api/locks',
    surface: 'dash-api',
    target: 'none',
    own: { status: 200 },
    check: (ctx, body) => {
      const { owned, shared } = body as Record<'owned' | 'shared', { device_id: string }[]>;
      sameSet(
        owned.map((l) => l.device_id),
        ownLocks(ctx.actor),
        'dashboard owned',
      );
      const guest = LOCKS.filter((l) => lockRelation(ctx.actor, l.deviceId) === 'shared').map(
        (l) => l.deviceId,
      );
      sameSet(
        shared.map((l) => l.device_id),
        guest,
        'dashboard shared',
      );
    },
  },
  {
    method: 'POST',
    route: '/dashboard/api/locks/:id/commands',
    surface: 'dash-api',
    target: 'lock',
    request: () => ({ json: { command: 'unlock' } }),
    own: { status: 202 },
    foreign: dashNotFound,
    moves: true,
  },
  {
    method: 'GET',
    route: '/dashboard/api/deliveries',
    surface: 'dash-api',
    target: 'none',
    own: { status: 200 },
    // The newest 20: each one of the account's own webhook messages.
    check: (ctx, body) => {
      const ids = (body as { deliveries: { id: string }[] }).deliveries.map((d) => d.id);
      if (ids.length === 0) throw new Error(`deliveries of ${ctx.actor}: none listed`);
      const owners = new Set(
        ids.map(
          (id) =>
            (
              ctx.w.db.prepare('SELECT account_id FROM webhook_deliveries WHERE id = ?').get(id) as
                | { account_id: string }
                | undefined
            )?.account_id,
        ),
      );
      if (owners.size !== 1 || !owners.has(ctx.w.of[ctx.actor].accountId))
        throw new Error(`deliveries of ${ctx.actor}: listed messages of ${[...owners].join(', ')}`);
    },
  },
  {
    method: 'GET',
    route: '/dashboard/api/tasks/:id',
    surface: 'dash-api',
    target: 'task',
    own: { status: 200 },
    foreign: dashNotFound,
  },
  {
    method: 'GET',
    route: '/dashboard/api/events/stream',
    surface: 'dash-api',
    target: 'none',
    skipAllowed: "a stream does not end: the session's view of it is test/dashboard/event-stream.test.ts",
  },
  // ---- the dashboard's pages: the same session; a refusal redirects to the account's own page.
  { method: 'GET', route: '/dashboard/locks', surface: 'dash-page', target: 'none', own: page(200) },
  { method: 'GET', route: '/dashboard/api-settings', surface: 'dash-page', target: 'none', own: page(200) },
  { method: 'GET', route: '/dashboard/account', surface: 'dash-page', target: 'none', own: page(200) },
  // The activity pages (the event log through EventLog, as the session's account): a guest reads the
  // shared lock's page (its lock events, the owner's side left out: test/dashboard/http-activity).
  {
    method: 'GET',
    route: '/dashboard/locks/:id/activity',
    surface: 'dash-page',
    target: 'lock',
    own: page(200),
    shared: page(200),
    foreign: page(404),
  },
  {
    method: 'GET',
    route: '/dashboard/account/activity',
    surface: 'dash-page',
    target: 'none',
    own: page(200),
  },
  // A handle no browser was given: 410 and the account's own page. A handle is the browser's that
  // made it (another's is 410 and left in place): test/dashboard/http-prg.test.ts.
  {
    method: 'GET',
    route: '/dashboard/api-settings/secret/:handle',
    surface: 'dash-page',
    target: 'none',
    request: () => ({ path: '/dashboard/api-settings/secret/AAAAAAAAAAAAAAAAAAAAAA' }),
    own: page(410),
  },
  lockPage('command', () => ({ command: 'unlock' }), { moves: true }),
  // Sandbox only: a simulated lock for the session's own account; nobody else's is reachable.
  {
    method: 'POST',
    route: '/dashboard/locks/simulated',
    surface: 'dash-page',
    target: 'none',
    request: () => ({ form: { nickname: 'Matrix' } }),
    own: { status: 303, location: '/dashboard/locks?ok=lock-added' },
    skipAllowed:
      "it adds a lock the other rows' lock lists would then show (no request removes one): test/dashboard/add-simulated-lock.test.ts carries it out",
  },
  lockPage('integration', () => ({ enabled: '' }), {
    restore: (ctx) => dashPost(ctx, `/dashboard/locks/${ctx.target}/integration`, { enabled: 'on' }),
  }),
  lockPage('app', () => ({ open: 'yes' }), {
    restore: (ctx) => dashPost(ctx, `/dashboard/locks/${ctx.target}/app`, { open: 'no' }),
  }),
  // Refused: the actor shares another's lock with itself. Allowed: the owner shares with someone else.
  lockPage('share', (ctx) => ({ email: PEOPLE[ctx.own ? other(ctx.actor) : ctx.actor].email }), {
    restore: (ctx) =>
      dashPost(ctx, `/dashboard/locks/${ctx.target}/unshare`, {
        account: ctx.w.of[other(ctx.actor)].accountId,
      }),
  }),
  // Refused: the actor strips the guest of the shared lock. Allowed: the owner ends a share it made.
  lockPage('unshare', (ctx) => ({ account: ctx.w.of[ctx.own ? other(ctx.actor) : 'shared'].accountId }), {
    prepare: (ctx) =>
      dashPost(ctx, `/dashboard/locks/${ctx.target}/share`, { email: PEOPLE[other(ctx.actor)].email }),
  }),
  settingsPost('/code'),
  settingsPost('/confirm', {
    request: () => ({ form: { code: '000000' } }),
    own: refused('/dashboard/api-settings', 400),
  }),
  settingsPost('/lock', {
    restore: (ctx) => unlockApiSettings(ctx.w.t, ctx.w.of[ctx.actor].session, PEOPLE[ctx.actor].email),
  }),
  // A new secret: shown once through a handle of this browser's (the next row's route).
  settingsPost('/keys', { own: redirect('/dashboard/api-settings/secret/') }),
  settingsPost('/keys/delete', {
    target: 'key',
    request: (ctx) => ({ form: { key: ctx.target } }),
    // Another account's key is "no such key", exactly as one that does not exist.
    foreign: refused('/dashboard/api-settings', 400),
  }),
  settingsPost('/webhook', { request: (ctx) => ({ form: { url: hookUrl(ctx), method: 'POST' } }) }),
  settingsPost('/webhook/rotate', { own: redirect('/dashboard/api-settings/secret/') }),
  settingsPost('/webhook/test'),
  settingsPost('/webhook/remove', { restore: putWebhookBack }),
  {
    method: 'POST',
    route: '/dashboard/account/password',
    surface: 'dash-page',
    target: 'none',
    // A wrong current password: the change itself (which ends every session) is test/dashboard's.
    request: () => ({ form: { current_password: 'not-the-password', new_password: 'a-new-long-password' } }),
    own: refused('/dashboard/account', 400),
  },
  {
    method: 'POST',
    route: '/dashboard/account/delete',
    surface: 'dash-page',
    target: 'none',
    request: (ctx) => ({ form: { password: 'not-the-password', confirm_email: PEOPLE[ctx.actor].email } }),
    own: refused('/dashboard/account', 400),
  },
  // ---- account-less pages and flows: nothing of any account in them, whoever asks.
  open('GET', '/dashboard', 'dash-public'),
  open('GET', '/dashboard/', 'dash-public'),
  open('GET', '/dashboard/*', 'dash-public', '/dashboard/assets/dashboard.css'),
  ...(['/login', '/signup', '/verify', '/forgot', '/reset'] as const).flatMap((p) => [
    open('GET', `/dashboard${p}`, 'dash-public'),
    open('POST', `/dashboard${p}`, 'dash-public'),
  ]),
  open('POST', '/dashboard/logout', 'dash-public'),
  open('POST', '/dashboard/verify/resend', 'dash-public'),
  // ---- operations and documents: public, the same for everyone.
  ...['/', '/healthz', '/readyz', '/openapi.json', '/docs', '/docs/', '/docs/json', '/docs/yaml'].map((r) =>
    open('GET', r, 'public'),
  ),
  open('GET', '/docs/static/index.html', 'public'),
  open('GET', '/docs/static/swagger-initializer.js', 'public'),
  open('GET', '/docs/*', 'public', '/docs/static/swagger-ui.css'),
  // ---- the sandbox.
  ...(
    [
      ['POST', '/_sim/locks'],
      ['POST', '/_sim/locks/:device_id'],
      ['GET', '/_sim/clock'],
      ['POST', '/_sim/clock'],
      ['POST', '/_sim/accounts/:email'],
      ['POST', '/_sim/reset'],
      ['GET', '/_sim/mailbox'],
    ] as const
  ).map(
    ([method, route]): Endpoint => ({ method, route, surface: 'sandbox', target: 'none', outside: SANDBOX }),
  ),
];
