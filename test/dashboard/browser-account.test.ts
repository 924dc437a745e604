/**
 * In a real browser: change the password (earlier v1 tokens answer 20003), set a first password for
 * a social-login account through a mailed code, and delete an account (tokens 20004, keys 401,
 * locks released).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { LOCK_A, OWNER, OWNER_KEY, standardSeed, startServer, type TestServer } from '../support/server.ts';
import { latestCode, launchBrowser, screenshot, watchForErrors } from './support.ts';

const SOCIAL = 'social@example.com';

async function v1Token(t: TestServer, email: string, password: string): Promise<string> {
  const res = await t.request('/v1/accounts/login', { method: 'POST', json: { email, password } });
  assert.equal(res.status, 200, `v1 login of ${email}`);
  return ((await res.json()) as { authorization: string }).authorization;
}

async function v1Locks(t: TestServer, token: string): Promise<{ status: number; body: unknown }> {
  const res = await t.request('/v1/locks', { headers: { 'x-authorization': token } });
  return { status: res.status, body: await res.json() };
}

describe('dashboard in a browser: password and account', () => {
  let t: TestServer;
  let browser: Browser;
  let page: Page;
  let errors: string[];

  async function logIn(email: string, password: string): Promise<void> {
    await page.goto(`${t.url}/dashboard/login`);
    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForURL(/\/dashboard\/locks$/);
  }

  before(async () => {
    const seed = standardSeed();
    seed.accounts?.push({ email: SOCIAL, password: null, verified: true });
    // The browser first: were it missing, no server would be left running to hold the test open.
    browser = await launchBrowser();
    t = await startServer({ seed, flags: ['--no-rate-limit'] });
    page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    errors = watchForErrors(page);
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  it('changes the password: the earlier v1 token answers 20003, the new password logs in', async () => {
    const before = await v1Token(t, OWNER, 'owner-password');
    await logIn(OWNER, 'owner-password');
    await page.getByRole('link', { name: 'Account' }).click();
    await page.getByLabel('Current password').fill('owner-password');
    await page.getByLabel('New password').fill('a-brand-new-password');
    await screenshot(page, 'account');
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByText('Your password is changed.').waitFor();
    assert.deepEqual(await v1Locks(t, before), {
      status: 401,
      body: { code: 20003, message: 'AuthTokenExpiredByPasswordChange' },
    });
    // This browser stays signed in, in a new session.
    await page.getByRole('link', { name: 'Locks' }).click();
    await page.waitForURL(/\/dashboard\/locks$/);
    const after = await v1Token(t, OWNER, 'a-brand-new-password');
    assert.equal((await v1Locks(t, after)).status, 200);
  });

  it('sets a first password for a social-login account with a mailed code', async () => {
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.waitForURL(/\/dashboard\/login/);
    await page.getByLabel('E-mail').fill(SOCIAL);
    await page.getByLabel('Password').fill('anything-at-all');
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByText(/has no password yet/).waitFor();
    await page.getByRole('link', { name: /Forgot password/ }).click();
    await page.getByLabel('E-mail').fill(SOCIAL);
    await page.getByRole('button', { name: 'Mail me a code' }).click();
    await page.waitForURL(/\/dashboard\/reset/);
    await page.getByLabel('Code from the mail').fill(await latestCode(t, SOCIAL, /password code/));
    await page.getByLabel('New password').fill('social-now-has-one');
    await page.getByRole('button', { name: 'Set password' }).click();
    await page.getByText('Your new password is set.').waitFor();
    await logIn(SOCIAL, 'social-now-has-one');
    assert.equal((await v1Locks(t, await v1Token(t, SOCIAL, 'social-now-has-one'))).status, 200);
  });

  it('deletes the account: v1 tokens 20004, API keys 401, its locks released', async () => {
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.waitForURL(/\/dashboard\/login/);
    const token = await v1Token(t, OWNER, 'a-brand-new-password');
    await logIn(OWNER, 'a-brand-new-password');
    await page.getByRole('link', { name: 'Account' }).click();
    await page.getByLabel('Your password, to confirm').fill('a-brand-new-password');
    await page.getByRole('button', { name: 'Delete my account' }).click();
    await page.getByText('Your account is deleted.').waitFor();
    assert.deepEqual(await v1Locks(t, token), {
      status: 401,
      body: { code: 20004, message: 'AccountDeleted' },
    });
    const keyed = await t.request('/public/locks', { key: OWNER_KEY });
    assert.equal(keyed.status, 401);
    // Released: the lock left the cloud, so the account it was shared with no longer sees it.
    const guest = await v1Locks(t, await v1Token(t, 'other@example.com', 'other-password'));
    const ids = (guest.body as { locks: { device_id: string }[] }).locks.map((l) => l.device_id);
    assert.ok(!ids.includes(LOCK_A), 'the released lock is gone from the guest list');
    // And the session ended with it.
    await page.goto(`${t.url}/dashboard/locks`);
    assert.match(page.url(), /\/dashboard\/login/);
  });

  it('ran without script errors or CSP violations', () => {
    assert.deepEqual(errors, []);
  });
});
