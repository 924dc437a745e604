import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { LockDetail } from '../../../app/lock-details.ts';
import type { Lockcloud } from '../../../app/lockcloud.ts';
import { DomainError, isDomainError } from '../../../domain/errors.ts';
import { sessionActor } from '../../../domain/event.ts';
import { isLockCommand, type Lock } from '../../../domain/lock.ts';
import type { Task } from '../../../domain/task.ts';
import { state } from '../context.ts';
import { refusalOf, refusedForm, taskFailureMessage } from '../errors.ts';
import { type Flashes, handleOf, refusedStatus } from '../flash.ts';
import { grantFormsOf } from '../grant-form.ts';
import { form, HIDDEN, query, sendPage } from '../reply.ts';
import type { Notice } from '../views/layout.ts';
import { autoLockWords } from '../views/lock-health.ts';
import { type LocksView, locksPage, SETTINGS_FIELDS, type SettingsField } from '../views/locks-page.ts';
import { grantsOfPage } from './grants.ts';
import { deviceId, me, onTop, pageKit } from './page-kit.ts';

const DONE: Record<string, string> = { lock: 'Locked', unlock: 'Unlocked', sync: 'Synced' };
/** Shown after a simulated lock was added (the redirect's `?ok=lock-added`). */
const LOCK_ADDED: Notice = {
  kind: 'success',
  text: 'A simulated lock is added: it is paired with your simulated access point and takes commands now.',
};
/** The settings form's errors and values: under this prefix, the device id, ':' and the field. */
const SETTINGS = 'settings:';
const RUNNING: Record<string, string> = { lock: 'Locking…', unlock: 'Unlocking…', sync: 'Syncing…' };

/** A task as the page shows it: its state and one readable sentence. */
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

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

/**
 * A guest sees what its card shows, as v1 shows guests state and battery, and the lock's health as
 * /ext shows a guest (docs/locks.md): not the owner's settings or devices, nor whether the owner's
 * app is open (that would tell the guest when the owner is at the door).
 */
const guestLockJson = (lock: Lock) => ({
  device_id: lock.deviceId,
  nickname: lock.nickname,
  locked: lock.locked,
  battery: lock.battery,
  /** Against the lock's own thresholds, with hysteresis (domain/health.ts). */
  battery_state: lock.batteryState,
  /** Percent points a day (negative: draining); null until a day of readings. */
  battery_per_day: lock.batteryPerDay,
  responsive: lock.responsive,
  jammed: lock.jammed,
  door: lock.door,
  last_seen_at: iso(lock.lastSeenAt),
  firmware: lock.firmware,
});

/** The owner's view: the guest's, the lock's settings and the access point it is paired with. */
const lockJson = ({ lock, accessPoint: ap }: LockDetail) => ({
  ...guestLockJson(lock),
  integration: lock.integration,
  paired: lock.accessPoint,
  app_open: lock.appOpen,
  auto_lock_seconds: lock.autoLockSeconds,
  battery_thresholds: { low: lock.batteryLow, critical: lock.batteryCritical },
  access_point:
    ap === null
      ? null
      : {
          id: ap.id,
          name: ap.name,
          online: ap.online,
          last_seen_at: iso(ap.lastSeenAt),
          firmware: ap.firmware,
          signal: ap.signal,
          protocol_version: ap.protocolVersion,
        },
});

/**
 * A settings message as it reads next to its field, whose label names it: without the API's field
 * name ("battery_low: must be…"), the thresholds in words.
 */
