import { randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { sameSecret } from '../../app/constant-time.ts';
import { state } from './context.ts';
import { query } from './reply.ts';
import type { Notice } from './views/layout.ts';

/** A secret the page shows once: a new API key, a webhook signing secret or an app's client secret. */
export interface Revealed {
  readonly kind: 'key' | 'webhook-secret' | 'client-secret';
  readonly value: string;
  /** A client secret's app: its client id (public, shown beside the secret). */
  readonly clientId?: string;
}

/**
 * A refused form, for its page to show once after the redirect exactly as it would have in place:
 * the status (and wait) of the refusal, every error by field, and the values it refills. Values are
 * only those the page refilled before (an address, a webhook URL, a nickname, `next`, the key form's
 * choices): never a password, a code, a secret or a CSRF token.
 */
export interface Refused {
  readonly status: number;
  readonly retryAfterSeconds?: number;
  readonly notice: Notice;
  readonly errors?: Readonly<Record<string, string>>;
  readonly values?: Readonly<Record<string, string>>;
  /** The login form only: the password matched an unverified address, so the page offers the way on. */
  readonly unverified?: boolean;
}

/** What the page after a redirect shows once: how the change went, and a new secret if it made one. */
export interface Flash {
  readonly notice?: Notice;
  readonly revealed?: Revealed;
  readonly refused?: Refused;
}

interface Held extends Flash {
  /** The CSRF token of the browser that made it (derived from its session): only it may take it. */
  readonly owner: string;
  readonly expiresAt: number;
}

/** Long enough for the redirect and a slow page load; short enough that a forgotten tab holds nothing. */
export const FLASH_TTL_MS = 2 * 60 * 1000;
/**
 * A bound on memory, whatever a client does: the oldest go first. Refusals are kept apart, so a flood
 * of refused forms (anyone can send them) never pushes out a new key waiting to be shown.
 */
const MAX_HELD = 10_000;
const MAX_REFUSALS = 10_000;
/**
 * A refilled value is kept up to this length: longer than any value a form takes (an address is at
 * most 254, a webhook URL 256, a nickname 128), so only junk is cut, and a refusal stays small. The
 * key form's ticked locks, space-separated, pass it only past about 25 locks: the rest come back
 * unticked, and the owner ticks them again.
 */
export const MAX_REFILL = 1024;
const HANDLE = /^[A-Za-z0-9_-]{22}$/;

/**
 * Post/Redirect/Get for the dashboard: a POST stores what its page must say (and a new secret) under
 * a random handle and redirects to a GET that carries only the handle; the GET takes it, once.
 *
 * Held in this process's memory only, never in the database, a log or a URL: a secret lives here for
 * at most two minutes and is gone once shown. Several processes do not share it: behind a load
 * balancer that does not keep a browser on one process, the page after the redirect may find no
 * handle, and then says so (a new key is then deleted and made again; a notice is merely not shown).
 * Sharing it would mean writing secrets, sealed, to the shared store, which this does not do.
 */
export class Flashes {
  private readonly held = new Map<string, Held>();
  private readonly refusals = new Map<string, Held>();

  constructor(private readonly now: () => number) {}

  /** Flashes held, refusals included (for tests of the memory bound). */
  get size(): number {
    return this.held.size + this.refusals.size;
  }

  /** Keeps the flash for the browser whose CSRF token is `owner`; answers its handle. */
  put(owner: string, flash: Flash): string {
    const now = this.now();
    const [pool, max] = flash.refused === undefined ? [this.held, MAX_HELD] : [this.refusals, MAX_REFUSALS];
    // Each flash lives FLASH_TTL_MS from its put and a Map iterates in the order of insertion, so
    // the expired are the oldest: dropped from the front, up to the first still live. Scanning the
    // whole pool at every put made each refused form (anyone can send them) cost O(held): 10,000 in
    // the pool, 1.4 ms a put. After the sandbox clock is set back, a later flash may expire before an
    // earlier one; it then waits for those ahead of it or the bound, and take() still refuses it.
    for (const [handle, h] of pool) {
      if (h.expiresAt > now) break;
      pool.delete(handle);
    }
    while (pool.size >= max) {
      const oldest = pool.keys().next().value;
      if (oldest === undefined) break;
      pool.delete(oldest);
    }
    const handle = randomBytes(16).toString('base64url');
    const kept = flash.refused === undefined ? flash : { ...flash, refused: clipped(flash.refused) };
    pool.set(handle, { ...kept, owner, expiresAt: now + FLASH_TTL_MS });
    return handle;
  }

  /**
   * The flash, once, for the browser that made it; undefined when the handle is malformed, unknown,
   * expired or already taken. Another browser's handle is left in place: a leaked URL burns nothing.
   */
  take(owner: string, handle: string | undefined): Flash | undefined {
    if (handle === undefined || !HANDLE.test(handle)) return undefined;
    const pool = this.held.has(handle) ? this.held : this.refusals;
    const h = pool.get(handle);
    if (h === undefined || !sameSecret(owner, h.owner)) return undefined;
    pool.delete(handle);
    if (h.expiresAt <= this.now()) return undefined;
    return {
      ...(h.notice ? { notice: h.notice } : {}),
      ...(h.revealed ? { revealed: h.revealed } : {}),
      ...(h.refused ? { refused: h.refused } : {}),
    };
  }
}

/** A message may quote what was typed ("x" is not an e-mail address): kept to the same bound. */
function clipped(refused: Refused): Refused {
  const clip = (record: Readonly<Record<string, string>> | undefined) =>
    record === undefined
      ? undefined
      : Object.fromEntries(Object.entries(record).map(([name, text]) => [name, text.slice(0, MAX_REFILL)]));
  const values = clip(refused.values);
  const errors = clip(refused.errors);
  return {
    ...refused,
    notice: { ...refused.notice, text: refused.notice.text.slice(0, MAX_REFILL) },
    ...(values ? { values } : {}),
    ...(errors ? { errors } : {}),
  };
}

/**
 * The redirect after a change (303: the browser GETs the page, so a reload sends nothing again), with
 * what the page must say once; `owner` is the CSRF token of the session that will read it (a password
 * change opens a new one).
 */
export function redirectWithNotice(
  flashes: Flashes,
  request: FastifyRequest,
  reply: FastifyReply,
  to: string,
  notice: Notice,
  owner = state(request).csrf,
): FastifyReply {
  const handle = flashes.put(owner, { notice });
  return reply.redirect(`${to}${to.includes('?') ? '&' : '?'}note=${handle}`, 303);
}

/**
 * The redirect after a change was made (303, Post/Redirect/Get): a new secret to the page's one-time
 * view (`<page>/secret/<handle>`), which only this browser can open, once; otherwise to the page,
 * with the change's notice if it has one.
 */
export function redirectAfterChange(
  flashes: Flashes,
  request: FastifyRequest,
  reply: FastifyReply,
  page: string,
  flash: Flash,
): FastifyReply {
  if (flash.revealed !== undefined) {
    const handle = flashes.put(state(request).csrf, flash);
    return reply.redirect(`${page}/secret/${handle}`, 303);
  }
  if (flash.notice === undefined) return reply.redirect(page, 303);
  return redirectWithNotice(flashes, request, reply, page, flash.notice);
}

/**
 * The redirect after a refused form (303 to the form's page, never answering the POST in place): a
 * reload of that page then shows the form again and sends nothing, so it spends no second attempt.
 * The refusal waits under a handle of this browser's, once; the URL carries only the handle
 * (`?refused=`), never an address, a password or a code.
 */
export function redirectRefused(
  flashes: Flashes,
  request: FastifyRequest,
  reply: FastifyReply,
  to: string,
  refused: Refused,
): FastifyReply {
  const handle = flashes.put(state(request).csrf, { refused });
  return reply.redirect(`${to}${to.includes('?') ? '&' : '?'}refused=${handle}`, 303);
}

/**
 * The handle a page after a redirect was given: `note` after a change, `refused` after a refusal
 * (named apart so the address bar and a client tell the two apart without reading the page).
 */
export function handleOf(request: FastifyRequest): string | undefined {
  const { note, refused } = query(request);
  return refused ?? note;
}

/**
 * The page that shows a stored refusal answers with the refusal's status (and its Retry-After), as
 * the form's answer did before: what a tool, a test or an assistive reader learns from the status is
 * unchanged, and the answers that must not tell addresses apart stay equal. Answers that status.
 */
export function refusedStatus(reply: FastifyReply, refused: Refused): number {
  if (refused.retryAfterSeconds !== undefined) reply.header('retry-after', String(refused.retryAfterSeconds));
  return refused.status;
}
