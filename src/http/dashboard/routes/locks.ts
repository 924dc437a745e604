import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { SignedIn } from '../../../app/accounts/index.ts';
import type { Lockcloud } from '../../../app/lockcloud.ts';
import { DomainError, isDomainError } from '../../../domain/errors.ts';
import { type Origin, sessionActor } from '../../../domain/event.ts';
import { isLockCommand, type Lock } from '../../../domain/lock.ts';
import type { Task } from '../../../domain/task.ts';
import { state } from '../context.ts';
import { refusalOf, taskFailureMessage } from '../errors.ts';
import {
  type Flashes,
  handleOf,
  type Refused,
  redirectRefused,
  redirectWithNotice,
  refusedStatus,
} from '../flash.ts';
import { form, HIDDEN, query, sendPage } from '../reply.ts';
import type { Notice } from '../views/layout.ts';
import { type LocksView, locksPage } from '../views/locks-page.ts';

const DONE: Record<string, string> = { lock: 'Locked', unlock: 'Unlocked', sync: 'Synced' };
/** Shown after a simulated lock was added (the redirect's `?ok=lock-added`). */
const LOCK_ADDED: Notice = {
  kind: 'success',
  text: 'A simulated lock is added: it is paired with your simulated access point and takes commands now.',
};
/** A share form's error is kept under this prefix and the lock's device id (one form per lock). */
const SHARE = 'share:';
const RUNNING: Record<string, string> = { lock: 'Locking…', unlock: 'Unlocking…', sync: 'Syncing…' };

/** A task as the page shows it: its state and one readable sentence. */
/** A command from the dashboard: the signed-in account, through its session. */
const dashboardOrigin = (who: SignedIn): Origin => ({
  actor: sessionActor(who.account.id),
  method: 'dashboard',
});

export function taskView(task: Task) {
  if (task.status === 'processing')
    return { task_id: task.id, status: 'processing', message: RUNNING[task.command] ?? 'Working…' };
  const { outcome } = task;
  return outcome.successful
    ? {
        task_id: task.id,
        status: 'terminated',
        successful: true,
        message: `${DONE[task.command] ?? 'Done'}.`,
      }
    : {
        task_id: task.id,
        status: 'terminated',
        successful: false,
        error: outcome.error,
        message: taskFailureMessage(outcome.error),
      };
}

/**
 * A guest sees what its card shows, as v1 shows guests state and battery: not the owner's settings,
 * nor whether the owner's app is open (that would tell the guest when the owner is at the door).
 */
const guestLockJson = (lock: Lock, lowBatteryThreshold: number) => ({
  device_id: lock.deviceId,
  nickname: lock.nickname,
  locked: lock.locked,
  battery: lock.battery,
  battery_low: lock.battery < lowBatteryThreshold,
  responsive: lock.responsive,
});

/** The owner's view: the guest's, and the lock's settings. */
const lockJson = (lock: Lock, lowBatteryThreshold: number) => ({
  ...guestLockJson(lock, lowBatteryThreshold),
  integration: lock.integration,
  access_point: lock.accessPoint,
  app_open: lock.appOpen,
});

