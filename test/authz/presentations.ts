/**
 * How a credential is carried, and what each surface answers when it is not its own kind: every
 * account secret (v1 token, API key, dashboard session) in every place a client could put it
 * (X-Authorization, Authorization, `Bearer`, the partner body's `apikey`, the session cookie), and
 * none at all. Also the leak check: which markers of other accounts a response must not carry.
 */
import { ACTORS, type Actor, LOCKS, PEOPLE, type World } from './world.ts';

export type Secret = 'token' | 'key' | 'session';
export type Place = 'x-authorization' | 'authorization' | 'bearer' | 'apikey' | 'cookie';
export interface Presentation {
  readonly secret?: Secret;
  readonly place?: Place;
}
export const PRESENTATIONS: readonly Presentation[] = [
  {},
  ...(['token', 'key', 'session'] as const).flatMap((secret) =>
    (['x-authorization', 'authorization', 'bearer', 'apikey', 'cookie'] as const).map((place) => ({
      secret,
      place,
    })),
  ),
];
export const label = (p: Presentation) => (p.secret ? `${p.secret} in ${p.place}` : 'no credential');

/** Which CSRF token a dashboard mutation carries: its session's, none, or another session's. */
export type Csrf = 'own' | 'none' | 'foreign';

export type Surface =
  | 'v1'
  | 'v1-login'
  | 'v3'
  | 'partner'
  | 'ext'
  | 'dash-api'
  | 'dash-page'
  | 'dash-public'
  | 'public'
  // The OAuth endpoints (oidc-provider): an app's credentials, never an account's.
  | 'oauth'
  | 'sandbox';

/** Whether the presentation is the one credential the surface takes. */
export function authenticates(surface: Surface, p: Presentation): boolean {
  switch (surface) {
    case 'v1':
      return p.secret === 'token' && p.place === 'x-authorization';
    case 'v3':
    case 'ext':
      return p.secret === 'key' && (p.place === 'authorization' || p.place === 'bearer');
    case 'partner':
      return p.secret === 'key' && p.place === 'apikey';
    case 'dash-api':
    case 'dash-page':
      return p.secret === 'session' && p.place === 'cookie';
    // The login takes its credential in the body; the others take none.
    default:
      return true;
  }
}

export interface Want {
  readonly status: number;
  /** The exact JSON body. */
  readonly body?: unknown;
  /** A JSON `{"error": <this>, "message": <text>}`. */
  readonly error?: string;
  /** An HTML page. */
  readonly page?: true;
  /** A redirect to a path starting with this. */
  readonly location?: string;
  /**
   * The redirect is followed (a GET in the same session, as the browser does): the page it leads to.
   * A refused dashboard form redirects to its page, which answers with the refusal's status.
   */
  readonly landing?: Want;
}

const v1Error = (status: number, code: number, message: string): Want => ({
  status,
  body: { code, message },
});
export const V1_MISSING = v1Error(401, 20000, 'MissingAuthToken');
export const V1_WRONG = v1Error(401, 20001, 'WrongAuthToken');
export const V1_NOT_OWNER = v1Error(403, 30000, 'OwnerPermissionRequired');
export const V1_LOCK_NOT_FOUND = v1Error(400, 11002, 'LockNotFound');
export const V1_WRONG_CREDENTIALS = v1Error(400, 10002, 'WrongEmailOrPassword');
export const V3_UNAUTHORIZED: Want = { status: 401, body: { error: 'UNAUTHORIZED' } };
export const V3_BAD_PARAMS: Want = { status: 400, body: { error: 'BAD_PARAMS' } };
export const DASH_UNAUTHORIZED: Want = {
  status: 401,
  body: { error: 'UNAUTHORIZED', message: 'Log in again.' },
};

/** The answer of a surface to a request whose credential is not its kind (or absent). */
export function unauthenticated(surface: Surface, method: string, p: Presentation): Want {
  switch (surface) {
    case 'v1':
      return p.place === 'x-authorization' ? V1_WRONG : V1_MISSING;
    case 'v3':
    case 'partner':
    case 'ext':
      return V3_UNAUTHORIZED;
    case 'dash-api':
      return DASH_UNAUTHORIZED;
    case 'dash-page':
      return { status: 303, location: method === 'GET' ? '/dashboard/login?next=' : '/dashboard/login' };
    default:
      throw new Error(`${surface} takes no credential`);
  }
}

export const CSRF_REFUSED = (api: boolean): Want =>
  api ? { status: 403, error: 'FORBIDDEN' } : { status: 403, page: true };

export interface Outgoing {
  readonly method: string;
  readonly path: string;
  /** A JSON body, or a form for dashboard pages. */
  readonly json?: Record<string, unknown>;
  readonly form?: Record<string, string>;
  /** Headers of the route's own (an Idempotency-Key); the credential's are added by send(). */
  readonly headers?: Record<string, string>;
}