export function nextToField(message: string): string {
  const text = message.replace(/^(auto_lock_seconds|battery_low|battery_critical): /i, '');
  const order = /^battery_critical \((\d+)\) must be lower than battery_low \((\d+)\)/.exec(text);
  if (order) return `The critical level (${order[1]} %) must be under the low one (${order[2]} %).`;
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/**
 * A number field as the form sent it: digits are a number; anything else is passed on as it is, for
 * checkLockSettings to refuse naming the field ("must be an integer from 0 to 3600").
 */
function formNumber(value: string | undefined): unknown {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  return /^\d{1,9}$/.test(trimmed) ? Number(trimmed) : trimmed;
}

export function lockRoutes(
  app: FastifyInstance,
  lockcloud: Lockcloud,
  sandbox: boolean,
  flashes: Flashes,
): void {
  const { lockSettings, lockDetails, commands, guestCommands } = lockcloud;
  const { done, refuse } = pageKit(flashes);
  /**
   * A command from the dashboard, through the session: the owner's own lock, or a guest's through
   * its grant (the grant as actor; refused outside its window or schedule, or for a view grant).
   */
  const send = (request: FastifyRequest, command: Parameters<typeof commands.send>[2]) => {
    const { id } = me(request).account;
    return guestCommands.send(id, deviceId(request), command, sessionActor(id), undefined, 'dashboard');
  };

  async function renderPage(
    request: FastifyRequest,
    reply: FastifyReply,
    status = 200,
    notice?: Notice,
    grantForms?: LocksView['grantForms'],
    added?: LocksView['added'],
    settingsRefused?: LocksView['settingsRefused'],
  ) {
    const { account } = me(request);
    const [overview, details] = await Promise.all([
      lockSettings.overview(account.id),
      lockDetails.list(account.id),
    ]);
    const grants = await grantsOfPage(lockcloud, account.id, overview.owned);
    const ctx = { csrf: state(request).csrf, email: account.email };
    const view: LocksView = {
      ...overview,
      now: lockcloud.now(),
      accessPoints: new Map(details.map((d) => [d.lock.deviceId, d.accessPoint])),
      canDriveApp: sandbox,
      canAddSimulated: sandbox,
      notice,
      grants,
      grantForms,
      added,
      settingsRefused,
    };
    return sendPage(reply, locksPage(ctx, view), status);
  }

  /** Runs a settings change, then redirects to the page with the outcome or the refusal. */
  async function change(request: FastifyRequest, reply: FastifyReply, run: () => Promise<string>) {
    try {
      return done(request, reply, { kind: 'success', text: await run() });
    } catch (error) {
      return refuse(request, reply, onTop(error));
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
    const nickname = refused.values?.nickname;
    const added =
      nickname === undefined && errors.nickname === undefined
        ? undefined
        : { nickname, ...(errors.nickname === undefined ? {} : { error: errors.nickname }) };
    const status = refusedStatus(reply, refused);
    return renderPage(
      request,
      reply,
      status,
      refused.notice,
      grantFormsOf(errors, refused.values ?? {}),
      added,
      settingsRefusedOf(errors, refused.values ?? {}),
    );
  });

  // Without JavaScript the form waits for the task to end (as v1 does), then redirects to the page,
  // which says how it ended: a reload shows the page again and sends no second command. A refused
  // command (the lock's budget, a busy or low lock) redirects as well, its wait in Retry-After.
  app.post('/locks/:id/command', HIDDEN, async (request, reply) => {
    const command = form(request).command;
    try {
      if (!isLockCommand(command))
        throw new DomainError('INVALID_INPUT', 'command: must be lock, unlock or sync');
      const task = await send(request, command);
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

  // The owner's auto-lock and battery thresholds (docs/locks.md, PATCH /ext/locks/{device_id} does
  // the same): a refused value is shown next to its field; a guest's or another account's lock is
  // refused on top as the other lock forms are (403, 404). A field the form did not send (auto-lock
  // on a lock that cannot run it: its input is disabled) is left as it is.
  app.post('/locks/:id/settings', HIDDEN, async (request, reply) => {
    const body = form(request);
    const id = deviceId(request);
    try {
      const { lock } = await lockDetails.change(
        me(request).account.id,
        id,
        {
          autoLockSeconds: formNumber(body.auto_lock_seconds),
          batteryLow: formNumber(body.battery_low),
          batteryCritical: formNumber(body.battery_critical),
        },
        sessionActor(me(request).account.id),
      );
      return done(request, reply, {
        kind: 'success',
        text: `Settings saved for ${lock.nickname}: auto-lock ${autoLockWords(lock.autoLockSeconds)}, battery low under ${lock.batteryLow} %, critical under ${lock.batteryCritical} %.`,
      });
    } catch (error) {
      const key = (name: string) => `${SETTINGS}${id}:${name}`;
      const form = refusedForm(
        error,
        SETTINGS_FIELDS,
        Object.fromEntries(SETTINGS_FIELDS.map((f) => [f, key(f)])),
      );
      const refused =
        form.errors === undefined
          ? form
          : {
              ...form,
              errors: Object.fromEntries(
                Object.entries(form.errors).map(([k, text]) => [k, nextToField(text)]),
              ),
            };
      const values: Record<string, string> = {};
      for (const name of SETTINGS_FIELDS) {
        const typed = body[name];
        if (typed !== undefined) values[key(name)] = typed;
      }
      return refuse(request, reply, refused.errors === undefined ? refused : { ...refused, values });
    }
  });

  app.get('/api/locks', HIDDEN, async (request) => {
    const details = await lockDetails.list(me(request).account.id);
    return {
      /** The server's clock, for "last seen 3 min ago" (the sandbox's may run ahead of the browser's). */
      now: new Date(lockcloud.now()).toISOString(),
      owned: details.filter((d) => d.role === 'owner').map(lockJson),
      shared: details.filter((d) => d.role === 'guest').map((d) => guestLockJson(d.lock)),
    };
  });

  app.post('/api/locks/:id/commands', HIDDEN, async (request, reply) => {
    const command = (request.body as { command?: unknown } | null)?.command;
    if (!isLockCommand(command))
      return reply.code(400).send({ error: 'BAD_PARAMS', message: 'command: must be lock, unlock or sync' });
    return reply.code(202).send(taskView(await send(request, command)));
  });

  app.get('/api/tasks/:id', HIDDEN, async (request) => {
    const id = String((request.params as { id: string }).id);
    // The owner's tasks, and a guest's own through its grant.
    return taskView(await guestCommands.result(me(request).account.id, id));
  });
}

/** The settings forms' refusal, by device id, out of the flash's errors and values. */
function settingsRefusedOf(
  errors: Readonly<Record<string, string>>,
  values: Readonly<Record<string, string>>,
): LocksView['settingsRefused'] {
  const byLock: Record<
    string,
    { errors: Partial<Record<SettingsField, string>>; values: Partial<Record<SettingsField, string>> }
  > = {};
  const take = (record: Readonly<Record<string, string>>, part: 'errors' | 'values') => {
    for (const [name, text] of Object.entries(record)) {
      if (!name.startsWith(SETTINGS)) continue;
      const [id = '', field = ''] = name.slice(SETTINGS.length).split(':');
      const known = SETTINGS_FIELDS.find((f) => f === field);
      if (known === undefined) continue;
      byLock[id] ??= { errors: {}, values: {} };
      byLock[id][part][known] = text;
    }
  };
  take(errors, 'errors');
  take(values, 'values');
  return Object.keys(byLock).length === 0 ? undefined : byLock;
}
