/**
 * The dashboard's Apps section (issue 24, points 1 and 3): the apps the account authorized, each
 * revoked at once; and the apps the account registers as a developer, with their client ids, a
 * confidential app's secret shown once (as a new API key is), edits, new secrets and deletion.
 * Every change is Post/Redirect/Get through flash.ts, as API Settings are.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { SignedIn } from '../../../app/accounts/index.ts';
import type { Lockcloud } from '../../../app/lockcloud.ts';
import { sessionActor } from '../../../domain/event.ts';
import type { AppInput } from '../../../domain/oauth-app.ts';
import { state } from '../context.ts';
import { refusedForm } from '../errors.ts';
import {
  type Flash,
  type Flashes,
  handleOf,
  type Refused,
  redirectAfterChange,
  redirectRefused,
  refusedStatus,
} from '../flash.ts';
import { form, HIDDEN, sendPage } from '../reply.ts';
import { type AppsView, appsPage, REGISTER_FORM } from '../views/apps-page.ts';

type Extra = Partial<Pick<AppsView, 'notice' | 'revealed' | 'errors' | 'values'>>;

const PAGE = '/dashboard/apps';

/** The fields of the register and edit forms, which a refusal names next to them. */
const APP_FIELDS = ['name', 'redirect_uris', 'kind'];

/** What the secret's page says once it was shown, or when its link is wrong or old. */
export const CLIENT_SECRET_GONE =
  'This link showed a new client secret once and cannot show it again (or it is wrong, or more than 2 minutes old). ' +
  'If you did not copy it: make a new secret for that app under Your apps.';

/** The redirect URIs as the textarea sends them: one a line, blank lines and edge spaces dropped. */
export function redirectUrisOf(text: string | undefined): string[] {
  return (text ?? '')
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '');
}

/** The form as the use case reads it (the API's names). */
function appInput(request: FastifyRequest): AppInput {
  const f = form(request);
  return { name: f.name, redirect_uris: redirectUrisOf(f.redirect_uris), kind: f.kind };
}

/**
 * A field's message as the form shows it beside the field: the domain names the field first
 * ("Redirect_uris: ..."), which the label already says.
 */
function besideField(refused: Refused): Refused {
  if (refused.errors === undefined) return refused;
  const errors = Object.fromEntries(
    Object.entries(refused.errors).map(([name, text]) => {
      const said = text.replace(/^[A-Za-z_]+: /, '');
      return [name, said.charAt(0).toUpperCase() + said.slice(1)];
    }),
  );
  return { ...refused, errors };
}

