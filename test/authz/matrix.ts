/**
 * Generates the authorization matrix from the endpoint table (account x object x credential kind x
 * CSRF token) and runs one case: the exact answer, no other account's data in it, and no row of any
 * account changed by a refusal (an allowed request changes only the rows of its own account).
 */
import assert from 'node:assert/strict';
import { eventually } from '../support/eventually.ts';
import { waitForTask } from '../support/server.ts';
import {
  authenticates,
  CSRF_REFUSED,
  type Csrf,
  follow,
  label,
  leaks,
  PRESENTATIONS,
  type Presentation,
  send,
  unauthenticated,
  type Want,
} from './presentations.ts';
import { type Ctx, ENDPOINTS, type Endpoint } from './routes.ts';
import {
  ACTORS,
  type Actor,
  changedAccounts,
  LOCKS,
  lockedForOwner,
  lockRelation,
  PEOPLE,
  partitions,
  type Relation,
  relock,
  settle,
  UNKNOWN_ID,
  UNKNOWN_LOCK,
  type World,
} from './world.ts';

export interface Case {
  readonly e: Endpoint;
  readonly actor: Actor;
  readonly target: string;
  readonly relation: Relation;
  readonly p: Presentation;
  readonly csrf: Csrf;
  /** The answer; 'open' for public routes (whatever they answer, the same for all, with no one's data). */
  readonly want: Want | 'open';
  /** The account acting on its own object with its own credential: the request is carried out. */
  readonly allowed: boolean;
  readonly what: string;
}

/** The objects an actor tries, each with its relation; `first` marks the first of each relation. */
function targets(w: World, e: Endpoint, actor: Actor): { id: string; relation: Relation; first: boolean }[] {
  const seen = new Set<Relation>();
  return objects(w, e, actor).map((o) => {
    const first = !seen.has(o.relation);
    seen.add(o.relation);
    return { ...o, first };
  });
}

function objects(w: World, e: Endpoint, actor: Actor): { id: string; relation: Relation }[] {
  const perAccount = (pick: (a: Actor) => string) => [
    ...ACTORS.map((a) => ({ id: pick(a), relation: (a === actor ? 'own' : 'foreign') as Relation })),
    { id: UNKNOWN_ID, relation: 'foreign' as const },
  ];
  switch (e.target) {
    case 'lock':
      // Each id also in upper case: device ids are compared in lower case, on every surface.
      return [...LOCKS.map((l) => l.deviceId), UNKNOWN_LOCK]
        .flatMap((id) => [id, id.toUpperCase()])
        .map((id) => ({ id, relation: lockRelation(actor, id) }));
    case 'task':
      return perAccount((a) => w.of[a].taskId);
    case 'delivery':
      return perAccount((a) => w.of[a].deliveryId);
    case 'endpoint':
      return perAccount((a) => w.of[a].endpointId);
    case 'endpoint-delivery':
      // The path's two ids: an endpoint's, and a message of its log.
      return perAccount((a) => `${w.of[a].endpointId}/deliveries/${w.of[a].endpointDeliveryId}`);
    case 'key':
      return perAccount((a) => w.of[a].spareKeyId);
    case 'app':
      return perAccount((a) => w.of[a].appId);
    case 'account':
      return perAccount((a) => PEOPLE[a].email).slice(0, ACTORS.length);
    default:
      return [{ id: '', relation: 'own' }];
  }
}

const isDashPost = (e: Endpoint) => e.method !== 'GET' && e.route.startsWith('/dashboard');
const sessionCookie = (p: Presentation) => p.secret === 'session' && p.place === 'cookie';