export function lockRoutes(
  app: FastifyInstance,
  lockcloud: Lockcloud,
  sandbox: boolean,
  flashes: Flashes,
): void {
  const { lockSettings, commands } = lockcloud;
  const threshold = commands.lowBatteryThreshold;
  const me = (request: FastifyRequest): SignedIn => {
    const signedIn = state(request).me;
    // The plugin's preHandler sends anonymous requests to the login page before any of these run.
    if (!signedIn) throw new Error('lock route ran without a session');
    return signedIn;
  };
  const deviceId = (request: FastifyRequest) => String((request.params as { id: string }).id).toLowerCase();

  async function renderPage(
    request: FastifyRequest,
    reply: FastifyReply,
    status = 200,
    notice?: Notice,
    shareErrors?: Record<string, string>,
    added?: LocksView['added'],
  ) {
    const { account } = me(request);
    const overview = await lockSettings.overview(account.id);
    const ctx = { csrf: state(request).csrf, email: account.email };
    const view: LocksView = {
      ...overview,
      canDriveApp: sandbox,
      canAddSimulated: sandbox,
      lowBatteryThreshold: threshold,
      notice,
      shareErrors,
      added,
    };
    return sendPage(reply, locksPage(ctx, view), status);
  }

  /** The page again after a change (303): a reload shows it, never sends the form again. */
  const done = (request: FastifyRequest, reply: FastifyReply, notice: Notice) =>
    redirectWithNotice(flashes, request, reply, '/dashboard/locks', notice);

  /**
   * A refusal changed nothing: 303 to the page, which shows it once under a one-time handle with the
   * refusal's status, so a reload sends no second command or share.
   */
  const refuse = (request: FastifyRequest, reply: FastifyReply, refused: Refused) =>
    redirectRefused(flashes, request, reply, '/dashboard/locks', refused);

  /** The page's answer to a domain refusal: its status and wait, its message on top. */
  const onTop = (error: unknown): Refused => {
    if (!isDomainError(error)) throw error;
    const r = refusalOf(error);
    return {
      status: r.status,
      notice: { kind: 'error', text: r.message },
      ...(r.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: r.retryAfterSeconds }),
    };
  };

  /**
   * Runs a settings change, then redirects to the page with the outcome; a refusal redirects too,
   * shown next to the share field when it is that form's.
   */
  async function change(
    request: FastifyRequest,
    reply: FastifyReply,
    run: () => Promise<string>,
    shareField = false,
  ) {
    try {
      const text = await run();
      return done(request, reply, { kind: 'success', text });
    } catch (error) {
      const refused = onTop(error);
      if (shareField && refused.status === 400)
        return refuse(request, reply, {
          status: 400,
          notice: { kind: 'error', text: 'Check the form.' },
          errors: { [`${SHARE}${deviceId(request)}`]: refused.notice.text },
        });
      return refuse(request, reply, refused);
    }
  }

  app.get('/locks', HIDDEN, (request, reply) => {
    const q = query(request);
    const flash = flashes.take(state(request).csrf, handleOf(request));
    const { refused } = flash ?? {};
    if (refused === undefined)
      return renderPage(
        request,
        reply,
        200,
        flash?.notice ?? (q.ok === 'lock-added' ? LOCK_ADDED : undefined),
      );
    const errors = refused.errors ?? {};
    const shareErrors = Object.fromEntries(
      Object.entries(errors)
        .filter(([name]) => name.startsWith(SHARE))
        .map(([name, text]) => [name.slice(SHARE.length), text]),
    );
    const nickname = refused.values?.nickname;
    const added =
      nickname === undefined && errors.nickname === undefined
        ? undefined
        : { nickname, ...(errors.nickname === undefined ? {} : { error: errors.nickname }) };
    const status = refusedStatus(reply, refused);
    return renderPage(request, reply, status, refused.notice, shareErrors, added);
  });

  // Without JavaScript the form waits for the task to end (as v1 does), then redirects to the page,
  // which says how it ended: a reload shows the page again and sends no second command. A refused
  // command (the lock's budget, a busy or low lock) redirects as well, its wait in Retry-After.
  app.post('/locks/:id/command', HIDDEN, async (request, reply) => {
    const command = form(request).command;
    try {
      if (!isLockCommand(command))
        throw new DomainError('INVALID_INPUT', 'command: must be lock, unlock or sync');
      const task = await commands.send(
        me(request).account.id,
        deviceId(request),
        command,
        dashboardOrigin(me(request)),
      );
      const ended = taskView(await commands.waitForEnd(task));
      const kind = ended.successful === true ? ('success' as const) : ('error' as const);
      return done(request, reply, { kind, text: ended.message });
    } catch (error) {
      return refuse(request, reply, onTop(error));
    }
  });

  app.post('/locks/:id/integration', HIDDEN, (request, reply) =>
    change(request, reply, async () => {
      const on = form(request).enabled === 'on';
      const lock = await lockSettings.setIntegration(me(request).account.id, deviceId(request), on);
      return `Cloud integration is ${on ? 'on' : 'off'} for ${lock.nickname}.`;
    }),
  );

  // Only the sandbox can play the owner's phone: in production the app's state comes from the device
  // and the page only shows it (the route does not exist).
  if (sandbox) {
    // A simulated lock for the signed-in account (docs/sandbox.md, "Adding a lock"); then back to the
    // page, which a reload does not send again.
    app.post('/locks/simulated', HIDDEN, async (request, reply) => {
      const nickname = form(request).nickname;
      try {
        await lockcloud.sandbox.addLock(me(request).account.email, { nickname });
        return reply.redirect('/dashboard/locks?ok=lock-added', 303);
      } catch (error) {
        if (!isDomainError(error)) throw error;
        const r = refusalOf(error);
        const onField = r.field === 'nickname';
        return refuse(request, reply, {
          ...onTop(error),
          ...(onField
            ? { notice: { kind: 'error', text: 'Check the form.' }, errors: { nickname: r.message } }
            : {}),
          ...(nickname === undefined ? {} : { values: { nickname } }),
        });
      }
    });

    app.post('/locks/:id/app', HIDDEN, (request, reply) =>
      change(request, reply, async () => {
        const lock = await lockSettings.owned(me(request).account.id, deviceId(request));
        const open = form(request).open === 'yes';
        await lockcloud.sandbox.changeLock(lock.deviceId, { appOpen: open });
        return `The mobile app is ${open ? 'open: it holds' : 'closed: it released'} ${lock.nickname}.`;
      }),
    );
  }

  app.post('/locks/:id/share', HIDDEN, (request, reply) =>
    change(
      request,
      reply,
      async () => {
        const email = await lockSettings.share(
          me(request).account.id,
          deviceId(request),
          form(request).email,
          request.ip,
        );
        return `Shared with ${email}.`;
      },
      true,
    ),
  );

  app.post('/locks/:id/unshare', HIDDEN, (request, reply) =>
    change(request, reply, async () => {
      await lockSettings.unshare(me(request).account.id, deviceId(request), form(request).account);
      return 'The share is removed.';
    }),
  );

  app.get('/api/locks', HIDDEN, async (request) => {
    const { owned, shared } = await lockSettings.overview(me(request).account.id);
    return {
      owned: owned.map((lock) => lockJson(lock, threshold)),
      shared: shared.map((lock) => guestLockJson(lock, threshold)),
    };
  });

  app.post('/api/locks/:id/commands', HIDDEN, async (request, reply) => {
    const command = (request.body as { command?: unknown } | null)?.command;
    if (!isLockCommand(command))
      return reply.code(400).send({ error: 'BAD_PARAMS', message: 'command: must be lock, unlock or sync' });
    const task = await commands.send(
      me(request).account.id,
      deviceId(request),
      command,
      dashboardOrigin(me(request)),
    );
    return reply.code(202).send(taskView(task));
  });

  app.get('/api/tasks/:id', HIDDEN, async (request) => {
    const id = String((request.params as { id: string }).id);
    return taskView(await commands.result(me(request).account.id, id));
  });
}
