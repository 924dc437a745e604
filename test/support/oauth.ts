/**
 * Driving lockcloud's OAuth server from a test: an app registered through the use case, a
 * signed-in browser (cookies, no JavaScript) and oauth4webapi, a real OAuth client library, for
 * everything the app itself does (metadata, PKCE, the code exchange, refresh, revocation).
 */
import * as oauth from 'oauth4webapi';
import type { AppInput, OAuthApp } from '../../src/domain/oauth-app.ts';
import { FormClient } from '../dashboard/support.ts';
import type { TestServer } from './server.ts';

export const REDIRECT = 'http://127.0.0.1:9/callback';
const INSECURE = { [oauth.allowInsecureRequests]: true } as const;

export interface RegisteredApp {
  readonly app: OAuthApp;
  readonly secret: string | null;
  readonly client: oauth.Client;
  readonly auth: oauth.ClientAuth;
}

/** Registers an app for the account with this e-mail address, through the use case. */
export async function registerApp(
  t: TestServer,
  email: string,
  input: AppInput = {},
): Promise<RegisteredApp> {
  const account = await t.server.store.accounts.findByEmail(email);
  if (!account) throw new Error(`no account ${email}`);
  const { app, secret } = await t.server.lockcloud.oauthApps.register(account.id, {
    name: 'Home Dashboard',
    redirect_uris: [REDIRECT],
    ...input,
  });
  return {
    app,
    secret,
    client: { client_id: app.id },
    auth: secret === null ? oauth.None() : oauth.ClientSecretBasic(secret),
  };
}

/** The server's metadata, read as an app reads it (RFC 8414). */
export async function discover(t: TestServer): Promise<oauth.AuthorizationServer> {
  const issuer = new URL(`${t.url}/oauth`);
  const res = await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...INSECURE });
  return oauth.processDiscoveryResponse(issuer, res);
}

/** A browser signed in to the dashboard as `email`. */
export async function signedIn(t: TestServer, email: string, password: string): Promise<FormClient> {
  const browser = new FormClient(t);
  await browser.get('/dashboard/login');
  const login = await browser.post('/dashboard/login', { email, password });
  if (login.status !== 303) throw new Error(`login failed: ${login.status}`);
  return browser;
}

export interface AuthorizationAsk {
  readonly scope: string;
  readonly state?: string;
  readonly verifier?: string;
  readonly redirectUri?: string;
  /** Extra or replaced parameters (code_challenge_method, prompt, ...); undefined removes one. */
  readonly params?: Record<string, string | undefined>;
}

/** The authorization request's URL, with PKCE S256 from `verifier`. */
export async function authorizationUrl(
  as: oauth.AuthorizationServer,
  app: RegisteredApp,
  ask: AuthorizationAsk & { verifier: string },
): Promise<URL> {
  const url = new URL(as.authorization_endpoint ?? '');
  const params: Record<string, string | undefined> = {
    client_id: app.app.id,
    redirect_uri: ask.redirectUri ?? REDIRECT,
    response_type: 'code',
    scope: ask.scope,
    state: ask.state ?? 'state-1',
    code_challenge: await oauth.calculatePKCECodeChallenge(ask.verifier),
    code_challenge_method: 'S256',
    ...ask.params,
  };
  for (const [k, v] of Object.entries(params)) if (v !== undefined) url.searchParams.set(k, v);
  return url;
}

/** Follows redirects within the server; stops at the first page, error, or a redirect off it. */
export async function follow(
  t: TestServer,
  browser: FormClient,
  start: URL | string,
): Promise<{ status: number; url: string; text: string }> {
  let url = typeof start === 'string' ? start : start.href;
  for (let hops = 0; hops < 10; hops++) {
    if (!url.startsWith(t.url)) return { status: 303, url, text: '' };
    const res = await browser.get(url.slice(t.url.length));
    const location = res.res.headers.get('location');
    if (res.status < 300 || res.status >= 400 || location === null)
      return { status: res.status, url, text: res.text };
    url = new URL(location, url).href;
  }
  throw new Error('too many redirects');
}

/** Answers the consent page the browser is on; `decision` allow or deny. Returns where it led. */
export async function answerConsent(
  t: TestServer,
  browser: FormClient,
  consentUrl: string,
  fields: Record<string, string | readonly string[]>,
): Promise<{ status: number; url: string; text: string }> {
  const path = consentUrl.slice(t.url.length);
  const res = await browser.post(path, fields);
  const location = res.res.headers.get('location');
  if (res.status !== 303 || location === null) return { status: res.status, url: consentUrl, text: res.text };
  return follow(t, browser, new URL(location, consentUrl).href);
}

/** The whole flow to a code: the request, the consent page answered with `fields`, the callback. */
export async function authorize(
  t: TestServer,
  browser: FormClient,
  as: oauth.AuthorizationServer,
  app: RegisteredApp,
  ask: AuthorizationAsk,
  fields: Record<string, string | readonly string[]> = {
    decision: 'allow',
    scope: ask.scope.split(' '),
    locks: 'all',
  },
): Promise<{ callback: URL; verifier: string }> {
  const verifier = ask.verifier ?? oauth.generateRandomCodeVerifier();
  const page = await follow(t, browser, await authorizationUrl(as, app, { ...ask, verifier }));
  const done = page.url.startsWith(t.url) ? await answerConsent(t, browser, page.url, fields) : page;
  if (done.url.startsWith(t.url))
    throw new Error(`the flow stopped at ${done.url}: ${done.status} ${done.text.slice(0, 300)}`);
  return { callback: new URL(done.url), verifier };
}

/** Exchanges the callback's code for tokens, as the app does. */
export async function exchange(
  as: oauth.AuthorizationServer,
  app: RegisteredApp,
  callback: URL,
  verifier: string,
  state = 'state-1',
): Promise<oauth.TokenEndpointResponse> {
  const params = oauth.validateAuthResponse(as, app.client, callback, state);
  const res = await oauth.authorizationCodeGrantRequest(
    as,
    app.client,
    app.auth,
    params,
    REDIRECT,
    verifier,
    INSECURE,
  );
  return oauth.processAuthorizationCodeResponse(as, app.client, res);
}

export async function refresh(
  as: oauth.AuthorizationServer,
  app: RegisteredApp,
  refreshToken: string,
): Promise<oauth.TokenEndpointResponse> {
  const res = await oauth.refreshTokenGrantRequest(as, app.client, app.auth, refreshToken, INSECURE);
  return oauth.processRefreshTokenResponse(as, app.client, res);
}

export async function revoke(
  as: oauth.AuthorizationServer,
  app: RegisteredApp,
  token: string,
): Promise<void> {
  const res = await oauth.revocationRequest(as, app.client, app.auth, token, INSECURE);
  await oauth.processRevocationResponse(res);
}

/** The OAuth error a call failed with (RFC 6749 section 5.2), or undefined when it did not fail. */
export async function oauthError(call: Promise<unknown>): Promise<string | undefined> {
  try {
    await call;
    return undefined;
  } catch (error) {
    const e = error as { error?: string; code?: string; cause?: unknown };
    // A 401 with WWW-Authenticate (a client refused) carries the error in its challenge.
    if (e.code === 'OAUTH_WWW_AUTHENTICATE_CHALLENGE' && Array.isArray(e.cause))
      return (e.cause[0] as { parameters?: { error?: string } } | undefined)?.parameters?.error;
    return e.error ?? (e.cause as { error?: string } | undefined)?.error ?? e.code ?? String(error);
  }
}

export { INSECURE, oauth };
