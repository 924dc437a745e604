/**
 * What the route table (routes.ts) is made of: a row's type and what it acts on, and the helpers
 * more than one surface's rows use.
 */
import type { Outgoing, Surface, Want } from './presentations.ts';
import { type Actor, hookPath, LOCKS, lockRelation, PEOPLE, type World } from './world.ts';

export type Target =
  | 'lock'
  | 'task'
  | 'delivery'
  | 'endpoint'
  | 'endpoint-delivery'
  | 'key'
  | 'app'
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
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS';
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
  /** Runs before the allowed request (and before `request` builds it); `restore` after it, to leave the world as it was. */
  readonly prepare?: (ctx: Ctx) => Promise<void>;
  readonly restore?: (ctx: Ctx) => Promise<void>;
  /**
   * The other accounts an allowed request writes to, besides the actor's: a grant joins two
   * accounts, and its changes are written in the owner's log and the guest's (docs/events.md).
   */
  readonly alsoChanges?: (ctx: Ctx) => readonly Actor[];
  /** Why the allowed request is not sent (the refusals still are). */
  readonly skipAllowed?: string;
  /** For routes outside the matrix: why. */
  readonly outside?: string;
}

export const ownLocks = (a: Actor) => LOCKS.filter((l) => l.owner === a).map((l) => l.deviceId);
export const visibleLocks = (a: Actor) =>
  LOCKS.filter((l) => lockRelation(a, l.deviceId) !== 'foreign').map((l) => l.deviceId);
export const sameSet = (got: string[], want: string[], what: string) => {
  if (JSON.stringify([...got].sort()) !== JSON.stringify([...want].sort()))
    throw new Error(`${what}: listed ${got.join(', ')}; expected ${want.join(', ')}`);
};

/** The actor's webhook as the world set it, after a row removed or changed it. */
export async function putWebhookBack(ctx: Ctx): Promise<void> {
  const res = await ctx.w.t.request('/ext/webhook', {
    method: 'PUT',
    key: PEOPLE[ctx.actor].key,
    json: { url: `${ctx.w.receiver.url}${hookPath(ctx.actor)}`, method: 'POST' },
  });
  if (res.status !== 200) throw new Error(`webhook back for ${ctx.actor}: ${res.status}`);
}
export const hookUrl = (ctx: Ctx) => `${ctx.w.receiver.url}${hookPath(ctx.actor)}`;
