/**
 * The consent step of the OAuth authorization flow (issue 24, docs/oauth.md). oidc-provider sends
 * the browser here with an interaction (its cookie is scoped to this path); the owner, signed in to
 * the dashboard (the plugin sends others to log in and back), allows or denies. A remembered consent
 * that covers what is asked is answered at once, without a page. The answer goes back to
 * oidc-provider, which redirects to the app with a code or with access_denied.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Provider } from 'oidc-provider';
import type { Lockcloud } from '../../../app/lockcloud.ts';
import type { ConsentRequest } from '../../../app/oauth/consents.ts';
import { isDomainError } from '../../../domain/errors.ts';
import { sessionActor } from '../../../domain/event.ts';
import { API_RESOURCE, CONSENT_PATH } from '../../oauth/provider.ts';
import type { OAuthServer } from '../../oauth/server.ts';
import { state } from '../context.ts';
import { form, HIDDEN, sendPage } from '../reply.ts';
import { consentContinuePage, consentGonePage, consentPage } from '../views/consent-page.ts';

type Interaction = Awaited<ReturnType<Provider['interactionDetails']>>;

const GONE =
  'This authorization request has expired, was already answered, or was opened in another browser. Go back to the app and start again.';

/** Every value of a repeated form field (checkboxes): one comes as a string, more as a list. */
function many(request: FastifyRequest, name: string): string[] {
  const value = (request.body as Record<string, unknown> | null | undefined)?.[name];
  if (typeof value === 'string') return [value];
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

/**
 * Whether this GET is the end of a form's redirects (the login form, sent back here by `next`): its
 * Referer is then a dashboard page (the dashboard's Referrer-Policy is same-origin).
 */
function cameFromAForm(request: FastifyRequest): boolean {
  const referer = request.headers.referer;
  if (referer === undefined || !URL.canParse(referer)) return false;
  const from = new URL(referer);
  return (
    from.host === request.headers.host &&
    from.pathname.startsWith('/dashboard/') &&
    !from.pathname.startsWith(CONSENT_PATH)
  );
}

/** Where the app gets its answer, as the page names it and the form may go: an origin, or a scheme. */
function returnsTo(redirectUri: unknown): string {
  if (typeof redirectUri !== 'string' || !URL.canParse(redirectUri)) return '';
  const url = new URL(redirectUri);
  return url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : url.protocol;
}

/**
 * The page's policy, as the dashboard's, with the app's address allowed as a form's destination:
 * the form posts here, and the redirects that follow end at the app, which browsers hold to
 * form-action too.
 */
function consentPolicy(destination: string): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "connect-src 'self'",
    `form-action 'self'${destination === '' ? '' : ` ${destination}`}`,
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "object-src 'none'",
  ].join(';');
}

