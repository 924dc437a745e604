/**
 * In a real browser (issue 22, point 6): the owner sets auto-lock and the battery thresholds in a lock
 * card's settings, then sees, without a reload, what the sandbox does to the lock come through the
 * event stream: the door opened, a jam and its clearing, the battery falling under the new threshold,
 * and the lock's own auto-lock relocking it on the sandbox clock.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Locator, Page } from 'playwright-core';
import {
  advanceClock,
  LOCK_A,
  OWNER,
  OWNER_KEY,
  simLockOk,
  startServer,
  type TestServer,
} from '../support/server.ts';
import { launchBrowser, watchForErrors } from './support.ts';

describe('dashboard in a browser: a lock card shows its health live; the owner sets auto-lock', () => {
  let t: TestServer;
  let browser: Browser;
  let page: Page;
  let errors: string[];
  const card = (): Locator => page.locator(`section[data-device-id="${LOCK_A}"]`);
  const pill = (field: string): Locator => card().locator(`[data-field="${field}"]`);

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

  it('sets auto-lock and the thresholds in the Settings fold', async () => {
    await card().locator('details.lock-more > summary').click();
    await card().getByLabel('Auto-lock after (seconds)').fill('30');
    await card().getByLabel('Battery low under (%)').fill('30');
    await card().getByLabel('Battery critical under (%)').fill('15');
    await card().getByRole('button', { name: 'Save' }).click();
    await page.waitForURL(/\/dashboard\/locks\?note=/);
    assert.equal(
      await page.getByTestId('notice').textContent(),
      'Settings saved for Front door: auto-lock after 30 s, battery low under 30 %, critical under 15 %.',
    );
    assert.equal(await pill('summary-auto-lock').textContent(), 'auto-lock after 30 s');
    const ext = (await (await t.request(`/ext/locks/${LOCK_A}`, { key: OWNER_KEY })).json()) as Record<
      string,
      unknown
    >;
    assert.deepEqual([ext.auto_lock_seconds, ext.battery_low, ext.battery_critical], [30, 30, 15]);
  });

  it('a bad value is shown next to its field', async () => {
    await card().locator('details.lock-more > summary').click();
    await card().getByLabel('Battery critical under (%)').fill('40');
    await card().getByRole('button', { name: 'Save' }).click();
    await page.waitForURL(/\/dashboard\/locks\?refused=/);
    assert.equal(
      await card().locator(`#battery_critical-${LOCK_A}-error`).textContent(),
      'The critical level (40 %) must be under the low one (30 %).',
    );
    assert.equal(await card().getByLabel('Battery critical under (%)').inputValue(), '40', 'refilled');
  });

  it('door, jam, battery state and the auto relock appear live, without a reload', async () => {
    await page.goto(`${t.url}/dashboard/locks`);
    await page.locator('main[data-live="stream"]').waitFor({ timeout: 10_000 });
    // Set on this page only: a reload or a navigation would lose it.
    await page.evaluate('window.stayed = true');
    assert.equal(await pill('door').textContent(), 'Door closed', "the simulator's locks have a sensor");
    assert.equal(await pill('jammed').isVisible(), false);

    await simLockOk(t, LOCK_A, { door: 'open' });
    await pill('door').filter({ hasText: 'Door open' }).waitFor({ state: 'visible', timeout: 10_000 });

    await simLockOk(t, LOCK_A, { jammed: true });
    await pill('jammed').waitFor({ state: 'visible', timeout: 10_000 });
    assert.equal(await pill('jammed').textContent(), 'Jammed');
    await simLockOk(t, LOCK_A, { jammed: false, door: 'closed' });
    await pill('jammed').waitFor({ state: 'hidden', timeout: 10_000 });
    await pill('door').filter({ hasText: 'Door closed' }).waitFor({ timeout: 10_000 });

    await simLockOk(t, LOCK_A, { battery: 25 });
    await pill('battery').filter({ hasText: 'Battery 25% · low' }).waitFor({ timeout: 10_000 });
    assert.equal(await pill('battery').getAttribute('data-state'), 'low');

    // Unlocked by hand, then the lock's own auto-lock relocks it 30 s later on the sandbox clock.
    await simLockOk(t, LOCK_A, { locked: false });
    await pill('locked').filter({ hasText: 'Unlocked' }).waitFor({ timeout: 10_000 });
    await advanceClock(t, 31);
    await pill('locked')
      .filter({ hasText: /^Locked$/ })
      .waitFor({ timeout: 10_000 });

    assert.equal(await page.evaluate('window.stayed'), true, 'no reload');
    assert.deepEqual(errors, []);
  });
});
