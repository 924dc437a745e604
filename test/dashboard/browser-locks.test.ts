/**
 * In a real browser, as the seeded owner: set a webhook in API Settings and see the delivery of an
 * unlock made from the locks page; turn integration off and see CLOUD_INTEGRATION_NOT_ENABLED; the
 * mobile app and a flat battery shown as readable refusals. Grants: browser-grants.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Locator, Page } from 'playwright-core';
import {
  LOCK_A,
  LOCK_B,
  OWNER,
  OWNER_KEY,
  sendCommand,
  simLockOk,
  startServer,
  type TestServer,
} from '../support/server.ts';
import { type Receiver, startReceiver } from '../support/webhook-receiver.ts';
import { latestCode, launchBrowser, watchForErrors } from './support.ts';

describe('dashboard in a browser: locks, commands, webhook, integration', () => {
  let t: TestServer;
  let receiver: Receiver;
  let browser: Browser;
  let page: Page;
  let errors: string[];
  const card = (deviceId: string): Locator => page.locator(`section[data-device-id="${deviceId}"]`);
  /** A lock's settings (integration, app, guests) are folded away: opens them. */
  async function settingsOf(deviceId: string): Promise<Locator> {
    const fold = card(deviceId).locator('details.lock-more');
    if ((await fold.getAttribute('open')) === null) await fold.locator(':scope > summary').click();
    return fold;
  }

  before(async () => {
    // The browser first: were it missing, no server would be left running to hold the test open.
    browser = await launchBrowser();
    [t, receiver] = await Promise.all([startServer({ flags: ['--no-rate-limit'] }), startReceiver()]);
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
    await receiver?.close();
    await t?.close();
  });

  it('configures the webhook in API Settings (secret shown once) and sends a test', async () => {
    await page.getByRole('link', { name: 'API Settings' }).click();
    await page.getByRole('button', { name: 'Send me a code' }).click();
    await page.getByLabel('Verification code').fill(await latestCode(t, OWNER, /API Settings code/));
    await page.getByRole('button', { name: 'Confirm' }).click();
    await page.getByLabel('URL').fill(`${receiver.url}/hook/{device_id}/{state}`);
    await page.getByLabel('Method').selectOption('POST');
    await page.getByRole('button', { name: 'Save webhook' }).click();
    assert.match((await page.getByTestId('revealed-webhook-secret').textContent()) ?? '', /^whsec_/);
    await page.getByRole('button', { name: 'Send test' }).click();
    await receiver.waitFor(1);
    await page.getByTestId('deliveries').getByRole('cell', { name: 'test', exact: true }).waitFor();
    // A reload after "Send test" shows the page again and sends nothing.
    await page.reload();
    await page.getByTestId('deliveries').waitFor();
    assert.equal(await page.getByTestId('deliveries').locator('tbody tr').count(), 1);
  });

  it('the delivery log shows a new message without a reload, naming the lock and its new state', async () => {
    // Set on this page only: a reload or a navigation would lose it.
    await page.evaluate('window.stayed = true');
    // The back door starts unlocked: locked, then unlocked again, each change a message of its own.
    assert.equal((await sendCommand(t, LOCK_B, 'lock', OWNER_KEY)).status, 200);
    const log = page.getByTestId('deliveries');
    const locked = log.locator('tbody tr', { hasText: 'Back door — locked' });
    await locked.waitFor({ timeout: 15_000 });
    assert.match((await locked.textContent()) ?? '', /state changed/);
    assert.equal(await page.evaluate('window.stayed'), true, 'the page was not reloaded');
    assert.equal((await sendCommand(t, LOCK_B, 'unlock', OWNER_KEY)).status, 200);
    await log.locator('tbody tr', { hasText: 'Back door — unlocked' }).waitFor({ timeout: 15_000 });
    assert.equal(await page.evaluate('window.stayed'), true, 'the page was not reloaded');
  });

  it('unlocks from the locks page, shows the task until it ends, and the delivery is logged', async () => {
    await page.getByRole('link', { name: 'Locks' }).click();
    const front = card(LOCK_A);
    assert.equal(await front.locator('[data-field="locked"]').textContent(), 'Locked');
    // Locked: Unlock is the emphasised command; once unlocked, Lock is.
    assert.equal(await front.getByRole('button', { name: 'Unlock' }).getAttribute('class'), 'primary');
    assert.equal(
      await front.getByRole('button', { name: 'Lock', exact: true }).getAttribute('class'),
      'secondary',
    );
    await front.getByRole('button', { name: 'Unlock' }).click();
    await front.locator('[data-field="task"]').getByText('Unlocked.').waitFor();
    await front.locator('[data-field="locked"]').getByText('Unlocked').waitFor();
    await front.locator('button.primary[data-command="lock"]').waitFor();
    assert.equal(await front.getByRole('button', { name: 'Unlock' }).getAttribute('class'), 'secondary');
    // After the test message and the back door's two changes (the test before).
    const hooks = await receiver.waitFor(4);
    assert.equal(hooks[3]?.url, `/hook/${LOCK_A}/unlocked`);

    await page.getByRole('link', { name: 'API Settings' }).click();
    const row = page.getByTestId('deliveries').locator('tbody tr', { hasText: 'Front door — unlocked' });
    await row.getByText('delivered').waitFor();
  });

  it('shows a change made elsewhere (the lock turned by hand) without a reload', async () => {
    await page.getByRole('link', { name: 'Locks' }).click();
    await simLockOk(t, LOCK_A, { locked: true });
    await card(LOCK_A)
      .locator('[data-field="locked"]')
      .getByText('Locked', { exact: true })
      .waitFor({ timeout: 8000 });
  });

  it('turns integration off: the page and the v3 API both refuse with CLOUD_INTEGRATION_NOT_ENABLED', async () => {
    await (await settingsOf(LOCK_A)).getByRole('button', { name: 'Turn off' }).click();
    await page.getByText('Cloud integration is off for Front door.').waitFor();
    const v3 = await sendCommand(t, LOCK_A, 'unlock', OWNER_KEY);
    assert.equal(v3.status, 400);
    assert.deepEqual(await v3.json(), { error: 'CLOUD_INTEGRATION_NOT_ENABLED' });
    await card(LOCK_A).getByRole('button', { name: 'Unlock' }).click();
    await card(LOCK_A)
      .locator('[data-field="task"]')
      .getByText(/Cloud integration is off/)
      .waitFor();
    await (await settingsOf(LOCK_A)).getByRole('button', { name: 'Turn on' }).click();
    await page.getByText('Cloud integration is on for Front door.').waitFor();
  });

  it('plays the mobile app: while it is open a command is refused as busy, readably', async () => {
    await (await settingsOf(LOCK_B)).getByRole('button', { name: 'Open the app' }).click();
    await page.getByText(/The mobile app is open/).waitFor();
    await (await settingsOf(LOCK_B)).locator('[data-field="app"]').getByText(/Open/).waitFor();
    await card(LOCK_B).getByRole('button', { name: 'Lock', exact: true }).click();
    await card(LOCK_B)
      .locator('[data-field="task"]')
      .getByText(/mobile app holds/)
      .waitFor();
    await card(LOCK_B).getByRole('button', { name: 'Close the app' }).click();
    await page.getByText(/The mobile app is closed/).waitFor();
  });

  it('refuses lock and unlock on a flat battery, readably', async () => {
    await simLockOk(t, LOCK_B, { battery: 3 });
    await page.reload();
    await card(LOCK_B).getByRole('button', { name: 'Lock', exact: true }).click();
    await card(LOCK_B)
      .locator('[data-field="task"]')
      .getByText(/battery is too low/)
      .waitFor();
  });

  it('ran without script errors or CSP violations', () => {
    assert.deepEqual(errors, []);
  });
});
