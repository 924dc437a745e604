import { randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { sameSecret } from '../../app/constant-time.ts';
import { state } from './context.ts';
import type { Notice } from './views/layout.ts';

/** A secret the page shows once: a new API key or a webhook signing secret. */
export interface Revealed {
  readonly kind: 'key' | 'webhook-secret';
  readonly value: string;
}

/** What the page after a redirect shows once: how the change went, and a new secret if it made one. */
export interface Flash {
  readonly notice?: Notice;
  readonly revealed?: Revealed;
}

interface Held extends Flash {
  /** The CSRF token of the browser that made it (derived from its session): only it may take it. */
  readonly owner: string;
  readonly expiresAt: number;
}

/** Long enough for the redirect and a slow page load; short enough that a forgotten tab holds nothing. */
export const FLASH_TTL_MS = 2 * 60 * 1000;
/** A bound on memory, whatever a client does: the oldest go first. */
const MAX_HELD = 10_000;
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

  constructor(private readonly now: () => number) {}

  /** Keeps the flash for the browser whose CSRF token is `owner`; answers its handle. */
  put(owner: string, flash: Flash): string {
    const now = this.now();
    for (const [handle, h] of this.held) if (h.expiresAt <= now) this.held.delete(handle);
    while (this.held.size >= MAX_HELD) {
      const oldest = this.held.keys().next().value;
      if (oldest === undefined) break;
      this.held.delete(oldest);
    }
    const handle = randomBytes(16).toString('base64url');
    this.held.set(handle, { ...flash, owner, expiresAt: now + FLASH_TTL_MS });
    return handle;
  }

  /**
   * The flash, once, for the browser that made it; undefined when the handle is malformed, unknown,
   * expired or already taken. Another browser's handle is left in place: a leaked URL burns nothing.
   */
  take(owner: string, handle: string | undefined): Flash | undefined {
    if (handle === undefined || !HANDLE.test(handle)) return undefined;
    const h = this.held.get(handle);
    if (h === undefined || !sameSecret(owner, h.owner)) return undefined;
    this.held.delete(handle);
    if (h.expiresAt <= this.now()) return undefined;
    return { ...(h.notice ? { notice: h.notice } : {}), ...(h.revealed ? { revealed: h.revealed } : {}) };
  }
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