/** Sends the request with the actor's secret in the presentation's place, and a CSRF token as told. */
export function send(w: World, actor: Actor, p: Presentation, csrf: Csrf, out: Outgoing): Promise<Response> {
  const secret =
    p.secret === 'token'
      ? w.of[actor].token
      : p.secret === 'key'
        ? PEOPLE[actor].key
        : p.secret === 'session'
          ? (w.of[actor].session.cookie('lc_session') ?? '')
          : undefined;
  const headers: Record<string, string> = { ...out.headers };
  let path = out.path;
  const json = out.json && { ...out.json };
  const form = out.form && { ...out.form };
  if (secret !== undefined) {
    if (p.place === 'x-authorization') headers['x-authorization'] = secret;
    if (p.place === 'authorization') headers.authorization = secret;
    if (p.place === 'bearer') headers.authorization = `Bearer ${secret}`;
    if (p.place === 'cookie') headers.cookie = `lc_session=${secret}`;
    if (p.place === 'apikey') {
      if (json) json.apikey = secret;
      else if (form) form.apikey = secret;
      else path += `${path.includes('?') ? '&' : '?'}apikey=${encodeURIComponent(secret)}`;
    }
  }
  if (csrf !== 'none') {
    const other = ACTORS[(ACTORS.indexOf(actor) + 1) % ACTORS.length] as Actor;
    const token = w.of[csrf === 'own' ? actor : other].session.csrf;
    if (form) form._csrf = token;
    else headers['x-csrf-token'] = token;
  }
  let body: string | undefined;
  if (json) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(json);
  } else if (form) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    body = new URLSearchParams(form).toString();
  }
  return fetch(w.t.url + path, { method: out.method, headers, body, redirect: 'manual' });
}

/** The GET a browser makes after a redirect: the actor's own session cookie, nothing else. */
export function follow(w: World, actor: Actor, location: string): Promise<Response> {
  const session = w.of[actor].session.cookie('lc_session') ?? '';
  return fetch(w.t.url + location, { headers: { cookie: `lc_session=${session}` }, redirect: 'manual' });
}

/**
 * What the actor may see of other accounts (as stored now). An owner sees the guest of every grant
 * of its locks, in every state (its grant list). A guest sees the lock and the owner's e-mail of a
 * grant it holds or was offered: pending (its invitations), accepted or used (its grants), and
 * declined, whose answer named them once. A revoked grant shows the guest nothing more.
 */
function allowedFor(w: World, viewer: Actor | undefined): Set<string> {
  const ok = new Set<string>();
  if (viewer === undefined) return ok;
  const rows = w.db
    .prepare(
      `SELECT l.device_id, l.nickname, l.owner_id, a.id, a.email, o.email, s.state FROM grants s
         JOIN locks l USING (device_id) JOIN accounts a ON a.id = s.account_id
         JOIN accounts o ON o.id = l.owner_id`,
    )
    .raw()
    .all() as string[][];
  const me = w.of[viewer].accountId;
  for (const [deviceId, nickname, ownerId, guestId, guestEmail, ownerEmail, state] of rows) {
    if (guestId === me && state !== 'revoked')
      ok.add(String(deviceId)).add(String(nickname).toLowerCase()).add(String(ownerEmail).toLowerCase());
    if (ownerId === me) ok.add(String(guestId)).add(String(guestEmail));
  }
  return ok;
}

const markerCache = new WeakMap<World, { version: number; markers: Map<Actor, string[]> }>();

/**
 * Every value that identifies the account's data: ids, serials, nicknames, e-mail, keys, tasks,
 * deliveries. Read again whenever the server has written (SQLite's data_version moves).
 */
export function markersOf(w: World, actor: Actor): string[] {
  const version = w.db.pragma('data_version', { simple: true }) as number;
  let cached = markerCache.get(w);
  if (cached?.version !== version) {
    cached = { version, markers: new Map() };
    markerCache.set(w, cached);
  }
  const known = cached.markers.get(actor);
  if (known) return known;
  const markers = readMarkers(w, actor);
  cached.markers.set(actor, markers);
  return markers;
}

function readMarkers(w: World, actor: Actor): string[] {
  const { accountId } = w.of[actor];
  const locks = LOCKS.filter((l) => l.owner === actor);
  const rows = (sql: string) =>
    (w.db.prepare(sql).raw().all(accountId) as string[][]).map((r) => String(r[0]));
  return [
    PEOPLE[actor].email,
    accountId,
    PEOPLE[actor].key.slice(0, 9),
    PEOPLE[actor].spareKey.slice(0, 9),
    `hook-${actor}-9c1e`,
    ...locks.flatMap((l) => [l.deviceId, l.serial, l.nickname]),
    ...rows('SELECT id FROM api_keys WHERE account_id = ?'),
    ...rows('SELECT id FROM tasks WHERE account_id = ?'),
    ...rows('SELECT id FROM webhook_deliveries WHERE account_id = ?'),
    ...rows('SELECT id FROM webhook_endpoints WHERE account_id = ?'),
    ...rows('SELECT id FROM sessions WHERE account_id = ?'),
    ...rows('SELECT id FROM oauth_apps WHERE account_id = ?'),
    ...rows('SELECT name FROM oauth_apps WHERE account_id = ?'),
  ].map((m) => m.toLowerCase());
}

/** The markers of other accounts the text carries, beyond what the viewer may see and what it sent. */
export function leaks(w: World, viewer: Actor | undefined, text: string, sent: string): string[] {
  const hay = text.toLowerCase();
  const ok = allowedFor(w, viewer);
  const echoed = sent.toLowerCase();
  return ACTORS.filter((a) => a !== viewer)
    .flatMap((a) => markersOf(w, a))
    .filter((m) => !ok.has(m) && !echoed.includes(m) && hay.includes(m));
}
