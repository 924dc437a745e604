/**
 * Issue 24 points 1 and 3 in a real browser: the Apps page registers a confidential app (a custom
 * scheme refused beside its field first, the form refilled), shows its client id and secret once
 * (a reload shows only the secret's beginning); the owner then authorizes the app through the
 * OAuth consent page, sees it under "Apps you authorized" with its scopes in words, and revokes it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { SCOPE_WORDS } from '../../src/domain/oauth-app.ts';
import { authorizationUrl, discover, oauth, REDIRECT, type RegisteredApp } from '../support/oauth.ts';
import { OWNER, startServer, type TestServer } from '../support/server.ts';
import { launchBrowser, watchForErrors } from './support.ts';

describe('dashboard in a browser: registering an app, and revoking an authorized one', () => {
  let t: TestServer;
  let browser: Browser;
  let page: Page;
  let errors: string[];
  let clientId = '';
  let secret = '';
  before(async () => {
    browser = await launchBrowser();
    t = await startServer({ flags: ['--no-rate-limit'] });
    page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    errors = watchForErrors(page);
    // The app's callback: nothing listens there; the browser is answered in its place.
    await page.route(`${REDIRECT}**`, (route) =>
      route.fulfill({ status: 200, contentType: 'text/plain', body: 'the app got its code' }),
    );
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  it('refuses a custom scheme for a confidential app beside the field, the form refilled', async () => {
    await page.goto(`${t.url}/dashboard/login`);
    await page.getByLabel('E-mail').fill(OWNER);
    await page.getByLabel('Password').fill('owner-password');
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForURL(/\/dashboard\/locks$/);
    await page.getByRole('link', { name: 'Apps' }).click();
    await page.waitForURL(/\/dashboard\/apps$/);
    await page.getByTestId('no-authorized').waitFor();

    const form = page.getByTestId('register-app');
    await form.getByLabel('Name').fill('Porch Planner');
    await form.getByLabel('Redirect URIs').fill('com.example.porch:/callback');
    await form.getByLabel('Confidential: a server that keeps a secret').check();
    await form.getByRole('button', { name: 'Register the app' }).click();
    await page.getByText('Check the form.').waitFor();
    assert.match(
      (await page.locator('#f-redirect_uris-error').textContent()) ?? '',
      /uses a private-use scheme, which only a public \(native\) app may\.$/,
    );
    assert.equal(await form.getByLabel('Name').inputValue(), 'Porch Planner');
    assert.equal(await form.getByLabel('Redirect URIs').inputValue(), 'com.example.porch:/callback');
    assert.equal(await page.getByTestId('revealed-client-secret').count(), 0);
  });

  it('registers the app: client id and secret shown once, then only the secret’s beginning', async () => {
    const form = page.getByTestId('register-app');
    await form.getByLabel('Redirect URIs').fill(`${REDIRECT}\nhttps://porch.example/callback`);
    await form.getByRole('button', { name: 'Register the app' }).click();
    await page.waitForURL(/\/dashboard\/apps\/secret\/[A-Za-z0-9_-]{22}$/);
    await page.getByText('Copy your new client secret now.').waitFor();
    secret = ((await page.getByTestId('revealed-client-secret').textContent()) ?? '').trim();
    clientId = ((await page.getByTestId('revealed-client-id').textContent()) ?? '').trim();
    assert.match(secret, /^lcs_[A-Za-z0-9_-]{40,}$/);
    assert.match(clientId, /^lca_/);
    await page.screenshot({ fullPage: true });

    const item = page.locator(`[data-app-id="${clientId}"]`);
    assert.equal(await item.getByRole('heading').textContent(), 'Porch Planner');
    assert.equal(await item.locator('[data-col="client-id"]').textContent(), clientId);
    assert.equal(
      await item.locator('[data-col="kind"]').textContent(),
      'Confidential: a server that keeps a secret',
    );

    await page.reload();
    assert.equal(await page.getByTestId('revealed-client-secret').count(), 0);
    assert.ok(!(await page.content()).includes(secret), 'the secret is not shown again');
    assert.equal(await item.locator('[data-col="secret"]').textContent(), `${secret.slice(0, 10)}…`);
  });

  it('authorized through the consent page, the app is listed; Revoke ends it at once', async () => {
    const as = await discover(t);
    const app: RegisteredApp = {
      app: await t.server.lockcloud.oauthApps.clientFor(clientId).then((found) => {
        assert.ok(found);
        return found.app;
      }),
      secret,
      client: { client_id: clientId },
      auth: oauth.ClientSecretBasic(secret),
    };
    const url = await authorizationUrl(as, app, {
      scope: 'locks:read events:read',
      verifier: oauth.generateRandomCodeVerifier(),
    });
    await page.goto(url.href);
    await page.getByTestId('app-name').waitFor();
    assert.equal(await page.getByTestId('app-name').textContent(), 'Porch Planner');
    await page.getByTestId('allow').click();
    await page.waitForURL((u) => u.href.startsWith(REDIRECT) && u.searchParams.has('code'));

    await page.goto(`${t.url}/dashboard/apps`);
    const authorized = page.locator(`[data-authorized-app="${clientId}"]`);
    await authorized.waitFor();
    assert.equal(await authorized.getByRole('heading').textContent(), 'Porch Planner');
    const scopes = (await authorized.locator('[data-col="scopes"] li').allTextContents()).map((s) =>
      s.trim(),
    );
    assert.deepEqual(scopes, [
      `${SCOPE_WORDS['locks:read']} locks:read`,
      `${SCOPE_WORDS['events:read']} events:read`,
    ]);
    assert.equal(
      await authorized.locator('[data-col="locks"]').textContent(),
      'Every lock you own, also those you add later',
    );
    assert.equal(await authorized.locator('[data-col="last-used"]').textContent(), 'never');

    await authorized.getByRole('button', { name: 'Revoke Porch Planner' }).click();
    await page.getByText('Porch Planner is revoked').waitFor();
    assert.equal(await page.locator(`[data-authorized-app="${clientId}"]`).count(), 0);
    await page.getByTestId('no-authorized').waitFor();
    // The developer's side keeps the app: only the authorization ended.
    assert.equal(await page.locator(`[data-app-id="${clientId}"]`).count(), 1);

    // At phone width nothing makes the page scroll sideways.
    await page.setViewportSize({ width: 390, height: 844 });
    const width = Number(await page.evaluate('document.documentElement.scrollWidth'));
    assert.ok(width <= 390, `${width} px wide`);
  });

  it('ran without script errors or CSP violations', () => {
    assert.deepEqual(errors, []);
  });
});