/** Every case of the matrix, in table order. */
export function cases(w: World, include: (e: Endpoint) => boolean = () => true): Case[] {
  const out: Case[] = [];
  // Operations and documents answer nobody in particular: one account's credentials are enough.
  for (const e of ENDPOINTS.filter((x) => x.outside === undefined && include(x)))
    for (const actor of e.surface === 'public' || e.surface === 'oauth' ? (['stranger'] as const) : ACTORS)
      for (const { id, relation, first } of targets(w, e, actor))
        for (const p of PRESENTATIONS)
          for (const csrf of isDashPost(e) ? (['own', 'none', 'foreign'] as const) : (['none'] as const)) {
            const opens = e.surface === 'public' || e.surface === 'dash-public' || e.surface === 'oauth';
            const auth = authenticates(e.surface, p);
            // Without the surface's credential the object does not matter: one of each relation is
            // enough. The CSRF token only matters to a request with a session: without one, the
            // token of the actor's session is the strongest try.
            if (!auth && !first) continue;
            if (csrf !== 'own' && isDashPost(e) && !sessionCookie(p)) continue;
            let want: Want | 'open';
            let allowed = false;
            // The OAuth endpoints answer an app whatever account credential rides along: only
            // that they tell no account's data and never fail is checked of them here (their own
            // refusals: test/http/oauth).
            if (opens && (e.method === 'GET' || e.surface === 'oauth')) want = 'open';
            else if (opens) {
              if (sessionCookie(p) && csrf === 'own') continue; // skipAllowed: an account-less flow
              want = CSRF_REFUSED(false);
            } else if (!auth) want = unauthenticated(e.surface, e.method, p);
            else if (isDashPost(e) && csrf !== 'own') want = CSRF_REFUSED(e.surface === 'dash-api');
            else if (relation === 'own') {
              if (e.skipAllowed !== undefined) continue;
              want = e.own ?? { status: 200 };
              allowed = true;
            } else want = (relation === 'shared' ? e.shared : undefined) ?? e.foreign ?? { status: 0 };
            const what = `${actor} ${e.method} ${e.route} [${id || 'own account'}: ${relation}] with ${label(p)}${
              isDashPost(e) ? `, CSRF ${csrf}` : ''
            }`;
            out.push({ e, actor, target: id, relation, p, csrf, want, allowed, what });
          }
  return out;
}

const JSON_UTF8 = 'application/json; charset=utf-8';

function checkAnswer(res: Response, text: string, want: Want, what: string): unknown {
  assert.equal(res.status, want.status, `${what}: status (body ${text.slice(0, 200)})`);
  if (want.location !== undefined)
    assert.ok(
      res.headers.get('location')?.startsWith(want.location),
      `${what}: location ${res.headers.get('location')}`,
    );
  if (want.page) assert.match(res.headers.get('content-type') ?? '', /^text\/html/, `${what}: a page`);
  if (want.body === undefined && want.error === undefined) {
    return /json/.test(res.headers.get('content-type') ?? '') && text !== '' ? JSON.parse(text) : text;
  }
  assert.equal(res.headers.get('content-type'), JSON_UTF8, `${what}: content type`);
  const body = JSON.parse(text) as Record<string, unknown>;
  if (want.body !== undefined) assert.deepEqual(body, want.body, what);
  else {
    assert.deepEqual(Object.keys(body), ['error', 'message'], `${what}: ${text}`);
    assert.equal(body.error, want.error, `${what}: ${text}`);
  }
  return body;
}

/** The path of the route with the object's id in place of its parameter. */
const fill = (route: string, id: string) => route.replace(/:[a-zA-Z_]+/, id);

