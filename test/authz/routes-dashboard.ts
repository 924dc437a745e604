/**
 * The route table's rows for the dashboard's session routes: its JSON endpoints (X-CSRF-Token on
 * POST) and its pages and forms.
 */
import { carriedOut } from '../dashboard/support.ts';
import type { Want } from './presentations.ts';
import { type Ctx, type Endpoint, hookUrl, ownLocks, putWebhookBack, sameSet } from './route-kit.ts';
import {
  grantOf,
  invitationFor,
  invitedGuest,
  invitee,
  inviterOf,
  liveGrant,
  ownersGrant,
  revoke,
} from './routes-grants.ts';
import {
  type Actor,
  APP_REDIRECT,
  appName,
  authorizeOwnApp,
  LOCKS,
  lockRelation,
  PEOPLE,
  unlockApiSettings,
} from './world.ts';

const page = (status: number): Want => ({ status, page: true });
/** The grant a row edits or revokes: the one its prepare made when allowed, the lock's first otherwise. */
const dashGrantPath = (ctx: Ctx) =>
  `/dashboard/locks/${ctx.target}/grants/${ctx.own ? liveGrant(ctx, ctx.target, invitee(ctx.actor)) : grantOf(ctx, ctx.target)}`;
/** A change carried out: the redirect to its page (Post/Redirect/Get), which shows the outcome once. */
const redirect = (location: string): Want => ({ status: 303, location });
/** A refused form: the redirect to its page too, which shows the refusal once with its status. */
const refused = (to: string, status: number): Want => ({
  status: 303,
  location: `${to}?refused=`,
  landing: page(status),
});
const dashNotFound: Want = { status: 404, error: 'NOT_FOUND' };

