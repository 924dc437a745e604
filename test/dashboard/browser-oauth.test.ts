/**
 * Issue 24 point 4: the OAuth authorization code flow end to end in a real browser. The app's side
 * is oauth4webapi (discovery, PKCE S256, the authorization URL, the callback's state and iss, the
 * code exchange); its redirect URI is a small HTTP server of the test's own on another port, so a
 * redirect Chromium refuses (the consent page's CSP form-action) never reaches it. Chromium, with no
 * session, is sent to log in, comes back to the consent page, and answers it; the token then reads
 * only what the owner picked. Deny, a remembered consent, a public app and the consent page's CSP
 * each get their own run; so does the way through the login form to a remembered consent (which
 * the login page's CSP form-action would stop, were it a redirect). With LOCKCLOUD_SCREENSHOTS=1 it writes
 * docs/screenshots/consent.png. The HTTP-level version is test/http/oauth/flow.test.ts.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, ConsoleMessage, Frame, Page, Response } from 'playwright-core';
import { SCOPE_WORDS } from '../../src/domain/oauth-app.ts';
import type { Scope } from '../../src/domain/scope.ts';
import { discover, INSECURE, oauth } from '../support/oauth.ts';
import { LOCK_A, LOCK_B, OTHER, OWNER, startServer, type TestServer } from '../support/server.ts';
import { launchBrowser, screenshot, watchForErrors } from './support.ts';

/** The app's own server: it records every request to a callback path and answers a small page. */
interface AppServer {
  readonly origin: string;
  /** The next callback request to arrive, as the full URL it was sent to. */
  nextCallback(): Promise<URL>;
  close(): Promise<void>;
}

async function startApp(): Promise<AppServer> {
  const arrived: URL[] = [];
  const waiting: ((url: URL) => void)[] = [];
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', `http://${req.headers.host ?? '127.0.0.1'}`);
    if (!url.pathname.startsWith('/callback')) {
      res.writeHead(204).end();
      return;
    }
    const waiter = waiting.shift();
    if (waiter) waiter(url);
    else arrived.push(url);
    res
      .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      .end(
        '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>The app</title></head><body><h1>Back at the app</h1></body></html>',
      );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    nextCallback() {
      const first = arrived.shift();
      return first ? Promise.resolve(first) : new Promise((resolve) => waiting.push(resolve));
    },
    close() {
      server.closeAllConnections();
      return new Promise((resolve, reject) => server.close((e) => (e ? reject(e) : resolve())));
    },
  };
}

interface App {
  readonly name: string;
  readonly redirectUri: string;
  readonly client: oauth.Client;
  readonly auth: oauth.ClientAuth;
}

/** What the browser logged while it was on its way: Chromium names a CSP refusal on the console. */
function cspMessages(page: Page): { messages: string[]; stop(): void } {
  const messages: string[] = [];
  const listener = (msg: ConsoleMessage) => {
    if (/Content Security Policy|form-action/i.test(msg.text())) messages.push(msg.text());
  };
  page.on('console', listener);
  return { messages, stop: () => page.off('console', listener) };
}

