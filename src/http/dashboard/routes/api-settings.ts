import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { SignedIn } from '../../../app/accounts/index.ts';
import type { Lockcloud } from '../../../app/lockcloud.ts';
import { sessionActor } from '../../../domain/event.ts';
import { SESSION_COOKIE, state } from '../context.ts';
import { refusedForm } from '../errors.ts';
import {
  type Flash,
  type Flashes,
  handleOf,
  redirectAfterChange,
  redirectRefused,
  refusedStatus,
} from '../flash.ts';
import { formRefusal, keyInputOfForm } from '../key-form.ts';
import { form, HIDDEN, sendPage } from '../reply.ts';
import { type ApiSettingsView, apiSettingsPage, deliveryView } from '../views/api-settings-page.ts';

type Extra = Partial<Pick<ApiSettingsView, 'notice' | 'revealed' | 'errors' | 'webhookValues' | 'keyValues'>>;

/** The "Add a key" form's fields: those its refusal names next to them, and those it refills. */
const KEY_FIELDS = ['access', 'scopes', 'locks', 'expires', 'name'];

/** Every value of a repeated form field (checkboxes): the body parser gives one as a string, more as a list. */
function many(request: FastifyRequest, name: string): string[] {
  const value = (request.body as Record<string, unknown> | null | undefined)?.[name];
  if (typeof value === 'string') return [value];
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

/** The key form as sent, for the use case and (space-separated lists) for refilling it after a refusal. */
function keyForm(request: FastifyRequest) {
  const f = form(request);
  const sent = {
    access: f.access,
    scopes: many(request, 'scope'),
    locks: many(request, 'lock'),
    expires: f.expires,
    name: f.name,
  };
  const values = {
    access: f.access ?? 'all',
    scopes: sent.scopes.join(' '),
    locks: sent.locks.join(' '),
    expires: f.expires ?? '',
    name: f.name ?? '',
  };
  return { sent, values };
}

const DELIVERIES_SHOWN = 20;
const PAGE = '/dashboard/api-settings';

/** What the secret's page says once it was shown, or when its link is wrong or old. */
export const SECRET_GONE =
  'This link showed a new secret once and cannot show it again (or it is wrong, or more than 2 minutes old). ' +
  'If you did not copy it: delete that API key and add another, or rotate the webhook secret.';

export function apiSettingsRoutes(app: FastifyInstance, lockcloud: Lockcloud, flashes: Flashes): void {
  const { apiSettings, sessions } = lockcloud.accounts;
  const { webhooks, lockSettings } = lockcloud;
  const me = (request: FastifyRequest): SignedIn => {
    const signedIn = state(request).me;
    if (!signedIn) throw new Error('API Settings route ran without a session');
    return signedIn;
  };

  /** The account's deliveries as the log shows them, its locks by nickname. */
  async function deliveryViews(accountId: string) {
    const [deliveries, { owned }] = await Promise.all([
      webhooks.deliveries(accountId, DELIVERIES_SHOWN),
      lockSettings.overview(accountId),
    ]);
    const nicknames = new Map(owned.map((lock) => [lock.deviceId, lock.nickname]));
    return deliveries.map((d) => deliveryView(d, nicknames));
  }

  async function render(request: FastifyRequest, reply: FastifyReply, extra: Extra = {}, status = 200) {
    // Re-read: a confirm or a change in this request may have moved what the session allows.
    const fresh = (await sessions.resolve(request.cookies[SESSION_COOKIE])) ?? me(request);
    const accountId = fresh.account.id;
    const { owned } = await lockSettings.overview(accountId);
    const view: ApiSettingsView = {
      unlocked: fresh.apiUnlocked,
      unlockedUntil: fresh.session.apiUnlockedUntil,
      keys: await apiSettings.listKeys(fresh),
      locks: owned.map((l) => ({ deviceId: l.deviceId, nickname: l.nickname })),
      now: lockcloud.now(),
      webhook: await webhooks.get(accountId),
      deliveries: fresh.apiUnlocked ? await deliveryViews(accountId) : [],
      ...extra,
    };
    const ctx = { csrf: state(request).csrf, email: fresh.account.email };
    return sendPage(reply, apiSettingsPage(ctx, view), status);
  }

  /**
   * Runs one change, then redirects (303) to the page, which a reload does not send again; a new
   * secret goes through a one-time handle (/api-settings/secret/:handle). A refusal changed nothing
   * and redirects too: the page shows it once, next to its fields when it names them, with the
   * refusal's status; a reload shows the page and spends no second code attempt.
   */
  function post(path: string, run: (request: FastifyRequest, who: SignedIn) => Promise<Flash>) {
    app.post(path, HIDDEN, async (request, reply) => {
      try {
        return redirectAfterChange(flashes, request, reply, PAGE, await run(request, me(request)));
      } catch (error) {
        const f = form(request);
        // The code field is on the page only while locked; the webhook and key fields only once unlocked.
        const shown = me(request).apiUnlocked ? ['url', 'method', ...KEY_FIELDS] : ['code'];
        const refused = refusedForm(error, shown);
        // The webhook and key forms are refilled as sent; the code never is.
        const values = path.endsWith('/webhook')
          ? { url: f.url ?? '', method: f.method ?? 'POST' }
          : path.endsWith('/keys')
            ? keyForm(request).values
            : undefined;
        return redirectRefused(flashes, request, reply, PAGE, { ...refused, ...(values ? { values } : {}) });
      }
    });
  }

  app.get('/api-settings', HIDDEN, (request, reply) => {
    const flash = flashes.take(state(request).csrf, handleOf(request));
    const { refused } = flash ?? {};
    if (refused === undefined) return render(request, reply, flash?.notice ? { notice: flash.notice } : {});
    const { url, method, access } = refused.values ?? {};
    const extra: Extra = {
      notice: refused.notice,
      ...(refused.errors ? { errors: refused.errors } : {}),
      ...(url === undefined ? {} : { webhookValues: { url, method: method ?? 'POST' } }),
      ...(access === undefined || refused.values === undefined ? {} : { keyValues: refused.values }),
    };
    return render(request, reply, extra, refusedStatus(reply, refused));
  });

  // The one view of a new secret: a reload, another browser, a wrong or old handle see 410 and why.
  app.get('/api-settings/secret/:handle', HIDDEN, (request, reply) => {
    const handle = (request.params as { handle: string }).handle;
    const flash = flashes.take(state(request).csrf, handle);
    if (flash?.revealed === undefined)
      return render(request, reply, { notice: { kind: 'error', text: SECRET_GONE } }, 410);
    return render(request, reply, {
      revealed: flash.revealed,
      ...(flash.notice ? { notice: flash.notice } : {}),
    });
  });

  // The delivery log, for the page to refresh without a reload (assets/deliveries.js).
  app.get('/api/deliveries', HIDDEN, async (request) => {
    const who = me(request);
    apiSettings.requireUnlocked(who);
    return { deliveries: await deliveryViews(who.account.id) };
  });

  post('/api-settings/code', async (_request, who) => {
    await apiSettings.requestCode(who);
    return { notice: { kind: 'success', text: `We sent a 6-digit code to ${who.account.email}.` } };
  });

  post('/api-settings/confirm', async (request, who) => {
    await apiSettings.confirmCode(who, form(request).code, request.ip);
    return { notice: { kind: 'success', text: 'Confirmed. You can now add keys and change the webhook.' } };
  });

  post('/api-settings/lock', async (_request, who) => {
    await sessions.lockApiSettings(who.session);
    return { notice: { kind: 'info', text: 'API Settings are locked again.' } };
  });

  post('/api-settings/keys', async (request, who) => {
    // Locked API Settings are refused before the form is read.
    apiSettings.requireUnlocked(who);
    let key: string;
    try {
      // A date in the past is refused beside the form's other errors, on the clock expiries are held to.
      const input = keyInputOfForm(keyForm(request).sent, lockcloud.auth.now());
      ({ key } = await apiSettings.createKey(who, input));
    } catch (error) {
      throw formRefusal(error);
    }
    return {
      revealed: { kind: 'key', value: key },
      notice: { kind: 'success', text: 'A new key is ready.' },
    };
  });

  post('/api-settings/keys/delete', async (request, who) => {
    await apiSettings.deleteKey(who, form(request).key);
    return { notice: { kind: 'success', text: 'The key is deleted: requests with it now answer 401.' } };
  });

  post('/api-settings/webhook', async (request, who) => {
    apiSettings.requireUnlocked(who);
    const f = form(request);
    const { secret } = await webhooks.set(
      who.account.id,
      { url: f.url, method: f.method },
      sessionActor(who.account.id),
    );
    return {
      notice: { kind: 'success', text: 'The webhook is saved.' },
      ...(secret === undefined ? {} : { revealed: { kind: 'webhook-secret' as const, value: secret } }),
    };
  });

  post('/api-settings/webhook/rotate', async (_request, who) => {
    apiSettings.requireUnlocked(who);
    const secret = await webhooks.rotateSecret(who.account.id);
    return {
      revealed: { kind: 'webhook-secret', value: secret },
      notice: {
        kind: 'success',
        text: 'A new signing secret is made; the old one keeps signing for 24 hours.',
      },
    };
  });

  post('/api-settings/webhook/test', async (_request, who) => {
    apiSettings.requireUnlocked(who);
    await webhooks.sendTest(who.account.id);
    return { notice: { kind: 'success', text: 'A test message is on its way; see the delivery log.' } };
  });

  post('/api-settings/webhook/remove', async (_request, who) => {
    apiSettings.requireUnlocked(who);
    await webhooks.remove(who.account.id, sessionActor(who.account.id));
    return { notice: { kind: 'success', text: 'The webhook is removed.' } };
  });
}