export function appRoutes(app: FastifyInstance, lockcloud: Lockcloud, flashes: Flashes): void {
  const { oauthApps, oauthConsents, lockSettings } = lockcloud;
  const me = (request: FastifyRequest): SignedIn => {
    const signedIn = state(request).me;
    if (!signedIn) throw new Error('Apps route ran without a session');
    return signedIn;
  };

  async function render(request: FastifyRequest, reply: FastifyReply, extra: Extra = {}, status = 200) {
    const who = me(request);
    const accountId = who.account.id;
    const [apps, authorized, { owned }] = await Promise.all([
      oauthApps.list(accountId),
      oauthConsents.list(accountId),
      lockSettings.overview(accountId),
    ]);
    const view: AppsView = {
      apps,
      authorized,
      nicknames: new Map(owned.map((l) => [l.deviceId, l.nickname])),
      ...extra,
    };
    const ctx = { csrf: state(request).csrf, email: who.account.email };
    return sendPage(reply, appsPage(ctx, view), status);
  }

  /**
   * Runs one change, then redirects (303) to the page; a new secret goes through a one-time handle
   * (/apps/secret/:handle). A refusal changed nothing and redirects too: the page shows it once,
   * beside the fields of the form it names (`formOf`: the register form, or an app's edit form),
   * refilled as sent, with the refusal's status.
   */
  function post<P>(
    path: string,
    run: (request: FastifyRequest<{ Params: P }>, who: SignedIn) => Promise<Flash>,
    formOf?: (request: FastifyRequest<{ Params: P }>) => string,
  ) {
    app.post<{ Params: P }>(path, HIDDEN, async (request, reply) => {
      try {
        return redirectAfterChange(flashes, request, reply, PAGE, await run(request, me(request)));
      } catch (error) {
        const which = formOf?.(request);
        const refused = besideField(refusedForm(error, which === undefined ? [] : APP_FIELDS));
        // Only a form whose fields were refused is refilled (not one of an app that is not there).
        if (which === undefined || refused.errors === undefined)
          return redirectRefused(flashes, request, reply, PAGE, refused);
        const f = form(request);
        const values = {
          form: which,
          name: f.name ?? '',
          redirect_uris: f.redirect_uris ?? '',
          kind: f.kind ?? '',
        };
        return redirectRefused(flashes, request, reply, PAGE, { ...refused, values });
      }
    });
  }

  app.get('/apps', HIDDEN, (request, reply) => {
    const flash = flashes.take(state(request).csrf, handleOf(request));
    const { refused } = flash ?? {};
    if (refused === undefined) return render(request, reply, flash?.notice ? { notice: flash.notice } : {});
    const extra: Extra = {
      notice: refused.notice,
      ...(refused.errors ? { errors: refused.errors } : {}),
      ...(refused.values ? { values: refused.values } : {}),
    };
    return render(request, reply, extra, refusedStatus(reply, refused));
  });

  // The one view of a new client secret: a reload, another browser, a wrong or old handle see 410.
  app.get<{ Params: { handle: string } }>('/apps/secret/:handle', HIDDEN, (request, reply) => {
    const flash = flashes.take(state(request).csrf, request.params.handle);
    if (flash?.revealed === undefined)
      return render(request, reply, { notice: { kind: 'error', text: CLIENT_SECRET_GONE } }, 410);
    return render(request, reply, {
      revealed: flash.revealed,
      ...(flash.notice ? { notice: flash.notice } : {}),
    });
  });

  // ---- the apps the account authorized.

  post<{ id: string }>('/apps/authorized/:id/revoke', async (request, who) => {
    const accountId = who.account.id;
    const { id } = request.params;
    const { appName } = await oauthConsents.withdraw(accountId, id, sessionActor(accountId));
    return {
      notice: {
        kind: 'success',
        text: `${appName} is revoked: it can no longer reach your locks, and its tokens stopped working.`,
      },
    };
  });

  // ---- the account's own apps (its developer's side).

  post(
    '/apps',
    async (request, who) => {
      const { app: made, secret } = await oauthApps.register(who.account.id, appInput(request));
      if (secret === null)
        return {
          notice: {
            kind: 'success',
            text: `${made.name} is registered as a public app. Its client id is ${made.id}; it has no secret: it proves itself with PKCE.`,
          },
        };
      return {
        revealed: { kind: 'client-secret', value: secret, clientId: made.id },
        notice: { kind: 'success', text: `${made.name} is registered.` },
      };
    },
    () => REGISTER_FORM,
  );

  post<{ id: string }>(
    '/apps/:id',
    async (request, who) => {
      const f = form(request);
      const changed = await oauthApps.update(who.account.id, request.params.id, {
        name: f.name,
        redirect_uris: redirectUrisOf(f.redirect_uris),
      });
      return { notice: { kind: 'success', text: `${changed.name} is saved.` } };
    },
    (request) => request.params.id,
  );

  post<{ id: string }>('/apps/:id/secret', async (request, who) => {
    const { app: changed, secret } = await oauthApps.rotateSecret(who.account.id, request.params.id);
    return {
      revealed: { kind: 'client-secret', value: secret, clientId: changed.id },
      notice: {
        kind: 'success',
        text: `${changed.name} has a new secret; the old one stopped working at once.`,
      },
    };
  });

  post<{ id: string }>('/apps/:id/delete', async (request, who) => {
    const accountId = who.account.id;
    const gone = await oauthApps.get(accountId, request.params.id);
    await oauthApps.delete(accountId, gone.id);
    return {
      notice: {
        kind: 'success',
        text: `${gone.name} is deleted: every authorization of it ended, and its tokens stopped working.`,
      },
    };
  });
}