/** Runs one case and checks everything it promises; answers the status (for the HEAD twin). */
export async function runCase(w: World, c: Case, noneStatus?: number): Promise<number> {
  const ctx: Ctx = { w, actor: c.actor, target: c.target, own: c.allowed };
  // What `prepare` makes (an invitation, say) is what the request then names: prepare first.
  const before = partitions(w.db);
  const deliveriesBefore = c.e.moves && c.allowed ? countDeliveries(w, c.actor) : 0;
  if (c.allowed) await c.e.prepare?.(ctx);
  const out = { method: c.e.method, path: fill(c.e.route, c.target), ...c.e.request?.(ctx) };
  const res = await send(w, c.actor, c.p, c.csrf, out);
  const text = await res.text();
  const viewer =
    c.e.surface === 'public' || c.e.surface === 'dash-public' || c.e.surface === 'oauth'
      ? c.p.secret === 'session' && c.p.place === 'cookie'
        ? c.actor
        : undefined
      : authenticates(c.e.surface, c.p)
        ? c.actor
        : undefined;
  assert.ok(res.status < 500, `${c.what}: ${res.status} ${text.slice(0, 200)}`);
  assert.deepEqual(
    leaks(w, viewer, text, JSON.stringify(out)),
    [],
    `${c.what}: another account's data in the answer`,
  );
  if (c.want === 'open') {
    if (c.e.surface === 'public' && noneStatus !== undefined) assert.equal(res.status, noneStatus, c.what);
  } else {
    const body = checkAnswer(res, text, c.want, c.what);
    if (c.want.landing !== undefined) {
      const location = res.headers.get('location') ?? '';
      const page = await follow(w, c.actor, location);
      const pageText = await page.text();
      const what = `${c.what}, then GET ${location}`;
      checkAnswer(page, pageText, c.want.landing, what);
      assert.deepEqual(
        leaks(w, viewer, pageText, JSON.stringify(out)),
        [],
        `${what}: another account's data`,
      );
    }
    if (c.allowed) {
      c.e.check?.(ctx, body);
      if (c.e.moves) await movedThenBack(w, c, body, deliveriesBefore);
      await c.e.restore?.(ctx);
      await settle(w);
    }
  }
  if (c.e.method === 'GET') {
    const head = await send(w, c.actor, c.p, c.csrf, { ...out, method: 'HEAD' });
    assert.equal(head.status, res.status, `HEAD twin of ${c.what}`);
    assert.equal(await head.text(), '', `HEAD twin of ${c.what}: no body`);
  }
  const changed = changedAccounts(before, partitions(w.db));
  const mayChange = c.allowed
    ? [c.actor, ...(c.e.alsoChanges?.(ctx) ?? [])].map((a) => w.of[a].accountId)
    : [];
  assert.deepEqual(
    changed.filter((a) => !mayChange.includes(a)),
    [],
    `${c.what}: changed the stored data of ${changed.join(', ')}`,
  );
  return res.status;
}

function countDeliveries(w: World, actor: Actor): number {
  const row = w.db
    .prepare("SELECT count(*) AS n FROM webhook_deliveries WHERE account_id = ? AND endpoint_id = ''")
    .get(w.of[actor].accountId) as { n: number };
  return row.n;
}

/** An allowed command really unlocked the lock: check, lock it again, and wait for both webhook messages. */
async function movedThenBack(w: World, c: Case, body: unknown, deliveriesBefore: number): Promise<void> {
  const taskId = (body as { task_id?: string } | null)?.task_id;
  if (typeof taskId === 'string') {
    await waitForTask(w.t, taskId, PEOPLE[c.actor].key);
  }
  assert.equal(await lockedForOwner(w, c.target.toLowerCase()), false, `${c.what}: the lock moved`);
  await relock(w, c.actor, c.target.toLowerCase());
  await eventually(
    `${c.what}: both webhook messages`,
    () => countDeliveries(w, c.actor) >= deliveriesBefore + 2,
  );
  assert.equal(
    countDeliveries(w, c.actor),
    deliveriesBefore + 2,
    `${c.what}: one webhook message per change`,
  );
}

/** Runs the cases in order; for public routes, first learns what they answer without a credential. */
export async function runAll(w: World, list: readonly Case[]): Promise<number> {
  const noneStatus = new Map<string, number>();
  let n = 0;
  for (const c of list) {
    const key = `${c.e.method} ${c.e.route}`;
    const status = await runCase(w, c, noneStatus.get(key));
    if (c.p.secret === undefined && !noneStatus.has(key)) noneStatus.set(key, status);
    n++;
  }
  return n;
}
