/**
 * The route table's rows for /ext (Authorization key): the webhook, the webhook endpoints, the
 * event log and its stream, the locks, the API keys.
 */
import { type Ctx, type Endpoint, hookUrl, putWebhookBack, sameSet, visibleLocks } from './route-kit.ts';
import { lockRelation, PEOPLE } from './world.ts';

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

interface LockJson {
  device_id: string;
  role: string;
  auto_lock_seconds?: number;
  access_point?: unknown;
}

/** A lock as /ext shows it to the actor: the owner's settings and access point to its owner only. */
function checkLock(ctx: Ctx, lock: LockJson): void {
  const relation = lockRelation(ctx.actor, lock.device_id);
  const what = `${ctx.actor}'s view of ${lock.device_id}`;
  if (relation === 'foreign') throw new Error(`${what}: a lock it cannot see`);
  const role = relation === 'own' ? 'owner' : 'guest';
  if (lock.role !== role) throw new Error(`${what}: role ${lock.role}`);
  const settings = 'serial' in lock || 'auto_lock_seconds' in lock || 'access_point' in lock;
  if (settings !== (role === 'owner')) throw new Error(`${what}: ${JSON.stringify(lock)}`);
}

/** Deletes the keys the matrix's POST /ext/keys made, keeping the world's own. */
async function removeNewKeys(ctx: Ctx): Promise<void> {
  const key = PEOPLE[ctx.actor].key;
  const res = await ctx.w.t.request('/ext/keys', { key });
  const { keys } = (await res.json()) as { keys: { id: string }[] };
  for (const { id } of keys.filter((k) => !ctx.w.of[ctx.actor].keyIds.includes(k.id))) {
    const removed = await ctx.w.t.request(`/ext/keys/${id}`, { method: 'DELETE', key });
    if (removed.status !== 204) throw new Error(`key ${id} of ${ctx.actor}: ${removed.status}`);
  }
}

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

export const EXT_ROUTES: readonly Endpoint[] = [
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
  // ---- locks with their health: own and shared locks; the settings and the access point to the owner.
  {
    method: 'GET',
    route: '/ext/locks',
    surface: 'ext',
    target: 'none',
    own: { status: 200 },
    check: (ctx, body) => {
      const { locks } = body as { locks: LockJson[] };
      sameSet(
        locks.map((l) => l.device_id),
        visibleLocks(ctx.actor),
        `locks of ${ctx.actor}`,
      );
      for (const lock of locks) checkLock(ctx, lock);
    },
  },
  {
    method: 'GET',
    route: '/ext/locks/:device_id',
    surface: 'ext',
    target: 'lock',
    own: { status: 200 },
    shared: { status: 200 },
    foreign: { status: 404, error: 'NOT_FOUND' },
    check: (ctx, body) => checkLock(ctx, body as LockJson),
  },
  {
    method: 'PATCH',
    route: '/ext/locks/:device_id',
    surface: 'ext',
    target: 'lock',
    request: () => ({ json: { battery_low: 25 } }),
    own: { status: 200 },
    // A guest sees the lock but may not change it: the refusal names the owner's right.
    shared: { status: 400, error: 'BAD_PARAMS' },
    foreign: { status: 404, error: 'NOT_FOUND' },
    restore: async (ctx) => {
      const res = await ctx.w.t.request(`/ext/locks/${ctx.target}`, {
        method: 'PATCH',
        key: PEOPLE[ctx.actor].key,
        json: { battery_low: 20 },
      });
      if (res.status !== 200) throw new Error(`thresholds back for ${ctx.target}: ${res.status}`);
    },
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
  // ---- API keys: the account's own; another account's key does not exist. Never a secret listed.
  {
    method: 'GET',
    route: '/ext/keys',
    surface: 'ext',
    target: 'none',
    own: { status: 200 },
    check: (ctx, body) => {
      const { keys } = body as { keys: Record<string, unknown>[] };
      sameSet(
        keys.map((k) => String(k.id)),
        [...ctx.w.of[ctx.actor].keyIds],
        `keys of ${ctx.actor}`,
      );
      if (keys.some((k) => 'key' in k)) throw new Error(`keys of ${ctx.actor}: a secret listed`);
    },
  },
  {
    method: 'POST',
    route: '/ext/keys',
    surface: 'ext',
    target: 'none',
    request: () => ({ json: { name: 'matrix', scopes: ['locks:read'] } }),
    own: { status: 201 },
    restore: removeNewKeys,
  },
  {
    method: 'POST',
    route: '/ext/keys',
    surface: 'ext',
    target: 'lock',
    // A new key limited to a lock: only the account's own locks; a shared or foreign one is a bad field.
    request: (ctx) => ({ json: { lock_ids: [ctx.target] } }),
    own: { status: 201 },
    shared: { status: 400, error: 'BAD_PARAMS' },
    foreign: { status: 400, error: 'BAD_PARAMS' },
    restore: removeNewKeys,
  },
  {
    method: 'DELETE',
    route: '/ext/keys/:id',
    surface: 'ext',
    target: 'key',
    foreign: { status: 404, error: 'NOT_FOUND' },
    skipAllowed: "the world's spare key would be gone: deleted in test/http/ext/keys.test.ts",
  },
];
