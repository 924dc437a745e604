/**
 * The locks page follows the event stream (assets/locks.js): in Chromium, a lock turned by hand is
 * shown when the stream says so, with no polling; where the stream is refused, the page polls. The
 * stream is played by the test (Playwright answers the page's request for it with the wire format of
 * docs/events.md), so its resume and refusal can be seen; the last case runs against the real route.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { LOCK_A, OWNER, simLockOk, startServer, type TestServer } from '../support/server.ts';
import { launchBrowser, watchForErrors } from './support.ts';

const STREAM = '**/dashboard/api/events/stream';
const lockEvent = (id: string) =>
  `id: ${id}\nevent: lock_event\ndata: ${JSON.stringify({ id, type: 'lock.unlocked', device_id: LOCK_A, actor: { kind: 'device' }, method: 'manual', task_id: null, data: {} })}\n\n`;

describe('dashboard in a browser: the locks page follows the event stream', () => {
  let t: TestServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let errors: string[];
  /** The page's reads of the locks (each refresh is one). */
  let reads: number;
  const pill = () => page.locator(`section[data-device-id="${LOCK_A}"] [data-field="locked"]`);

  before(async () => {
    browser = await launchBrowser();
    t = await startServer({ flags: ['--no-rate-limit'] });
    context = await browser.newContext();
    const login = await context.newPage();
    await login.goto(`${t.url}/dashboard/login`);
    await login.getByLabel('E-mail').fill(OWNER);
    await login.getByLabel('Password').fill('owner-password');
    await login.getByRole('button', { name: 'Log in' }).click();
    await login.waitForURL(/\/dashboard\/locks$/);
    await login.close();
  });
  beforeEach(async () => {
    await page?.close();
    await simLockOk(t, LOCK_A, { locked: true });
    page = await context.newPage();
    errors = watchForErrors(page);
    reads = 0;
    page.on('request', (r) => {
      if (new URL(r.url()).pathname === '/dashboard/api/locks') reads++;
    });
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  it('shows a hand turn when the stream says a lock changed, without polling', async () => {
    let answer: (() => void) | undefined;
    const told = new Promise<void>((resolve) => {
      answer = resolve;
    });
    // The stream's answer waits until the lock was turned: until then the page has nothing to go by.
    await page.route(STREAM, async (route) => {
      await told;
      await route.fulfill({
        status: 200,
        headers: { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store' },
        // A long retry: the browser does not come back within the test.
        body: `retry: 600000\n\n: heartbeat\n\n${lockEvent('evt_0000000000000000000000000001')}`,
      });
    });
    await page.goto(`${t.url}/dashboard/locks`);
    assert.equal(await pill().textContent(), 'Locked');
    await simLockOk(t, LOCK_A, { locked: false });
    assert.equal(reads, 0, 'no poll while the stream is connecting');
    assert.equal(await page.locator('main').getAttribute('data-live'), null, 'not polling');
    answer?.();
    await pill().filter({ hasText: 'Unlocked' }).waitFor({ timeout: 10_000 });
    assert.equal(await page.locator('main').getAttribute('data-live'), 'stream');
    assert.ok(reads <= 2, `${reads} reads: one as the stream opened, one for its event`);
    assert.deepEqual(errors, []);
  });

  it('polls when the stream is refused (a server without it)', async () => {
    await page.route(STREAM, (route) =>
      route.fulfill({ status: 404, contentType: 'application/json', body: '{"error":"NOT_FOUND"}' }),
    );
    await page.goto(`${t.url}/dashboard/locks`);
    await page.locator('main[data-live="polling"]').waitFor({ timeout: 10_000 });
    await simLockOk(t, LOCK_A, { locked: false });
    await pill().filter({ hasText: 'Unlocked' }).waitFor({ timeout: 15_000 });
  });

  it('against the server itself: a hand turn comes through its stream', async () => {
    await page.goto(`${t.url}/dashboard/locks`);
    await page.locator('main[data-live="stream"]').waitFor({ timeout: 10_000 });
    await simLockOk(t, LOCK_A, { locked: false });
    await pill().filter({ hasText: 'Unlocked' }).waitFor({ timeout: 10_000 });
    assert.equal(await page.locator('main').getAttribute('data-live'), 'stream');
  });
});
