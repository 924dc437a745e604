/**
 * Issue 20, point 6, in a real browser: lock cards by name, the command that would change the lock
 * emphasised, rarely used settings folded so three locks fit on a laptop screen, and every page
 * without sideways scrolling at phone width (390 px), the address and "Log out" side by side. With
 * LOCKCLOUD_SCREENSHOTS=1 it writes docs/screenshots/locks.png and locks-phone.png.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { LOCK_A, OWNER, OWNER_KEY, sendCommand, startServer, type TestServer } from '../support/server.ts';
import { launchBrowser, screenshot, watchForErrors } from './support.ts';

const LAPTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };

async function logIn(page: Page, t: TestServer): Promise<void> {
  await page.goto(`${t.url}/dashboard/login`);
  await page.getByLabel('E-mail').fill(OWNER);
  await page.getByLabel('Password').fill('owner-password');
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.waitForURL(/\/dashboard\/locks$/);
}

const headings = (page: Page) => page.locator('section.card.lock:not(.lock-shared) h2').allTextContents();

describe('dashboard in a browser: the locks page as people use it, and phone width', () => {
  let t: TestServer;
  let browser: Browser;
  let page: Page;
  let errors: string[];

  before(async () => {
    // The browser first: were it missing, no server would be left running to hold the test open.
    browser = await launchBrowser();
    t = await startServer({ flags: ['--no-rate-limit'] });
    page = await browser.newPage({ viewport: LAPTOP });
    errors = watchForErrors(page);
    await logIn(page, t);
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  it('sorts the lock cards by name, case-insensitively', async () => {
    assert.deepEqual(await headings(page), ['Back door', 'Front door']);
    // A third lock whose name sorts first only when case is ignored ("a" < "B" < "F").
    await page.getByLabel('Nickname (optional)').fill('apple shed');
    await page.getByRole('button', { name: 'Add the lock' }).click();
    await page.getByText('A simulated lock is added').waitFor();
    assert.deepEqual(await headings(page), ['apple shed', 'Back door', 'Front door']);
  });

  it('emphasises the command that would change the lock, and keeps it so as the lock moves', async () => {
    const front = page.locator(`section[data-device-id="${LOCK_A}"]`);
    const primary = () => front.locator('.commands button.primary').allTextContents();
    assert.deepEqual(await primary(), ['Unlock']);
    assert.equal((await sendCommand(t, LOCK_A, 'unlock', OWNER_KEY)).status, 200);
    // Seen by the page's own refresh, without a reload.
    await front.locator('.commands button.primary[data-command="lock"]').waitFor({ timeout: 10_000 });
    assert.deepEqual(await primary(), ['Lock']);
  });

  it('folds integration, app and sharing away; three locks fit on a laptop screen', async () => {
    await page.goto(`${t.url}/dashboard/locks`);
    const cards = page.locator('section.card.lock:not(.lock-shared)');
    assert.equal(await cards.count(), 3);
    for (let i = 0; i < 3; i++) {
      const fold = cards.nth(i).locator('details.lock-more');
      assert.equal(await fold.getAttribute('open'), null, 'folded');
      assert.match(
        (await fold.locator(':scope > summary').textContent()) ?? '',
        /Settings\s+Integration on · app closed/,
      );
      assert.equal(await fold.getByRole('button', { name: /Turn (on|off)/ }).isVisible(), false);
    }
    const third = await cards.nth(2).boundingBox();
    assert.ok(third, 'the third card is drawn');
    assert.ok(
      third.y + third.height <= LAPTOP.height,
      `the third lock ends at ${third.y + third.height} px, past the ${LAPTOP.height} px screen`,
    );
    await screenshot(page, 'locks');

    // Opened, a fold shows the settings it holds.
    const first = cards.nth(0).locator('details.lock-more');
    await first.locator(':scope > summary').click();
    await first.getByRole('button', { name: 'Turn off' }).waitFor();
    await first.getByLabel('Invite (e-mail of a lockcloud account)').waitFor();
  });

  it('at 390 px no page scrolls sideways; the address and "Log out" share a line without overlapping', async () => {
    await page.setViewportSize(PHONE);
    for (const path of ['/dashboard/locks', '/dashboard/api-settings', '/dashboard/account']) {
      await page.goto(`${t.url}${path}`);
      const width = Number(await page.evaluate('document.documentElement.scrollWidth'));
      assert.ok(width <= PHONE.width, `${path}: ${width} px wide`);
      const who = await page.locator('.sidebar .who').boundingBox();
      const logOut = await page.getByRole('button', { name: 'Log out' }).boundingBox();
      assert.ok(who && logOut, `${path}: both drawn`);
      assert.ok(who.width > 40, `${path}: the address is shown (${who.width} px)`);
      assert.ok(who.x + who.width <= logOut.x, `${path}: the address ends before "Log out"`);
      assert.ok(logOut.x + logOut.width <= PHONE.width, `${path}: "Log out" is inside the screen`);
      assert.ok(Math.abs(who.y + who.height / 2 - (logOut.y + logOut.height / 2)) < 6, `${path}: one line`);
      if (path === '/dashboard/locks') await screenshot(page, 'locks-phone');
    }
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.waitForURL(/\/dashboard\/login/);
    for (const path of ['/dashboard/login', '/dashboard/signup', '/dashboard/verify', '/dashboard/forgot']) {
      await page.goto(`${t.url}${path}`);
      const width = Number(await page.evaluate('document.documentElement.scrollWidth'));
      assert.ok(width <= PHONE.width, `${path}: ${width} px wide`);
    }
    await page.setViewportSize(LAPTOP);
  });

  it('ran without script errors or CSP violations', () => {
    assert.deepEqual(errors, []);
  });
});
