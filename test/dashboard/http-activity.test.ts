/**
 * The activity pages over plain HTTP: a lock's events and the account's log in words, newest first,
 * paged by "Older"; what a guest sees; everything escaped; the refusals: not signed in (to the login
 * page), a lock the account cannot see (404 page), a bad cursor or type (400 page).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Seed } from '../../src/app/seed/schema.ts';
import { ACTIVITY_PAGE_SIZE } from '../../src/http/dashboard/routes/activity.ts';
import {
  LOCK_A,
  LOCK_B,
  OTHER,
  OTHER_LOCK,
  OWNER,
  simLockOk,
  standardSeed,
  startServer,
  startTask,
  type TestServer,
  waitForTask,
} from '../support/server.ts';
import { FormClient } from './support.ts';

const NASTY = '<img src=x onerror=alert(1)>';
const seed: Seed = (() => {
  const s = standardSeed();
  return {
    ...s,
    locks: (s.locks ?? []).map((l) => (l.device_id === LOCK_B ? { ...l, nickname: NASTY } : l)),
  };
})();

/** The words of each row, in page order. */
const rows = (text: string): string[] =>
  [...text.matchAll(/<td class="event-words">([^<]*)<\/td>/g)].map((m) => m[1] ?? '');
const ids = (text: string): string[] => [...text.matchAll(/data-event-id="([^"]+)"/g)].map((m) => m[1] ?? '');
const olderLink = (text: string): string | undefined =>
  /<a rel="next" href="([^"]+)">Older<\/a>/.exec(text)?.[1]?.replaceAll('&amp;', '&');

describe('dashboard activity pages', () => {
  let t: TestServer;
  let owner: FormClient;
  let guest: FormClient;
  before(async () => {
    t = await startServer({ seed, flags: ['--no-rate-limit'] });
    // A v3 unlock of lock A, a hand turn back; lock B turned by hand more than a page's worth.
    assert.equal((await waitForTask(t, await startTask(t, LOCK_A, 'unlock'))).successful, true);
    await simLockOk(t, LOCK_A, { locked: true });
    for (let i = 0; i < ACTIVITY_PAGE_SIZE + 5; i++) await simLockOk(t, LOCK_B, { locked: i % 2 === 0 });
    owner = new FormClient(t);
    await owner.logIn(OWNER, 'owner-password');
    guest = new FormClient(t);
    await guest.logIn(OTHER, 'other-password');
  });
  after(() => t?.close());

  it("a lock's page says each event in words, newest first", async () => {
    const res = await owner.get(`/dashboard/locks/${LOCK_A}/activity`);
    assert.equal(res.status, 200);
    const words = rows(res.text);
    assert.equal(words[0], 'Locked by hand');
    assert.ok(
      words.some((w) => /^Unlocked by API key \S+… \(v3\)$/.test(w)),
      words.join(' | '),
    );
    assert.ok(
      words.some((w) => /^Unlock requested by API key \S+… \(v3\)$/.test(w)),
      words.join(' | '),
    );
    assert.ok(words.includes('Unlock succeeded (v3)'), words.join(' | '));
    const list = ids(res.text);
    assert.deepEqual([...list].sort().reverse(), list, 'newest first');
    assert.equal(olderLink(res.text), undefined, 'one page');
  });

  it('pages by the cursor: "Older" until the last page, each event once', async () => {
    const first = await owner.get(`/dashboard/locks/${LOCK_B}/activity`);
    assert.equal(rows(first.text).length, ACTIVITY_PAGE_SIZE);
    const next = olderLink(first.text);
    assert.ok(next, 'an Older link');
    const second = await owner.get(next);
    assert.equal(second.status, 200);
    assert.equal(olderLink(second.text), undefined);
    const all = [...ids(first.text), ...ids(second.text)];
    assert.equal(new Set(all).size, all.length);
    assert.equal(all.length, ACTIVITY_PAGE_SIZE + 5);
    assert.deepEqual([...all].sort().reverse(), all);
  });

  it('escapes what it shows: a nickname with markup is text', async () => {
    const res = await owner.get(`/dashboard/locks/${LOCK_B}/activity`);
    assert.ok(!res.text.includes(NASTY));
    assert.ok(res.text.includes('&lt;img src=x onerror=alert(1)&gt;'));
  });

  it("a guest sees the shared lock's movements without the owner's key or the share", async () => {
    const res = await guest.get(`/dashboard/locks/${LOCK_A}/activity`);
    assert.equal(res.status, 200);
    const words = rows(res.text);
    assert.ok(words.includes('Unlocked by API key (v3)'), words.join(' | '));
    assert.ok(!res.text.includes('owner-api'), 'no key prefix');
    assert.ok(words.every((w) => !/^Shared|^Share /.test(w)));
  });

  it("the account page lists the account's log, filtered by type", async () => {
    const res = await owner.get('/dashboard/account/activity');
    assert.equal(res.status, 200);
    assert.match(res.text, /<a href="\/dashboard\/locks\/[^"]+\/activity">/);
    const failed = await owner.get('/dashboard/account/activity?type=command.');
    const words = rows(failed.text);
    assert.ok(words.length > 0 && words.every((w) => /^(Unlock|Lock|Sync) /.test(w)), words.join(' | '));
    assert.match(failed.text, /<option value="command\." selected>/);
    // The other account's lock is not in the owner's log.
    assert.ok(!res.text.includes(OTHER_LOCK));
  });

  it('links from the lock card and the account page', async () => {
    assert.match(
      (await owner.get('/dashboard/locks')).text,
      new RegExp(`href="/dashboard/locks/${LOCK_A}/activity"`),
    );
    assert.match((await owner.get('/dashboard/account')).text, /href="\/dashboard\/account\/activity"/);
  });

  it('a lock the account cannot see, or none: the 404 page', async () => {
    for (const id of [OTHER_LOCK, '00000000-0000-4000-8000-00000000ffff', 'not a lock']) {
      const res = await owner.get(`/dashboard/locks/${encodeURIComponent(id)}/activity`);
      assert.equal(res.status, 404, id);
      assert.match(res.text, /No such lock or task in this account/);
      assert.match(res.res.headers.get('content-type') ?? '', /^text\/html/);
    }
  });

  it('a bad cursor or type: the 400 page naming it', async () => {
    const bad = await owner.get(`/dashboard/locks/${LOCK_A}/activity?cursor=evt_nope`);
    assert.equal(bad.status, 400);
    assert.match(bad.text, /Cursor: must be an event id/);
    const type = await owner.get('/dashboard/account/activity?type=LOCK!');
    assert.equal(type.status, 400);
    assert.match(type.text, /Type: must be an event type/);
    const cursor = await owner.get('/dashboard/account/activity?cursor=%3Cscript%3E');
    assert.equal(cursor.status, 400);
    assert.ok(!cursor.text.includes('<script>'));
  });

  it('not signed in: to the login page, as every page', async () => {
    for (const path of [`/dashboard/locks/${LOCK_A}/activity`, '/dashboard/account/activity']) {
      const res = await fetch(t.url + path, { redirect: 'manual' });
      assert.equal(res.status, 303, path);
      assert.equal(res.headers.get('location'), `/dashboard/login?next=${encodeURIComponent(path)}`);
    }
  });
});
