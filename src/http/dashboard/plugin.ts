import { fileURLToPath } from 'node:url';
import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import helmet from '@fastify/helmet';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Lockcloud } from '../../app/lockcloud.ts';
import { answerErrorsWith } from '../error-pipeline.ts';
import type { OAuthServer } from '../oauth/server.ts';
import { csrfProblem, readState, state } from './context.ts';
import { dashboardErrors, sendRefusal } from './errors.ts';
import { Flashes } from './flash.ts';
import { isApi } from './reply.ts';
import { accountRoutes } from './routes/account.ts';
import { activityRoutes } from './routes/activity.ts';
import { apiSettingsRoutes } from './routes/api-settings.ts';
import { appRoutes } from './routes/apps.ts';
import { authRoutes } from './routes/auth.ts';
import { eventStreamRoutes } from './routes/event-stream.ts';
import { grantRoutes } from './routes/grants.ts';
import { lockRoutes } from './routes/locks.ts';
import { oauthConsentRoutes } from './routes/oauth-consent.ts';

export interface DashboardOptions {
  readonly lockcloud: Lockcloud;
  readonly sandbox: boolean;
  /** The OAuth authorization server whose consent step the dashboard serves; none: no consent page. */
  readonly oauth?: OAuthServer | undefined;
}

const ASSETS = fileURLToPath(new URL('./assets/', import.meta.url));
const PREFIX = '/dashboard';
/** The pages a visitor without a session may see; everything else sends them to log in. */
const PUBLIC = new Set([
  '',
  '/',
  '/login',
  '/logout',
  '/signup',
  '/verify',
  '/verify/resend',
  '/forgot',
  '/reset',
]);

/** The longest path login sends back to: longer than any page's. */
const MAX_NEXT = 512;

function isPublic(request: FastifyRequest): boolean {
  const url = request.routeOptions.url ?? '';
  return url.startsWith(PREFIX) && PUBLIC.has(url.slice(PREFIX.length));
}

/** The web dashboard under /dashboard: server-rendered pages over the same use cases as the APIs. */
export async function dashboardPlugin(app: FastifyInstance, { lockcloud, sandbox, oauth }: DashboardOptions) {
  await app.register(cookie);
  await app.register(formbody, { bodyLimit: 16 * 1024 });
  await app.register(helmet, {
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'"],
        imgSrc: ["'self'", 'data:'],
        connectSrc: ["'self'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
        baseUri: ["'none'"],
        objectSrc: ["'none'"],
      },
    },
    // Served over plain http on loopback too: HSTS would be a promise only a TLS proxy can keep.
    strictTransportSecurity: false,
    referrerPolicy: { policy: 'same-origin' },
  });
  await app.register(fastifyStatic, { root: ASSETS, prefix: '/assets/', decorateReply: false, index: false });

  app.decorateRequest('dashboard', undefined);
  app.addHook('onRequest', async (request, reply) => {
    if (request.url.startsWith(`${PREFIX}/assets/`)) return;
    request.dashboard = await readState(lockcloud, request, reply);
  });
  // Who may ask, then whether the form came from our own page: a visitor without a session is sent
  // to log in; a mutation without this browser's CSRF token (or from another origin) is refused.
  app.addHook('preHandler', async (request, reply) => {
    if (request.url.startsWith(`${PREFIX}/assets/`) || request.is404) return;
    const { me, csrf } = state(request);
    if (!me && !isPublic(request)) {
      if (isApi(request)) return reply.code(401).send({ error: 'UNAUTHORIZED', message: 'Log in again.' });
      // Back to the page asked for after login; not a path no page has (a redirect's Location
      // would then carry up to 16 KiB of it, past what clients read of a head).
      const path = request.url.split('?')[0] ?? '';
      const next =
        request.method === 'GET' && path.length <= MAX_NEXT ? `?next=${encodeURIComponent(path)}` : '';
      return reply.redirect(`${PREFIX}/login${next}`, 303);
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      const problem = csrfProblem(request, csrf);
      if (problem !== undefined) {
        request.log.info({ problem }, 'dashboard request refused by the CSRF check');
        const message = `Refused: ${problem}. Reload the page and try again.`;
        return sendRefusal(request, reply, 403, { error: 'FORBIDDEN', message });
      }
    }
  });

  // What a page shows once after its form's redirect (Post/Redirect/Get): how it went, a new secret,
  // or the form's refusal.
  const flashes = new Flashes(() => lockcloud.now());
  authRoutes(app, lockcloud, sandbox, flashes);
  lockRoutes(app, lockcloud, sandbox, flashes);
  grantRoutes(app, lockcloud, flashes);
  apiSettingsRoutes(app, lockcloud, flashes);
  appRoutes(app, lockcloud, flashes);
  accountRoutes(app, lockcloud, flashes);
  activityRoutes(app, lockcloud);
  eventStreamRoutes(app, lockcloud);
  if (oauth) oauthConsentRoutes(app, lockcloud, oauth);

  answerErrorsWith(app, dashboardErrors);
}
