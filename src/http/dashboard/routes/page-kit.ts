/**
 * What the locks page's form routes share (routes/locks.ts, routes/grants.ts): the signed-in account,
 * the lock of the path, and Post/Redirect/Get to the page with the outcome or the refusal.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { SignedIn } from '../../../app/accounts/index.ts';
import { isDomainError } from '../../../domain/errors.ts';
import { state } from '../context.ts';
import { refusalOf } from '../errors.ts';
import { type Flashes, type Refused, redirectRefused, redirectWithNotice } from '../flash.ts';
import type { Notice } from '../views/layout.ts';

export const LOCKS_PAGE = '/dashboard/locks';

export function me(request: FastifyRequest): SignedIn {
  const signedIn = state(request).me;
  // The plugin's preHandler sends anonymous requests to the login page before any of these run.
  if (!signedIn) throw new Error('lock route ran without a session');
  return signedIn;
}

export const deviceId = (request: FastifyRequest): string =>
  String((request.params as { id: string }).id).toLowerCase();

/** The page's answer to a domain refusal: its status and wait, its message on top. */
export function onTop(error: unknown): Refused {
  if (!isDomainError(error)) throw error;
  const r = refusalOf(error);
  return {
    status: r.status,
    notice: { kind: 'error', text: r.message },
    ...(r.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: r.retryAfterSeconds }),
  };
}

export function pageKit(flashes: Flashes) {
  return {
    /** The page again after a change (303): a reload shows it, never sends the form again. */
    done: (request: FastifyRequest, reply: FastifyReply, notice: Notice) =>
      redirectWithNotice(flashes, request, reply, LOCKS_PAGE, notice),
    /**
     * A refusal changed nothing: 303 to the page, which shows it once under a one-time handle with
     * the refusal's status, so a reload sends no second command or invitation.
     */
    refuse: (request: FastifyRequest, reply: FastifyReply, refused: Refused) =>
      redirectRefused(flashes, request, reply, LOCKS_PAGE, refused),
  };
}
