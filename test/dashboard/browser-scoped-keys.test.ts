/**
 * Issue 23 point 3 in a real browser: API Settings adds a key limited to scopes, a lock and an
 * expiry date (a forgotten scope refused beside its field first, the choices kept), the table shows
 * its limits, and once the key is used against /ext a reload shows its last use and client address.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { LOCK_A, LOCK_B, OWNER, startServer, type TestServer } from '../support/server.ts';
import { latestCode, launchBrowser, watchForErrors } from './support.ts';

describe('dashboard in a browser: a scoped, expiring API key', () => {
  let t: TestServer;
  let browser: Browser;
  let page: Page;
  let errors: string[];
  let key = '';
  // Ten days on, on the server's clock (the sandbox's may run ahead of this process's).
  let expires = '';
  before(async () => {
    browser = await launchBrowser();
    t = await startServer({ flags: ['--no-rate-limit'] });
    page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    errors = watchForErrors(page);
    const { epoch_ms } = (await (await t.request('/_sim/clock')).json()) as { epoch_ms: number };
    expires = new Date(epoch_ms + 10 * 86_400_000).toISOString().slice(0, 10);
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  const row = () => page.getByTestId('keys').locator('tbody tr').last();
  const cell = async (col: string) =>
    ((await row().locator(`[data-col="${col}"]`).textContent()) ?? '').trim();

  it('unlocks API Settings; a limited choice without a scope is refused beside the field', async () => {
    await page.goto(`${t.url}/dashboard/login`);
    await page.getByLabel('E-mail').fill(OWNER);
    await page.getByLabel('Password').fill('owner-password');
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForURL(/\/dashboard\/locks$/);
    await page.goto(`${t.url}/dashboard/api-settings`);
    await page.getByRole('button', { name: 'Send me a code' }).click();
    await page.getByText(`We sent a 6-digit code to ${OWNER}`).waitFor();
    await page.getByLabel('Verification code').fill(await latestCode(t, OWNER, /API Settings code/));
    await page.getByRole('button', { name: 'Confirm' }).click();
    await page.getByText('Confirmed.').waitFor();

    const form = page.getByTestId('add-key');
    await form.getByLabel('Only these scopes').check();
    await form.getByLabel('Front door').check();
    await form.getByLabel('Expires on (optional)').fill(expires);
    await form.getByRole('button', { name: 'Add a key' }).click();
    await page.getByText('Check the form.').waitFor();
    assert.equal(await page.locator('#f-scopes-error').textContent(), 'Choose at least one scope.');
    // The choices come back as they were sent.
    assert.ok(await form.getByLabel('Only these scopes').isChecked());
    assert.ok(await form.getByLabel('Front door').isChecked());
    assert.equal(await form.getByLabel('Expires on (optional)').inputValue(), expires);
    assert.equal(await page.getByTestId('revealed-key').count(), 0);
  });

  it('adds the key: shown once, its scopes, lock and expiry in the table', async () => {
    const form = page.getByTestId('add-key');
    await form.getByLabel('Name (optional)').fill('front door bot');
    await form.getByLabel('locks:operate').check();
    await form.getByLabel('events:read').check();
    await form.getByRole('button', { name: 'Add a key' }).click();
    await page.waitForURL(/\/dashboard\/api-settings\/secret\/[A-Za-z0-9_-]{22}$/);
    key = ((await page.getByTestId('revealed-key').textContent()) ?? '').trim();
    assert.match(key, /^lck_[A-Za-z0-9_-]{32}$/);
    // Drawn (a page that cannot be fails), not saved: README's API Settings picture is the sign-up test's.
    await page.screenshot({ fullPage: true });

    assert.match((await row().textContent()) ?? '', new RegExp(`${key.slice(0, 10)}…\\s*front door bot`));
    assert.equal(await cell('scopes'), 'locks:operate, events:read');
    assert.equal(await cell('locks'), 'Front door');
    assert.equal(await cell('expires'), `${expires} 00:00 UTC`);
    assert.equal(await cell('last-used'), 'never');
    assert.equal(await cell('last-ip'), '—');
    // The seeded key, made before limits, says so.
    assert.equal(
      await page.getByTestId('keys').locator('tbody tr').first().locator('[data-col="scopes"]').textContent(),
      'Full access',
    );
  });

  it('used against /ext, a reload shows its last use and client address', async () => {
    assert.equal((await t.request(`/ext/locks/${LOCK_A}`, { key })).status, 200);
    assert.equal((await t.request(`/ext/locks/${LOCK_B}`, { key })).status, 404, 'not its lock');
    await page.goto(`${t.url}/dashboard/api-settings`);
    assert.match(await cell('last-used'), /^\d{4}-\d\d-\d\d \d\d:\d\d UTC$/);
    assert.match(await cell('last-ip'), /^(127\.0\.0\.1|::1|::ffff:127\.0\.0\.1)$/);
    assert.ok(!(await page.content()).includes(key), 'the key is not shown again');

    // At phone width the wider table scrolls in its box, the form wraps: the page does not scroll sideways.
    await page.setViewportSize({ width: 390, height: 844 });
    const width = Number(await page.evaluate('document.documentElement.scrollWidth'));
    assert.ok(width <= 390, `${width} px wide`);
  });

  it('ran without script errors or CSP violations', () => {
    assert.deepEqual(errors, []);
  });
});
