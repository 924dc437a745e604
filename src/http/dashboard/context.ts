import type { FastifyReply, FastifyRequest } from 'fastify';
import type { SignedIn } from '../../app/accounts/index.ts';
import { sameSecret } from '../../app/constant-time.ts';
import type { Lockcloud } from '../../app/lockcloud.ts';

export const SESSION_COOKIE = 'lc_session';
export const ANON_COOKIE = 'lc_anon';
/**
 * Set at each login, kept across logouts: a random secret by which login knows this browser has
 * logged in to the account before, from whatever address (app/login.ts). It opens nothing by itself.
 */
export const DEVICE_COOKIE = 'lc_device';

/** What every dashboard request knows once its cookies are read. */
export interface DashboardState {
  readonly me: SignedIn | undefined;
  /** The CSRF token this browser's forms carry: derived from the session, or the anonymous cookie. */
  readonly csrf: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    dashboard: DashboardState | undefined;
  }
}

export function state(request: FastifyRequest): DashboardState {
  // The plugin's onRequest hook sets it before any handler runs; reaching this without is our bug.
  if (!request.dashboard) throw new Error('dashboard handler ran before its onRequest hook');
  return request.dashboard;
}

/** HttpOnly, SameSite=Lax (links from mail keep working, cross-site POSTs carry no cookie), Secure over https. */
export function cookieOptions(request: FastifyRequest, maxAgeSeconds?: number) {
  return {
    path: '/dashboard',
    httpOnly: true,
    sameSite: 'lax' as const,
    secure: request.protocol === 'https',
    ...(maxAgeSeconds === undefined ? {} : { maxAge: maxAgeSeconds }),
  };
}

/**
 * Reads the session cookie (and makes the anonymous one a first visit needs for its forms' CSRF
 * token), so handlers see who is signed in and which token their forms must carry.
 */
export async function readState(
  lockcloud: Lockcloud,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<DashboardState> {
  const { sessions } = lockcloud.accounts;
  const sessionToken = request.cookies[SESSION_COOKIE];
  const me = await sessions.resolve(sessionToken);
  if (me && sessionToken) return { me, csrf: sessions.csrfToken(sessionToken) };
  if (sessionToken !== undefined) reply.clearCookie(SESSION_COOKIE, cookieOptions(request));
  let anon = request.cookies[ANON_COOKIE];
  if (anon === undefined || !/^[A-Za-z0-9_-]{20,100}$/.test(anon)) {
    anon = sessions.newAnonymousSecret();
    reply.setCookie(ANON_COOKIE, anon, cookieOptions(request));
  }
  return { me: undefined, csrf: sessions.csrfToken(anon) };
}

/**
 * A mutation must carry this browser's CSRF token (form field `_csrf` or header `X-CSRF-Token`), and
 * when the browser names its Origin, it must be this server: a page on another site can do neither.
 */
export function csrfProblem(request: FastifyRequest, expected: string): string | undefined {
  const origin = request.headers.origin;
  if (origin !== undefined && origin !== 'null') {
    let host: string | undefined;
    try {
      host = new URL(origin).host;
    } catch {
      host = undefined;
    }
    if (host !== request.headers.host) return 'the request came from another site';
  }
  const body = request.body as Record<string, unknown> | undefined;
  const fromBody = typeof body === 'object' && body !== null ? body._csrf : undefined;
  const header = request.headers['x-csrf-token'];
  const given = typeof fromBody === 'string' ? fromBody : typeof header === 'string' ? header : undefined;
  if (given === undefined) return 'the form carried no security token';
  if (!sameSecret(given, expected)) return 'the form is out of date (its security token no longer matches)';
  return undefined;
}