/** A dashboard form the actor's own browser sends (used to set things back). */
async function dashPost(ctx: Ctx, path: string, form: Record<string, string>): Promise<void> {
  const res = await ctx.w.of[ctx.actor].session.post(path, form);
  if (!carriedOut(res))
    throw new Error(`${path} for ${ctx.actor}: ${res.status} ${res.res.headers.get('location')}`);
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

/** A form of the Apps page on one app: another account's app, or none, is "no such app" (404). */
const appsPost = (path: string, more: Partial<Endpoint> = {}) =>
  ({
    method: 'POST',
    route: `/dashboard/apps${path}`,
    surface: 'dash-page',
    target: 'app',
    request: () => ({ form: {} }),
    own: redirect('/dashboard/apps?note='),
    foreign: refused('/dashboard/apps', 404),
    ...more,
  }) satisfies Endpoint;

/** The app a row registers, or registers to delete: named apart by account (the leak check greps names). */
const matrixAppName = (actor: Actor) => `Matrix-${actor}-e71f`;
/** The apps the rows made for each account, to delete (the register row's) or to name (the delete row's). */
const madeApps = new Map<Actor, string>();

async function registerSpare(ctx: Ctx): Promise<void> {
  const { app } = await ctx.w.t.server.lockcloud.oauthApps.register(ctx.w.of[ctx.actor].accountId, {
    name: matrixAppName(ctx.actor),
    redirect_uris: [APP_REDIRECT],
  });
  madeApps.set(ctx.actor, app.id);
}

/** Deletes the app the register row made (found by its name), leaving the account's world app. */
async function deleteRegistered(ctx: Ctx): Promise<void> {
  const accountId = ctx.w.of[ctx.actor].accountId;
  const apps = ctx.w.t.server.lockcloud.oauthApps;
  const made = (await apps.list(accountId)).filter((a) => a.name === matrixAppName(ctx.actor));
  if (made.length !== 1) throw new Error(`${ctx.actor} registered ${made.length} apps`);
  for (const a of made) await apps.delete(accountId, a.id);
}

export const DASHBOARD_ROUTES: readonly Endpoint[] = [
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
    shared: { status: 403, error: 'FORBIDDEN' },
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
  // The consent step needs an authorization request in flight (its interaction cookie, set by
  // /oauth/auth): without one, the signed-in owner is told it ended (test/http/oauth for the rest).
  ...(['GET', 'POST'] as const).map(
    (method): Endpoint => ({
      method,
      route: '/dashboard/oauth/consent/:uid',
      surface: 'dash-page',
      target: 'none',
      request: () => ({
        path: '/dashboard/oauth/consent/no-request-in-flight',
        ...(method === 'POST' ? { form: { decision: 'allow' } } : {}),
      }),
      own: page(400),
    }),
  ),
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
  // The porch's guest has a view grant: refused as view only (GuestCommands), nothing moves.
  lockPage('command', () => ({ command: 'unlock' }), {
    moves: true,
    shared: refused('/dashboard/locks', 403),
  }),
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
  // The owner's auto-lock and battery thresholds (LockDetails.change): a guest is refused as not the
  // owner (403), a stranger as no such lock; allowed, the defaults are put back.
  lockPage('settings', () => ({ auto_lock_seconds: '0', battery_low: '30', battery_critical: '15' }), {
    shared: refused('/dashboard/locks', 403),
    restore: (ctx) =>
      dashPost(ctx, `/dashboard/locks/${ctx.target}/settings`, {
        auto_lock_seconds: '0',
        battery_low: '20',
        battery_critical: '10',
      }),
  }),
  // Grants (issue 23): the owner invites, edits and revokes; a guest of the lock and a stranger are
  // refused as for a lock that does not exist. Allowed, as on /ext (routes-grants.ts): the row's
  // invitation is made first and revoked after, and the guest's log is written too.
  lockPage(
    'grants',
    (ctx) => ({ email: PEOPLE[ctx.own ? invitee(ctx.actor) : ctx.actor].email, role: 'view' }),
    {
      alsoChanges: ownersGrant.alsoChanges,
      restore: (ctx) => revoke(ctx, ctx.actor, ctx.target, invitee(ctx.actor)),
    },
  ),
  {
    ...lockPage('grants/:grant_id', () => ({ role: 'operate' }), {
      ...ownersGrant,
      restore: (ctx) => revoke(ctx, ctx.actor, ctx.target, invitee(ctx.actor)),
    }),
    request: (ctx) => ({ path: dashGrantPath(ctx), form: { role: 'operate' } }),
  },
  {
    ...lockPage('grants/:grant_id/revoke', () => ({}), ownersGrant),
    request: (ctx) => ({ path: `${dashGrantPath(ctx)}/revoke`, form: {} }),
  },
  // Each account answers an invitation made to it for the row (answering another's is
  // test/dashboard/http-grants.test.ts's); an accepted one is revoked after.
  {
    method: 'POST',
    route: '/dashboard/invitations/:grant_id/accept',
    surface: 'dash-page',
    target: 'none',
    request: (ctx) => ({ path: `/dashboard/invitations/${invitationFor(ctx)}/accept`, form: {} }),
    own: redirect('/dashboard/locks?note='),
    ...invitedGuest,
    restore: (ctx) => {
      const { owner, deviceId } = inviterOf(ctx.actor);
      return revoke(ctx, owner, deviceId, ctx.actor);
    },
  },
  {
    method: 'POST',
    route: '/dashboard/invitations/:grant_id/decline',
    surface: 'dash-page',
    target: 'none',
    request: (ctx) => ({ path: `/dashboard/invitations/${invitationFor(ctx)}/decline`, form: {} }),
    own: redirect('/dashboard/locks?note='),
    ...invitedGuest,
  },
  // The Apps page (issue 24): the apps the account authorized, and those it registered.
  { method: 'GET', route: '/dashboard/apps', surface: 'dash-page', target: 'none', own: page(200) },
  {
    method: 'GET',
    route: '/dashboard/apps/secret/:handle',
    surface: 'dash-page',
    target: 'none',
    request: () => ({ path: '/dashboard/apps/secret/AAAAAAAAAAAAAAAAAAAAAA' }),
    own: page(410),
  },
  // A new app: its secret shown once through a handle of this browser's; deleted after.
  {
    method: 'POST',
    route: '/dashboard/apps',
    surface: 'dash-page',
    target: 'none',
    request: (ctx) => ({ form: { name: matrixAppName(ctx.actor), redirect_uris: APP_REDIRECT } }),
    own: redirect('/dashboard/apps/secret/'),
    restore: deleteRegistered,
  },
  // Saved as it is: the name and redirect URIs the world gave it.
  appsPost('/:id', {
    request: (ctx) => ({ form: { name: appName(ctx.actor), redirect_uris: APP_REDIRECT } }),
  }),
  appsPost('/:id/secret', { own: redirect('/dashboard/apps/secret/') }),
  // Allowed, a spare app of the account's is made first and deleted (the world's app stays).
  appsPost('/:id/delete', {
    prepare: registerSpare,
    request: (ctx) => ({
      path: `/dashboard/apps/${ctx.own ? madeApps.get(ctx.actor) : ctx.target}/delete`,
      form: {},
    }),
  }),
  // Each account authorized its own app only: another's app is one it has not authorized (404).
  appsPost('/authorized/:id/revoke', {
    restore: (ctx) => authorizeOwnApp(ctx.w.t, ctx.w.of[ctx.actor].accountId, ctx.target),
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
];