export function oauthConsentRoutes(app: FastifyInstance, lockcloud: Lockcloud, oauth: OAuthServer): void {
  const consents = lockcloud.oauthConsents;
  // The plugin's prefix is /dashboard; CONSENT_PATH is the whole path oidc-provider sends to.
  const route = `${CONSENT_PATH.slice('/dashboard'.length)}:uid`;

  const details = async (provider: Provider, request: FastifyRequest, reply: FastifyReply) => {
    try {
      return await provider.interactionDetails(request.raw, reply.raw);
    } catch {
      return undefined;
    }
  };

  const finish = async (
    provider: Provider,
    request: FastifyRequest,
    reply: FastifyReply,
    result: Parameters<Provider['interactionFinished']>[2],
  ): Promise<void> => {
    reply.hijack();
    await provider.interactionFinished(request.raw, reply.raw, result, { mergeWithLastSubmission: false });
  };

  const page = (
    reply: FastifyReply,
    request: FastifyRequest,
    interaction: Interaction,
    consent: ConsentRequest,
    extra: Partial<Parameters<typeof consentPage>[0]> = {},
    status = 200,
  ) => {
    const { me, csrf } = state(request);
    const destination = returnsTo(interaction.params.redirect_uri);
    reply.header('content-security-policy', consentPolicy(destination));
    return sendPage(
      reply,
      consentPage({
        csrf,
        email: me?.account.email ?? '',
        request: consent,
        returnsTo: destination,
        ...extra,
      }),
      status,
    );
  };

  /**
   * Answers the app without asking the owner (a remembered consent, or a request no page can
   * answer). Reached through the login form's redirect, a redirect on to the app would be blocked:
   * browsers hold every redirect after a form to that page's form-action, which cannot name the
   * app (the login page does not know it). A Refresh is a navigation of its own.
   */
  const answerApp = async (
    provider: Provider,
    request: FastifyRequest,
    reply: FastifyReply,
    result: Parameters<Provider['interactionFinished']>[2],
    appName: string,
  ) => {
    if (!cameFromAForm(request)) return finish(provider, request, reply, result);
    const returnTo = await provider.interactionResult(request.raw, reply.raw, result, {
      mergeWithLastSubmission: false,
    });
    reply.header('refresh', `0;url=${returnTo}`);
    return sendPage(reply, consentContinuePage(appName, returnTo));
  };

  app.get<{ Params: { uid: string } }>(route, HIDDEN, async (request, reply) => {
    const provider = await oauth.provider();
    const interaction = await details(provider, request, reply);
    if (interaction === undefined || interaction.uid !== request.params.uid)
      return sendPage(reply, consentGonePage(GONE), 400);
    const accountId = state(request).me?.account.id ?? '';
    const { client_id: clientId, scope, prompt } = interaction.params as Record<string, string | undefined>;
    let consent: ConsentRequest;
    try {
      consent = await consents.request(accountId, clientId ?? '', scope);
    } catch (error) {
      // Nothing lockcloud knows was asked for: the app hears so (RFC 6749 4.1.2.1), not the owner.
      if (!isDomainError(error) || error.code !== 'INVALID_INPUT') throw error;
      const result = { error: 'invalid_scope', error_description: 'no scope lockcloud knows was asked for' };
      return answerApp(provider, request, reply, result, 'the app');
    }
    const covering = consents.covering(consent);
    const asksAgain = (prompt ?? '').split(' ').includes('consent');
    // Remembered, and still held by the authorization server: answered without asking.
    if (covering && !asksAgain && (await provider.Grant.find(covering.grantId)) !== undefined) {
      const result = { login: { accountId }, consent: { grantId: covering.grantId } };
      return answerApp(provider, request, reply, result, consent.app.name);
    }
    return page(reply, request, interaction, consent);
  });

  app.post<{ Params: { uid: string } }>(route, HIDDEN, async (request, reply) => {
    const provider = await oauth.provider();
    const interaction = await details(provider, request, reply);
    if (interaction === undefined || interaction.uid !== request.params.uid)
      return sendPage(reply, consentGonePage(GONE), 400);
    const accountId = state(request).me?.account.id ?? '';
    if (form(request).decision !== 'allow')
      return finish(provider, request, reply, {
        error: 'access_denied',
        error_description: 'the owner denied the request',
      });
    const { client_id: clientId, scope } = interaction.params as Record<string, string | undefined>;
    const consent = await consents.request(accountId, clientId ?? '', scope);
    const picked = {
      scopes: many(request, 'scope'),
      lockIds: form(request).locks === 'some' ? many(request, 'lock') : null,
    };
    let checked: ReturnType<typeof consents.check>;
    try {
      checked = consents.check(consent, picked);
    } catch (error) {
      if (!isDomainError(error) || error.code !== 'INVALID_INPUT') throw error;
      const field = error.details.field ?? 'scopes';
      const errors = { [field]: error.message.replace(/^[a-z_]+: /, '') };
      return page(reply, request, interaction, consent, { errors, picked }, 400);
    }
    const grant = new provider.Grant({ accountId, clientId: consent.app.id });
    grant.addResourceScope(API_RESOURCE, checked.scopes.join(' '));
    const grantId = await grant.save();
    await consents.record(accountId, consent.app, checked, grantId, sessionActor(accountId));
    return finish(provider, request, reply, { login: { accountId }, consent: { grantId } });
  });
}
