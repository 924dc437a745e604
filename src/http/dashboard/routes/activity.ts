/**
 * The activity pages: a lock's events and the account's log, read through the EventLog use case as
 * the signed-in account (a guest sees what docs/events.md lets it), newest first, a page at a time.
 * A bad cursor or type is the log's own refusal: the 400 page; a lock the account cannot see, 404.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { SignedIn } from '../../../app/accounts/index.ts';
import type { Lockcloud } from '../../../app/lockcloud.ts';
import { state } from '../context.ts';
import { HIDDEN, query, sendPage } from '../reply.ts';
import { accountActivityPage, lockActivityPage } from '../views/activity-page.ts';

/** Rows on one page: a screenful. */
export const ACTIVITY_PAGE_SIZE = 25;

export function activityRoutes(app: FastifyInstance, lockcloud: Lockcloud): void {
  const { eventLog, locks, lockSettings } = lockcloud;
  const me = (request: FastifyRequest): SignedIn => {
    const signedIn = state(request).me;
    if (!signedIn) throw new Error('activity route ran without a session');
    return signedIn;
  };
  const ctxOf = (request: FastifyRequest) => ({
    csrf: state(request).csrf,
    email: me(request).account.email,
  });

  app.get('/locks/:id/activity', HIDDEN, async (request, reply) => {
    const accountId = me(request).account.id;
    const id = String((request.params as { id: string }).id).toLowerCase();
    const lock = await locks.getVisible(accountId, id);
    const page = await eventLog.list(accountId, {
      deviceId: lock.deviceId,
      order: 'newest-first',
      limit: ACTIVITY_PAGE_SIZE,
      cursor: query(request).cursor,
    });
    return sendPage(reply, lockActivityPage(ctxOf(request), lock, page));
  });

  app.get('/account/activity', HIDDEN, async (request, reply) => {
    const accountId = me(request).account.id;
    const q = query(request);
    const type = q.type === undefined || q.type === '' ? undefined : q.type;
    const page = await eventLog.list(accountId, {
      type,
      order: 'newest-first',
      limit: ACTIVITY_PAGE_SIZE,
      cursor: q.cursor,
    });
    // Locks by name for the lock column; a lock no longer visible is shown by its id.
    const { owned, shared } = await lockSettings.overview(accountId);
    const lockNames = new Map([...owned, ...shared].map((l) => [l.deviceId, l.nickname]));
    return sendPage(reply, accountActivityPage(ctxOf(request), { ...page, type: type ?? '', lockNames }));
  });
}
