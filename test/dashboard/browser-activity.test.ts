/**
 * In a real browser, as the seeded owner: a few events made through the v3 API, the locks page's
 * buttons and a hand turn, then read in words on the lock's activity page (from the card's link) and
 * on the account's activity page with its type filter.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import {
  LOCK_A,
  OWNER,
  simLockOk,
  startServer,
  startTask,
  type TestServer,
  waitForTask,
} from '../support/server.ts';
import { launchBrowser, screenshot, watchForErrors } from './support.ts';

describe('dashboard in a browser: activity in words', () => {
  let t: TestServer;
  let browser: Browser;
  let page: Page;
  let errors: string[];
  const words = async (): Promise<string[]> =>
    page.getByTestId('activity').locator('td.event-words').allTextContents();

  before(async () => {
    browser = await launchBrowser();
    t = await startServer({ flags: ['--no-rate-limit'] });
    page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    errors = watchForErrors(page);
    await page.goto(`${t.url}/dashboard/login`);
    await page.getByLabel('E-mail').fill(OWNER);
    await page.getByLabel('Password').fill('owner-password');
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForURL(/\/dashboard\/locks$/);
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  it("reads a lock's events in words from its card's Activity link", async () => {
    // Unlocked through v3, locked with the page's button, then turned by hand.
    assert.equal((await waitForTask(t, await startTask(t, LOCK_A, 'unlock'))).successful, true);
    const card = page.locator(`section[data-device-id="${LOCK_A}"]`);
    await card.getByRole('button', { name: 'Lock', exact: true }).click();
    await card.locator('[data-field="task"]', { hasText: 'Locked.' }).waitFor({ timeout: 15_000 });
    await simLockOk(t, LOCK_A, { locked: false });

    await card.getByRole('link', { name: 'Activity' }).click();
    await page.waitForURL(new RegExp(`/dashboard/locks/${LOCK_A}/activity$`));
    await page.getByRole('heading', { name: 'Activity of Front door' }).waitFor();
    const said = await words();
    assert.equal(said[0], 'Unlocked by hand');
    assert.ok(said.includes('Locked from the dashboard'), said.join(' | '));
    assert.ok(said.includes('Lock succeeded (dashboard)'), said.join(' | '));
    assert.ok(
      said.some((w) => /^Unlocked by API key \S+… \(v3\)$/.test(w)),
      said.join(' | '),
    );
    // Who is a column of its own; the time is shown to the second, in UTC.
    const first = page.getByTestId('activity').locator('tbody tr').first();
    assert.match((await first.textContent()) ?? '', /\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC.*The device/);
    await screenshot(page, 'lock-activity');
  });

  it("the account's activity page, filtered to commands, links to the lock's page", async () => {
    await page.getByRole('link', { name: 'Account', exact: true }).click();
    await page.getByRole('link', { name: 'Account activity' }).click();
    await page.waitForURL(/\/dashboard\/account\/activity$/);
    const all = await words();
    assert.ok(all.includes('Locked from the dashboard'), all.join(' | '));
    await page.getByLabel('Show').selectOption('command.');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(/type=command\./);
    const commands = await words();
    assert.ok(commands.length >= 4, commands.join(' | '));
    assert.ok(
      commands.every((w) => /^(Lock|Unlock) (requested|succeeded)/.test(w)),
      commands.join(' | '),
    );
    // The lock column links to the lock's own page.
    await page.getByTestId('activity').getByRole('link', { name: 'Front door' }).first().click();
    await page.waitForURL(new RegExp(`/dashboard/locks/${LOCK_A}/activity$`));
    assert.deepEqual(errors, []);
  });
});
