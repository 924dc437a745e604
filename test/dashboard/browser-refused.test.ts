/**
 * Issue 20, point 2, in a real browser: a refused form redirects too, so reloading the page that
 * shows its errors sends nothing again. A refused sign-up, then a reload: one POST in all, the errors
 * and the typed address shown once, the plain form after the reload. A wrong verification code, then
 * reloads: one attempt spent, as the next wrong code's page says.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { startServer, type TestServer } from '../support/server.ts';
import { latestCode, launchBrowser, watchForErrors } from './support.ts';

describe('dashboard in a browser: a refused form, then a reload, posts nothing again', () => {
  let t: TestServer;
  let browser: Browser;
  let page: Page;
  let errors: string[];
  /** Every POST the browser sent, by path. */
  const posts: string[] = [];
  before(async () => {
    browser = await launchBrowser();
    t = await startServer({ flags: ['--no-rate-limit'] });
    page = await browser.newPage({ viewport: { width: 1200, height: 800 } });
    errors = watchForErrors(page);
    page.on('request', (request) => {
      if (request.method() === 'POST') posts.push(new URL(request.url()).pathname);
    });
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  it('a refused sign-up redirects to its page; a reload shows the plain form and does not post again', async () => {
    await page.goto(`${t.url}/dashboard/signup`);
    await page.getByLabel('E-mail').fill('not-an-address');
    await page.getByLabel('Password').fill('short');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByText('Check the form.').waitFor();
    assert.match(page.url(), /\/dashboard\/signup\?refused=[A-Za-z0-9_-]{22}$/);
    assert.deepEqual(posts, ['/dashboard/signup']);
    assert.match((await page.locator('#f-email-error').textContent()) ?? '', /is not an e-mail address/);
    assert.match((await page.locator('#f-password-error').textContent()) ?? '', /password/i);
    assert.equal(await page.getByLabel('E-mail').inputValue(), 'not-an-address');
    assert.equal(await page.getByLabel('Password').inputValue(), '', 'a password is never refilled');

    const reloaded = await page.reload();
    assert.equal(reloaded?.request().method(), 'GET');
    assert.equal(reloaded?.status(), 200);
    assert.deepEqual(posts, ['/dashboard/signup'], 'the reload sent no second sign-up');
    assert.equal(await page.getByTestId('notice').count(), 0);
    assert.equal(await page.locator('.field-error').count(), 0);
    assert.equal(await page.getByLabel('E-mail').inputValue(), '');
    // Back and forward again: still no POST.
    await page.goBack();
    await page.goForward();
    assert.deepEqual(posts, ['/dashboard/signup']);
    assert.deepEqual(errors, []);
  });

  it('a wrong verification code, then reloads: one attempt spent', async () => {
    const email = 'reloader@example.com';
    await page.goto(`${t.url}/dashboard/signup`);
    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('Password').fill('a-long-enough-password');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.waitForURL(/\/dashboard\/verify/);
    const code = await latestCode(t, email, /verification code/);
    const wrong = code.slice(0, 5) + String((Number(code[5]) + 1) % 10);
    posts.length = 0;
    await page.getByLabel('Code').fill(wrong);
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.getByText('This code does not work for this address').first().waitFor();
    assert.match(page.url(), /\/dashboard\/verify\?refused=/);
    assert.equal(await page.getByLabel('E-mail').inputValue(), email);
    for (let i = 0; i < 3; i++) await page.reload();
    assert.deepEqual(posts, ['/dashboard/verify'], 'the reloads sent no code');
    // The plain form: the address is typed again (the URL carries only the used handle).
    assert.equal(await page.getByLabel('E-mail').inputValue(), '');
    await page.getByLabel('E-mail').fill(email);
    // Three wrong codes more (four in all, of the five a code allows), then the right one works: had
    // the reloads spent attempts, the right code would be refused as one too many.
    for (let i = 0; i < 3; i++) {
      const before = page.url();
      await page.getByLabel('Code').fill(wrong);
      await page.getByRole('button', { name: 'Verify' }).click();
      await page.waitForURL((url) => url.href !== before && /\/dashboard\/verify\?refused=/.test(url.href));
    }
    await page.getByLabel('Code').fill(code);
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.waitForURL(/\/dashboard\/login\?ok=verified/);
    assert.equal(posts.length, 5, 'four wrong codes and the right one');
    assert.deepEqual(errors, []);
  });
});
