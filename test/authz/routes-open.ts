/**
 * The route table's rows for routes of no account: the dashboard's account-less pages and flows,
 * operations and documents, the sandbox.
 */
import type { Surface } from './presentations.ts';
import type { Endpoint } from './route-kit.ts';

/** A route with no object of any account: the same for whoever asks. */
const open = (method: 'GET' | 'POST', route: string, surface: Surface, path?: string): Endpoint => ({
  method,
  route,
  surface,
  target: 'none',
  ...(path === undefined ? {} : { request: () => ({ path }) }),
  ...(method === 'POST' ? { request: () => ({ path: path ?? route, form: {} }) } : {}),
  skipAllowed:
    method === 'POST'
      ? 'an account-less flow (log-in, sign-up, codes, log-out): no object of any account'
      : undefined,
});

const SANDBOX = 'the sandbox (/_sim) takes no credential by design and does not exist with --production';

export const OPEN_ROUTES: readonly Endpoint[] = [
  // ---- account-less pages and flows: nothing of any account in them, whoever asks.
  open('GET', '/dashboard', 'dash-public'),
  open('GET', '/dashboard/', 'dash-public'),
  open('GET', '/dashboard/*', 'dash-public', '/dashboard/assets/dashboard.css'),
  ...(['/login', '/signup', '/verify', '/forgot', '/reset'] as const).flatMap((p) => [
    open('GET', `/dashboard${p}`, 'dash-public'),
    open('POST', `/dashboard${p}`, 'dash-public'),
  ]),
  open('POST', '/dashboard/logout', 'dash-public'),
  open('POST', '/dashboard/verify/resend', 'dash-public'),
  // ---- operations and documents: public, the same for everyone.
  ...['/', '/healthz', '/readyz', '/openapi.json', '/docs', '/docs/', '/docs/json', '/docs/yaml'].map((r) =>
    open('GET', r, 'public'),
  ),
  open('GET', '/docs/static/index.html', 'public'),
  open('GET', '/docs/static/swagger-initializer.js', 'public'),
  open('GET', '/docs/*', 'public', '/docs/static/swagger-ui.css'),
  // ---- the OAuth authorization server (oidc-provider): an app's credentials, not an account's.
  ...(
    [
      ['GET', '/oauth', '/oauth'],
      ['POST', '/oauth', '/oauth'],
      ['OPTIONS', '/oauth', '/oauth'],
      ['GET', '/oauth*', '/oauth/jwks'],
      ['POST', '/oauth*', '/oauth/token'],
      ['OPTIONS', '/oauth*', '/oauth/token'],
      [
        'GET',
        '/.well-known/oauth-authorization-server/oauth',
        '/.well-known/oauth-authorization-server/oauth',
      ],
    ] as const
  ).map(
    ([method, route, path]): Endpoint => ({
      method,
      route,
      surface: 'oauth',
      target: 'none',
      request: () => ({ path, ...(method === 'POST' ? { form: { grant_type: 'authorization_code' } } : {}) }),
    }),
  ),
  // ---- the sandbox.
  ...(
    [
      ['POST', '/_sim/locks'],
      ['POST', '/_sim/locks/:device_id'],
      ['GET', '/_sim/clock'],
      ['POST', '/_sim/clock'],
      ['POST', '/_sim/accounts/:email'],
      ['POST', '/_sim/reset'],
      ['GET', '/_sim/mailbox'],
    ] as const
  ).map(
    ([method, route]): Endpoint => ({ method, route, surface: 'sandbox', target: 'none', outside: SANDBOX }),
  ),
];
