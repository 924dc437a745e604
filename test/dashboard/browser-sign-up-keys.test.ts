/**
 * In a real browser: sign up, read the code from the mailbox, verify, log in, unlock API Settings
 * with the mailed code, create a key, use it against /public/locks, delete it and see 401.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { startServer, type TestServer } from '../support/server.ts';
import { latestCode, launchBrowser, mails, screenshot, watchForErrors } from './support.ts';

const EMAIL = 'new-owner@example.com';
const PASSWORD = 'a-long-enough-password';

describe('dashboard in a browser: sign-up to an API key and back to 401', () => {
  let t: TestServer;
  let browser: Browser;
  let page: Page;
  let errors: string[];
  before(async () => {
    // The browser first: were it missing, no server would be left running to hold the test open.
    browser = await launchBrowser();
    t = await startServer({ flags: ['--no-rate-limit'] });
    page = await browser.newPage({ viewport: { width: 1200, height: 800 } });
    errors = watchForErrors(page);
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  it('signs up, verifies the mailed code and logs in', async () => {
    await page.goto(`${t.url}/`);
    assert.match(page.url(), /\/dashboard\/login$/);
    await screenshot(page, 'login');
    await page.getByRole('link', { name: 'Create an account' }).click();
    // Both mistakes at once, each next to its field; the typed address is kept.
    await page.getByLabel('E-mail').fill('not-an-address');
    await page.getByLabel('Password').fill('short');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByText('Check the form.').waitFor();
    assert.match((await page.locator('#f-email-error').textContent()) ?? '', /is not an e-mail address/);
    assert.match((await page.locator('#f-password-error').textContent()) ?? '', /password/i);
    assert.equal(await page.getByLabel('E-mail').getAttribute('aria-invalid'), 'true');
    assert.equal(await page.getByLabel('Password').getAttribute('aria-invalid'), 'true');
    assert.equal(await page.getByLabel('E-mail').inputValue(), 'not-an-address');

    // A fresh form for the screenshot, as a newcomer first sees it filled in.
    await page.goto(`${t.url}/dashboard/signup`);
    await page.getByLabel('E-mail').fill(EMAIL);
    await page.getByLabel('Password').fill(PASSWORD);
    await screenshot(page, 'sign-up');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.waitForURL(/\/dashboard\/verify/);
    assert.equal(await page.getByLabel('E-mail').inputValue(), EMAIL);
    // The sandbox keeps its mail: the page says where, linked for this address.
    const mailbox = page.getByTestId('sandbox-mail').getByRole('link');
    assert.equal(await mailbox.getAttribute('href'), `/_sim/mailbox?to=${encodeURIComponent(EMAIL)}`);

    // Logging in before verifying: the way to the code, and a new one.
    await page.goto(`${t.url}/dashboard/login`);
    await page.getByLabel('E-mail').fill(EMAIL);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByText('Verify your e-mail address first').waitFor();
    const firstCode = await latestCode(t, EMAIL, /verification code/);
    await page.getByTestId('unverified').getByRole('button', { name: 'Send a new code' }).click();
    await page.waitForURL(/\/dashboard\/verify\?ok=resent/);
    await page.getByText('a new code is on its way').waitFor();
    // The reload shows the page again and mails nothing more: still one new code.
    const mailsAfterResend = (await mails(t, EMAIL)).length;
    await page.reload();
    assert.equal((await mails(t, EMAIL)).length, mailsAfterResend);
    assert.notEqual(await latestCode(t, EMAIL, /verification code/), firstCode);
    await page.goto(`${t.url}/dashboard/login`);
    await page.getByLabel('E-mail').fill(EMAIL);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByTestId('unverified').getByRole('link', { name: 'Enter the code from the mail' }).click();
    await page.waitForURL(/\/dashboard\/verify\?email=/);
    assert.equal(await page.getByLabel('E-mail').inputValue(), EMAIL);

    // Unverified accounts cannot log in (v1's 31000): the v1 API says so too.
    const v1 = await t.request('/v1/accounts/login', {
      method: 'POST',
      json: { email: EMAIL, password: PASSWORD },
    });
    assert.deepEqual(await v1.json(), { code: 31000, message: 'EmailNotVerified' });

    const code = await latestCode(t, EMAIL, /verification code/);
    await page.getByLabel('Code').fill(code);
    await screenshot(page, 'verify');
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.waitForURL(/\/dashboard\/login/);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForURL(/\/dashboard\/locks$/);
    assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'Locks');
  });

  it('unlocks API Settings with the mailed code, creates a key that works, deletes it: 401', async () => {
    await page.getByRole('link', { name: 'API Settings' }).click();
    await page.waitForURL(/\/dashboard\/api-settings$/);
    assert.equal(await page.getByRole('button', { name: 'Add a key' }).count(), 0, 'no keys before the code');
    await page.getByRole('button', { name: 'Send me a code' }).click();
    await page.getByText(`We sent a 6-digit code to ${EMAIL}`).waitFor();
    const code = await latestCode(t, EMAIL, /API Settings code/);
    await page.getByLabel('Verification code').fill(code);
    await page.getByRole('button', { name: 'Confirm' }).click();
    await page.getByRole('button', { name: 'Add a key' }).click();
    await page.waitForURL(/\/dashboard\/api-settings\/secret\/[A-Za-z0-9_-]{22}$/);
    const key = (await page.getByTestId('revealed-key').textContent())?.trim() ?? '';
    assert.match(key, /^lck_[A-Za-z0-9_-]{32}$/);
    await screenshot(page, 'api-settings');

    // A reload after "Add a key" makes no second key and does not show this one again.
    await page.reload();
    await page.getByText(/cannot show it again/).waitFor();
    assert.equal(await page.getByTestId('revealed-key').count(), 0);
    assert.equal(await page.getByTestId('keys').locator('tbody tr').count(), 1);
    assert.ok(!(await page.content()).includes(key));

    const listed = await t.request('/public/locks', { key });
    assert.equal(listed.status, 200);
    assert.deepEqual(await listed.json(), []);

    // Refreshing shows the prefix only, never the key again; the key's use shows as "last used".
    await page.goto(`${t.url}/dashboard/api-settings`);
    assert.equal(await page.getByTestId('revealed-key').count(), 0);
    const row = page.getByTestId('keys').locator('tbody tr');
    assert.equal(await row.count(), 1);
    const text = (await row.textContent()) ?? '';
    assert.ok(text.includes(key.slice(0, 10)) && !text.includes(key), text);
    assert.doesNotMatch(text, /never\s*Delete/, 'last used is shown');
    assert.ok(!(await page.content()).includes(key), 'the full key is not in the page any more');

    await page.getByRole('button', { name: /Delete key/ }).click();
    await page.getByText('The key is deleted').waitFor();
    const refused = await t.request('/public/locks', { key });
    assert.equal(refused.status, 401);
    assert.deepEqual(await refused.json(), { error: 'UNAUTHORIZED' });
    assert.equal(await page.getByTestId('no-keys').count(), 1);
  });

  it('ran without script errors or CSP violations', () => {
    assert.deepEqual(errors, []);
  });
});
