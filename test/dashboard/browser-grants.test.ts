/**
 * Grants in a real browser (issue 23): the owner invites an account from the lock card, the guest
 * accepts the invitation on its locks page and gets the lock; the owner sets a weekly schedule, and
 * the guest's Lock button is refused outside it and carried out inside it (the sandbox clock moved
 * forward, never slept on); the owner revokes, and the lock is gone from the guest's page.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Locator, Page } from 'playwright-core';
import { clockTo, GUEST, grantSeed } from '../http/ext/grant-support.ts';
import { LOCK_B, OWNER, startServer, type TestServer } from '../support/server.ts';
import { launchBrowser, screenshot, watchForErrors } from './support.ts';

const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const clock = (ms: number) => new Date(ms).toISOString().slice(11, 16);

describe('dashboard in a browser: grants', () => {
  let t: TestServer;
  let browser: Browser;
  let owner: Page;
  let guest: Page;
  const errors: string[][] = [];
  const card = (page: Page, deviceId: string): Locator =>
    page.locator(`section[data-device-id="${deviceId}"]`);
  const notice = (page: Page) => page.getByTestId('notice');
  async function foldOf(page: Page): Promise<Locator> {
    const fold = card(page, LOCK_B).locator('details.lock-more');
    if ((await fold.getAttribute('open')) === null) await fold.locator(':scope > summary').click();
    return fold;
  }
  async function logIn(email: string, password: string): Promise<Page> {
    const page = await (await browser.newContext({ viewport: { width: 1200, height: 900 } })).newPage();
    errors.push(watchForErrors(page));
    await page.goto(`${t.url}/dashboard/login`);
    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForURL(/\/dashboard\/locks$/);
    return page;
  }

  before(async () => {
    browser = await launchBrowser();
    t = await startServer({ seed: grantSeed(), flags: ['--no-rate-limit'] });
    owner = await logIn(OWNER, 'owner-password');
    guest = await logIn(GUEST, 'guest-password');
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  it('the owner invites an account to operate the back door', async () => {
    const form = (await foldOf(owner)).locator('form.invite-form');
    await form.getByLabel('Invite (e-mail of a lockcloud account)').fill(GUEST);
    await form.getByLabel('Operate: also locks and unlocks it').check();
    await form.getByRole('button', { name: 'Invite to Back door' }).click();
    await notice(owner).getByText(`${GUEST} is invited to Back door`).waitFor();
    const row = card(owner, LOCK_B).locator('li.grant', { hasText: GUEST });
    assert.equal(await row.locator('[data-field="grant-state"]').textContent(), 'Pending');
  });

  it('the guest accepts: the back door is in its locks, with its buttons', async () => {
    await guest.reload();
    assert.equal(await card(guest, LOCK_B).count(), 0, 'not before accepting');
    await guest.getByRole('heading', { name: 'Pending invitations' }).waitFor();
    await screenshot(guest, 'invitations');
    await guest.getByRole('button', { name: 'Accept the invitation to Back door' }).click();
    await notice(guest).getByText('You accepted the invitation').waitFor();
    assert.equal(await guest.getByRole('heading', { name: 'Pending invitations' }).count(), 0);
    await card(guest, LOCK_B).getByRole('button', { name: 'Lock', exact: true }).waitFor();
  });

  it("a schedule: the guest's Lock is refused outside it and carried out inside it", async () => {
    const now = ((await (await t.request('/_sim/clock')).json()) as { epoch_ms: number }).epoch_ms;
    const opens = now + 3_600_000;
    const fold = await foldOf(owner);
    const row = fold.locator('li.grant', { hasText: GUEST });
    await row.locator('details.grant-edit > summary').click();
    const edit = row.locator('form.grant-form');
    await edit.getByLabel(DAYS[new Date(opens).getUTCDay()] ?? '', { exact: true }).check();
    await edit.getByLabel('From').fill(clock(opens));
    await edit.getByLabel('To').fill(clock(opens + 2 * 3_600_000));
    await edit.getByRole('button', { name: `Save the grant of ${GUEST}` }).click();
    await notice(owner).getByText(`The grant of ${GUEST} is saved.`).waitFor();
    const saved = card(owner, LOCK_B).locator('li.grant', { hasText: GUEST });
    assert.match((await saved.locator('.grant-terms').textContent()) ?? '', new RegExp(`${clock(opens)}–`));
    assert.equal(await saved.locator('[data-field="grant-now"]').textContent(), 'outside its schedule now');
    await foldOf(owner);
    await screenshot(owner, 'grants');

    await guest.reload();
    const lock = card(guest, LOCK_B);
    await lock.getByRole('button', { name: 'Lock', exact: true }).click();
    await lock.locator('[data-field="task"]').getByText('Outside the grant schedule').waitFor();

    await clockTo(t, new Date(opens + 60_000).toISOString());
    await guest.reload();
    await card(guest, LOCK_B).getByRole('button', { name: 'Lock', exact: true }).click();
    await card(guest, LOCK_B).locator('[data-field="task"]').getByText('Locked.').waitFor();
  });

  it('the owner revokes: the back door leaves the guest at once', async () => {
    const row = (await foldOf(owner)).locator('li.grant', { hasText: GUEST });
    await row.getByRole('button', { name: `Revoke the grant of ${GUEST}` }).click();
    await notice(owner).getByText(`The grant of ${GUEST} is revoked.`).waitFor();
    assert.equal(
      await card(owner, LOCK_B)
        .locator('li.grant', { hasText: GUEST })
        .locator('[data-field="grant-state"]')
        .textContent(),
      'Revoked',
    );
    await guest.reload();
    assert.equal(await card(guest, LOCK_B).count(), 0);
  });

  it('ran without script errors or CSP violations', () => {
    assert.deepEqual(errors.flat(), []);
  });
});
