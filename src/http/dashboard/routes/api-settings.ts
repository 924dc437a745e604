import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { SignedIn } from '../../../app/accounts/index.ts';
import type { Lockcloud } from '../../../app/lockcloud.ts';
import { isDomainError } from '../../../domain/errors.ts';
import { SESSION_COOKIE, state } from '../context.ts';
import { refusalOf } from '../errors.ts';
import { form, HIDDEN, sendPage } from '../reply.ts';
import { type ApiSettingsView, apiSettingsPage } from '../views/api-settings-page.ts';

type Extra = Partial<Pick<ApiSettingsView, 'notice' | 'revealed' | 'errors' | 'webhookValues'>>;

const DELIVERIES_SHOWN = 20;

export function apiSettingsRoutes(app: FastifyInstance, lockcloud: Lockcloud): void {
  const { apiSettings, sessions } = lockcloud.accounts;
  const { webhooks } = lockcloud;
  const me = (request: FastifyRequest): SignedIn => {
    const signedIn = state(request).me;
    if (!signedIn) throw new Error('API Settings route ran without a session');
    return signedIn;
  };

  async function render(request: FastifyRequest, reply: FastifyReply, extra: Extra = {}, status = 200) {
    // Re-read: a confirm or a change in this request may have moved what the session allows.
    const fresh = (await sessions.resolve(request.cookies[SESSION_COOKIE])) ?? me(request);
    const accountId = fresh.account.id;
    const view: ApiSettingsView = {
      unlocked: fresh.apiUnlocked,
      unlockedUntil: fresh.session.apiUnlockedUntil,
      keys: await apiSettings.listKeys(fresh),
      webhook: await webhooks.get(accountId),
      deliveries: fresh.apiUnlocked ? await webhooks.deliveries(accountId, DELIVERIES_SHOWN) : [],
      ...extra,
    };
    const ctx = { csrf: state(request).csrf, email: fresh.account.email };
    return sendPage(reply, apiSettingsPage(ctx, view), status);
  }

  /** Runs one change; a refusal is shown on the page, next to its field when it names one. */
  function post(path: string, run: (request: FastifyRequest, who: SignedIn) => Promise<Extra>, status = 200) {
    app.post(path, HIDDEN, async (request, reply) => {
      try {
        return await render(request, reply, await run(request, me(request)), status);
      } catch (error) {
        if (!isDomainError(error)) throw error;
        const r = refusalOf(error);
        if (r.retryAfterSeconds !== undefined) reply.header('retry-after', String(r.retryAfterSeconds));
        const f = form(request);
        const webhookValues = path.endsWith('/webhook')
          ? { url: f.url ?? '', method: f.method ?? 'POST' }
          : undefined;
        // The code field is on the page only while locked; the webhook fields only once unlocked.
        const shown = me(request).apiUnlocked ? ['url', 'method'] : ['code'];
        const onField = r.field !== undefined && shown.includes(r.field);
        const extra: Extra = onField
          ? {
              errors: { [r.field as string]: r.message },
              notice: { kind: 'error', text: 'Check the form.' },
              webhookValues,
            }
          : { notice: { kind: 'error', text: r.message }, webhookValues };
        return render(request, reply, extra, r.status);
      }
    });
  }

  app.get('/api-settings', HIDDEN, (request, reply) => render(request, reply));

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

  post(
    '/api-settings/keys',
    async (_request, who) => {
      const { key } = await apiSettings.createKey(who);
      return {
        revealed: { kind: 'key', value: key },
        notice: { kind: 'success', text: 'A new key is ready.' },
      };
    },
    201,
  );

  post('/api-settings/keys/delete', async (request, who) => {
    await apiSettings.deleteKey(who, form(request).key);
    return { notice: { kind: 'success', text: 'The key is deleted: requests with it now answer 401.' } };
  });

  post('/api-settings/webhook', async (request, who) => {
    apiSettings.requireUnlocked(who);
    const f = form(request);
    const { secret } = await webhooks.set(who.account.id, { url: f.url, method: f.method });
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
    await webhooks.remove(who.account.id);
    return { notice: { kind: 'success', text: 'The webhook is removed.' } };
  });
}