describe('dashboard in a browser: OAuth login and consent for a real client', () => {
  let t: TestServer;
  let browser: Browser;
  let appServer: AppServer;
  let as: oauth.AuthorizationServer;
  let appOwnerId = '';
  const contexts: BrowserContext[] = [];
  const errors: string[][] = [];
  // The first scenario's app and browser: the second authorization reuses both.
  let dashboard: App;
  let signedIn: Page;

  before(async () => {
    browser = await launchBrowser();
    t = await startServer({ flags: ['--no-rate-limit'] });
    appServer = await startApp();
    as = await discover(t);
    const account = await t.server.store.accounts.findByEmail(OTHER);
    assert.ok(account, OTHER);
    appOwnerId = account.id;
  });
  after(async () => {
    for (const context of contexts) await context.close();
    await browser?.close();
    await appServer?.close();
    await t?.close();
  });

  async function register(name: string, kind: 'confidential' | 'public', path: string): Promise<App> {
    const redirectUri = `${appServer.origin}${path}`;
    const { app, secret } = await t.server.lockcloud.oauthApps.register(appOwnerId, {
      name,
      redirect_uris: [redirectUri],
      kind,
    });
    assert.equal(secret === null, kind === 'public');
    return {
      name,
      redirectUri,
      client: { client_id: app.id },
      auth: secret === null ? oauth.None() : oauth.ClientSecretBasic(secret),
    };
  }

  /**
   * A fresh browser profile: no dashboard session, no authorization server cookie. Its script errors
   * and CSP reports go to the last test's list unless `watched` is false (a known server bug's run).
   */
  async function freshPage(watched = true): Promise<Page> {
    const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
    contexts.push(context);
    const page = await context.newPage();
    if (watched) errors.push(watchForErrors(page));
    return page;
  }

  /** The app starts an authorization: PKCE S256, a state of its own, the URL it sends the browser to. */
  async function ask(app: App, scope: string) {
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const url = new URL(as.authorization_endpoint ?? '');
    url.searchParams.set('client_id', app.client.client_id);
    url.searchParams.set('redirect_uri', app.redirectUri);
    url.searchParams.set('response_type', 'code');
    url.searchParams.set('scope', scope);
    url.searchParams.set('state', state);
    url.searchParams.set('code_challenge', await oauth.calculatePKCECodeChallenge(verifier));
    url.searchParams.set('code_challenge_method', 'S256');
    return { url, verifier, state };
  }

  /**
   * Does `act` and waits until the browser is at the app's callback and the app's server has it.
   * A navigation Chromium refuses under a Content-Security-Policy fails at once, with its message.
   */
  async function landsAtApp(page: Page, act: () => Promise<unknown>): Promise<URL> {
    const arrival = appServer.nextCallback();
    const csp = cspMessages(page);
    let refused: (error: Error) => void = () => {};
    const blocked = new Promise<never>((_, reject) => {
      refused = reject;
    });
    // A refusal may come while `act` runs, before the race below listens.
    blocked.catch(() => {});
    // The navigation's hops, each with the status it was answered with, for a refusal's message.
    const hops: string[] = [];
    const onResponse = (res: Response) => {
      if (res.request().isNavigationRequest() && res.frame() === page.mainFrame())
        hops.push(`${res.request().method()} ${new URL(res.url()).pathname} ${res.status()}`);
    };
    const onConsole = () => {
      const text = csp.messages.join('\n');
      if (text !== '')
        refused(new Error(`Chromium refused the way to the app after ${hops.join(' → ')}: ${text}`));
    };
    page.on('response', onResponse);
    page.on('console', onConsole);
    try {
      await act();
      const [url] = await Promise.race([
        Promise.all([arrival, page.waitForURL((u) => u.href.startsWith(appServer.origin))]),
        blocked,
      ]);
      assert.equal(page.url(), url.href, 'the browser shows the URL the app was sent');
      assert.deepEqual(csp.messages, []);
      return url;
    } finally {
      page.off('response', onResponse);
      page.off('console', onConsole);
      csp.stop();
    }
  }

  async function logIn(page: Page): Promise<void> {
    await page.getByLabel('E-mail').fill(OWNER);
    await page.getByLabel('Password').fill('owner-password');
    await page.getByRole('button', { name: 'Log in' }).click();
  }

  /** oauth4webapi checks the callback (state, iss) and exchanges its code with the PKCE verifier. */
  async function exchange(app: App, callback: URL, state: string, verifier: string) {
    assert.equal(callback.searchParams.get('iss'), as.issuer, 'RFC 9207: the issuer comes back');
    const params = oauth.validateAuthResponse(as, app.client, callback, state);
    const res = await oauth.authorizationCodeGrantRequest(
      as,
      app.client,
      app.auth,
      params,
      app.redirectUri,
      verifier,
      INSECURE,
    );
    return oauth.processAuthorizationCodeResponse(as, app.client, res);
  }

  const bearer = (token: string) => `Bearer ${token}`;
  async function lockIds(token: string): Promise<string[]> {
    const res = await t.request('/public/locks', { key: bearer(token) });
    assert.equal(res.status, 200);
    return ((await res.json()) as { device_id: string }[]).map((l) => l.device_id).sort();
  }
  const command = (token: string, deviceId: string, name: string) =>
    t.request(`/public/lock/${deviceId}`, { method: 'POST', key: bearer(token), json: { command: name } });

  it('logs in, consents to one scope of two on one lock, and the token holds exactly that', async () => {
    dashboard = await register('Home Dashboard', 'confidential', '/callback');
    const page = await freshPage();
    signedIn = page;
    const { url, verifier, state } = await ask(dashboard, 'locks:read locks:operate');

    await page.goto(url.href);
    await page.waitForURL(/\/dashboard\/login\?next=%2Fdashboard%2Foauth%2Fconsent%2F[^&]+$/);
    await logIn(page);
    await page.waitForURL(/\/dashboard\/oauth\/consent\/[^/?]+$/);

    assert.equal(await page.getByTestId('app-name').textContent(), 'Home Dashboard');
    const consent = page.getByTestId('consent');
    for (const scope of ['locks:read', 'locks:operate'] as const satisfies readonly Scope[]) {
      const box = consent.getByLabel(SCOPE_WORDS[scope]);
      assert.ok(await box.isChecked(), `${scope} is offered ticked`);
    }
    for (const scope of ['events:read', 'webhooks:manage', 'keys:manage'] as const satisfies readonly Scope[])
      assert.equal(await consent.getByLabel(SCOPE_WORDS[scope]).count(), 0, `${scope} was not asked`);
    assert.equal(await page.getByTestId('returns-to').textContent(), appServer.origin);

    await consent.getByLabel(SCOPE_WORDS['locks:operate']).uncheck();
    await consent.getByLabel('Only these').check();
    await consent.getByLabel('Back door').check();
    await screenshot(page, 'consent');

    const callback = await landsAtApp(page, () => page.getByTestId('allow').click());
    assert.equal(callback.pathname, '/callback');
    assert.equal(callback.searchParams.get('state'), state);
    assert.ok(callback.searchParams.get('code'));
    await page.getByRole('heading', { name: 'Back at the app' }).waitFor();

    const tokens = await exchange(dashboard, callback, state, verifier);
    assert.equal(tokens.token_type, 'bearer');
    assert.match(tokens.access_token, /^lco_/);
    assert.equal(tokens.scope, 'locks:read');
    assert.deepEqual(await lockIds(tokens.access_token), [LOCK_B]);
    assert.equal(
      (await t.request(`/public/lock/${LOCK_B}`, { key: bearer(tokens.access_token) })).status,
      200,
    );
    assert.notEqual(
      (await t.request(`/public/lock/${LOCK_A}`, { key: bearer(tokens.access_token) })).status,
      200,
      'not a lock it was given',
    );
    assert.equal(
      (await command(tokens.access_token, LOCK_B, 'unlock')).status,
      403,
      'locks:operate unticked',
    );
  });

  it('a second authorization in the signed-in browser goes straight to the app: the consent is remembered', async () => {
    const page = signedIn;
    // The app asks for what it was granted (the token's scope): the remembered consent covers it.
    const { url, verifier, state } = await ask(dashboard, 'locks:read');
    const consentAnswers: number[] = [];
    const committed: string[] = [];
    const onResponse = (res: Response) => {
      if (new URL(res.url()).pathname.startsWith('/dashboard/oauth/consent/'))
        consentAnswers.push(res.status());
    };
    const onCommit = (frame: Frame) => {
      if (frame === page.mainFrame()) committed.push(frame.url());
    };
    page.on('response', onResponse);
    page.on('framenavigated', onCommit);
    const callback = await landsAtApp(page, () => page.goto(url.href)).finally(() => {
      page.off('response', onResponse);
      page.off('framenavigated', onCommit);
    });
    assert.equal(callback.searchParams.get('state'), state);
    assert.ok(consentAnswers.length > 0, 'the consent step was asked');
    assert.ok(
      consentAnswers.every((status) => status === 303),
      `answered without a page: ${consentAnswers}`,
    );
    assert.deepEqual(committed, [callback.href], 'no page shown between the request and the app');

    const tokens = await exchange(dashboard, callback, state, verifier);
    assert.equal(tokens.scope, 'locks:read');
    assert.deepEqual(await lockIds(tokens.access_token), [LOCK_B], 'the remembered lock, no more');
  });

  it('Deny sends the app access_denied with its state', async () => {
    const app = await register('Denied app', 'confidential', '/callback-denied');
    const page = signedIn;
    const { url, state } = await ask(app, 'locks:read events:read');
    await page.goto(url.href);
    await page.waitForURL(/\/dashboard\/oauth\/consent\/[^/?]+$/);
    assert.equal(await page.getByTestId('app-name').textContent(), 'Denied app');
    await page.getByTestId('consent').getByLabel(SCOPE_WORDS['events:read']).waitFor();

    const callback = await landsAtApp(page, () => page.getByTestId('deny').click());
    assert.equal(callback.pathname, '/callback-denied');
    assert.equal(callback.searchParams.get('error'), 'access_denied');
    assert.equal(callback.searchParams.get('state'), state);
    assert.equal(callback.searchParams.get('code'), null);
    assert.throws(
      () => oauth.validateAuthResponse(as, app.client, callback, state),
      (e: unknown) => e instanceof oauth.AuthorizationResponseError && e.error === 'access_denied',
    );
  });

  it('a public app (PKCE, no secret) from login to a token', async () => {
    const app = await register('Phone app', 'public', '/callback-public');
    const page = await freshPage();
    const { url, verifier, state } = await ask(app, 'locks:read');
    await page.goto(url.href);
    await page.waitForURL(/\/dashboard\/login\?next=%2Fdashboard%2Foauth%2Fconsent%2F[^&]+$/);
    await logIn(page);
    await page.waitForURL(/\/dashboard\/oauth\/consent\/[^/?]+$/);
    assert.equal(await page.getByTestId('app-name').textContent(), 'Phone app');
    assert.ok(await page.getByTestId('consent').getByLabel(SCOPE_WORDS['locks:read']).isChecked());

    const callback = await landsAtApp(page, () => page.getByTestId('allow').click());
    assert.equal(callback.pathname, '/callback-public');
    const tokens = await exchange(app, callback, state, verifier);
    assert.equal(tokens.scope, 'locks:read');
    assert.deepEqual(await lockIds(tokens.access_token), [LOCK_A, LOCK_B].sort(), 'every lock');
  });

  it("the consent page's CSP form-action names the app, and Chromium follows Allow there", async () => {
    const app = await register('Policy app', 'confidential', '/callback-policy');
    const page = signedIn;
    const { url, verifier, state } = await ask(app, 'locks:read');
    const consentPage = page.waitForResponse(
      (res) => new URL(res.url()).pathname.startsWith('/dashboard/oauth/consent/') && res.status() === 200,
    );
    await page.goto(url.href);
    const policy = (await (await consentPage).allHeaders())['content-security-policy'] ?? '';
    const formAction = policy.split(';').find((d) => d.trim().startsWith('form-action'));
    assert.equal(formAction, `form-action 'self' ${appServer.origin}`);

    const callback = await landsAtApp(page, () => page.getByTestId('allow').click());
    assert.equal(callback.pathname, '/callback-policy');
    const tokens = await exchange(app, callback, state, verifier);
    assert.deepEqual(await lockIds(tokens.access_token), [LOCK_A, LOCK_B].sort());
  });

  // A browser without a session: the login form's redirect leads, past a consent answered without
  // asking, to the app. Browsers hold every redirect of a form's navigation to the form page's
  // form-action, and the login page's is 'self': the consent route goes on by a Refresh instead.
  it('a remembered consent reached through the login form goes on to the app', async () => {
    const page = await freshPage();
    const { url, verifier, state } = await ask(dashboard, 'locks:read');
    await page.goto(url.href);
    await page.waitForURL(/\/dashboard\/login\?next=%2Fdashboard%2Foauth%2Fconsent%2F[^&]+$/);
    const callback = await landsAtApp(page, () => logIn(page));
    assert.equal(callback.searchParams.get('state'), state);
    const tokens = await exchange(dashboard, callback, state, verifier);
    assert.deepEqual(await lockIds(tokens.access_token), [LOCK_B]);
  });

  it('ran without script errors or CSP violations', () => {
    assert.deepEqual(errors.flat(), []);
  });
});
