/**
 * Grants on the dashboard (issue 23, docs/locks.md "Grants"): the owner invites an account to a lock
 * from its card, sees every grant with its state, edits and revokes it; the guest accepts or
 * declines its invitations, and commands a lock through an accepted operate grant within its window
 * (the sandbox clock moved, never slept on), as the grant: a view guest is refused and nothing moves.
 * Every form is Post/Redirect/Get; a refusal shows next to its field.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { wallClockOf } from '../../src/http/dashboard/grant-form.ts';
import { clockTo, type GrantJson, GUEST, grantSeed, UNVERIFIED } from '../http/ext/grant-support.ts';
import { LOCK_A, LOCK_B, OTHER, OWNER, OWNER_KEY, startServer, type TestServer } from '../support/server.ts';
import { FormClient } from './support.ts';

const noticeOf = (page: string) => /data-testid="notice">([^<]*)</.exec(page)?.[1];
const fieldErrors = (page: string) =>
  Object.fromEntries(
    [...page.matchAll(/<p class="field-error" id="([^"]+)-error">([^<]*)</g)].map((m) => [m[1], m[2]]),
  );
/** The ids of the grant rows of the lock's card, with their state, in page order. */
const grantRows = (page: string) =>
  [
    ...page.matchAll(
      /<li class="grant grant-(\w+)" data-grant-id="([^"]+)">\s*<div class="grant-line"><span class="grant-email">([^<]+)</g,
    ),
  ].map((m) => ({ state: m[1], id: m[2] ?? '', email: m[3] }));
const invitationIds = (page: string) =>
  [...page.matchAll(/<li class="invitation" data-grant-id="([^"]+)">/g)].map((m) => m[1]);
const hasCard = (page: string, deviceId: string) => page.includes(`data-device-id="${deviceId}"`);

async function grantsOf(t: TestServer, deviceId: string): Promise<GrantJson[]> {
  const res = await t.request(`/ext/locks/${deviceId}/grants`, { key: OWNER_KEY });
  assert.equal(res.status, 200);
  return ((await res.json()) as { grants: GrantJson[] }).grants;
}

async function simNow(t: TestServer): Promise<number> {
  return ((await (await t.request('/_sim/clock')).json()) as { epoch_ms: number }).epoch_ms;
}

async function lockedOf(t: TestServer, deviceId: string): Promise<boolean> {
  const res = await t.request(`/ext/locks/${deviceId}`, { key: OWNER_KEY });
  return ((await res.json()) as { locked: boolean }).locked;
}

describe('dashboard: grants', () => {
  let t: TestServer;
  let owner: FormClient;
  let guest: FormClient;
  let other: FormClient;
  before(async () => {
    t = await startServer({ seed: grantSeed(), flags: ['--no-rate-limit'] });
    owner = new FormClient(t);
    guest = new FormClient(t);
    other = new FormClient(t);
    await owner.logIn(OWNER, 'owner-password');
    await guest.logIn(GUEST, 'guest-password');
    await other.logIn(OTHER, 'other-password');
  });
  after(() => t.close());

  it('refusals are shown next to their field and invite nobody', async () => {
    const invite = (fields: Record<string, string>) =>
      owner.send(`/dashboard/locks/${LOCK_B}/grants`, { role: 'view', schedule_form: '1', ...fields });
    const id = `inv-${LOCK_B}`;
    const unknown = await invite({ email: 'nobody@example.com' });
    const unverified = await invite({ email: UNVERIFIED });
    for (const page of [unknown, unverified]) {
      assert.equal(page.posted, 303);
      assert.equal(page.status, 400);
      assert.equal(noticeOf(page.text), 'Check the form.');
      assert.match(page.text, /<details class="lock-more" open>/);
    }
    assert.equal(
      fieldErrors(unknown.text)[`${id}-email`],
      'No lockcloud account can be invited at that address.',
    );
    assert.equal(fieldErrors(unverified.text)[`${id}-email`], fieldErrors(unknown.text)[`${id}-email`]);
    // The form is refilled as sent.
    assert.match(unknown.text, /name="email" type="email" value="nobody@example.com"/);

    const now = await simNow(t);
    const backwards = await invite({
      email: GUEST,
      starts_at: wallClockOf(now + 7_200_000, 'UTC'),
      ends_at: wallClockOf(now + 3_600_000, 'UTC'),
    });
    assert.equal(backwards.status, 400);
    assert.equal(fieldErrors(backwards.text)[`${id}-ends`], 'The end must be after the start.');
    const noTimes = await invite({ email: GUEST, day_mon: 'on' });
    assert.equal(fieldErrors(noTimes.text)[`${id}-schedule`], 'Enter both times of day: from and to.');
    const noDays = await invite({ email: GUEST, schedule_start: '08:00', schedule_end: '18:00' });
    assert.equal(fieldErrors(noDays.text)[`${id}-schedule`], 'Tick at least one day.');
    const notADate = await invite({ email: GUEST, starts_at: '2026-02-30T08:00' });
    assert.match(fieldErrors(notADate.text)[`${id}-starts`] ?? '', /^Enter a date and a time/);
    const viewOnce = await invite({ email: GUEST, one_time: 'on' });
    assert.equal(fieldErrors(viewOnce.text)[`${id}-one_time`], 'Only an operate grant can be one-time.');

    // Without this browser's CSRF token: 403, and no grant.
    const forged = await owner.post(`/dashboard/locks/${LOCK_B}/grants`, {
      _csrf: 'not-the-token',
      email: GUEST,
      role: 'view',
    });
    assert.equal(forged.status, 403);
    // Not the owner: the guest of LOCK_A cannot invite to it.
    const notOwner = await other.send(`/dashboard/locks/${LOCK_A}/grants`, { email: GUEST, role: 'view' });
    assert.equal(notOwner.status, 404);
    assert.deepEqual(
      (await grantsOf(t, LOCK_B)).map((g) => g.guest_email),
      [],
      'nobody was invited to the back door',
    );
    assert.equal((await grantsOf(t, LOCK_A)).length, 1, 'the front door has its one share only');
  });

  it('invite, then a second invitation is a conflict; the guest sees an invitation, not the lock', async () => {
    const done = await owner.submit(`/dashboard/locks/${LOCK_B}/grants`, {
      email: GUEST,
      role: 'view',
      schedule_form: '1',
    });
    assert.equal(
      noticeOf(done.text),
      `${GUEST} is invited to Back door: the lock is theirs to use once they accept.`,
    );
    const [row] = grantRows(done.text);
    assert.deepEqual({ state: row?.state, email: row?.email }, { state: 'pending', email: GUEST });
    assert.match(done.text, /data-field="grant-now">waiting for an answer</);

    const again = await owner.send(`/dashboard/locks/${LOCK_B}/grants`, { email: GUEST, role: 'operate' });
    assert.equal(again.status, 400);
    assert.match(
      fieldErrors(again.text)[`inv-${LOCK_B}-email`] ?? '',
      /has a pending grant of this lock already/,
    );

    const page = await guest.get('/dashboard/locks');
    assert.deepEqual(invitationIds(page.text), [row?.id]);
    assert.match(page.text, /<strong>Back door<\/strong> <span class="muted">from owner@example.com</);
    // The terms are read on the lock's clock, named before the guest sees the lock.
    assert.match(page.text, /View · no time limit · at any time \(UTC\)/);
    assert.equal(hasCard(page.text, LOCK_B), false, 'no card before accepting');
  });

  it('the guest accepts: the lock is in its list, view only, without command buttons', async () => {
    const [grant] = await grantsOf(t, LOCK_B);
    assert.ok(grant);
    const done = await guest.submit(`/dashboard/invitations/${grant.id}/accept`, {});
    assert.equal(noticeOf(done.text), 'You accepted the invitation: Back door is in your locks.');
    assert.deepEqual(invitationIds(done.text), []);
    assert.ok(hasCard(done.text, LOCK_B));
    const card = done.text.slice(done.text.indexOf(`data-device-id="${LOCK_B}"`));
    assert.doesNotMatch(card.slice(0, card.indexOf('</section>')), /data-command=/);
    assert.equal((await grantsOf(t, LOCK_B))[0]?.state, 'accepted');
    // Accepting again: nothing to accept.
    const twice = await guest.send(`/dashboard/invitations/${grant.id}/accept`, {});
    assert.equal(twice.status, 404);
  });

  it('a view guest cannot command: 403 with the reason, and the lock does not move', async () => {
    const before = await lockedOf(t, LOCK_B);
    const refused = await guest.send(`/dashboard/locks/${LOCK_B}/command`, {
      command: before ? 'unlock' : 'lock',
    });
    assert.equal(refused.posted, 303);
    assert.equal(refused.status, 403);
    assert.equal(
      noticeOf(refused.text),
      'The grant is view only: it reads the lock, it does not operate it.',
    );
    const api = await fetch(`${t.url}/dashboard/api/locks/${LOCK_B}/commands`, {
      method: 'POST',
      headers: {
        cookie: guest.cookieHeader(),
        'x-csrf-token': guest.csrf,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ command: 'unlock' }),
    });
    assert.equal(api.status, 403);
    assert.equal(await lockedOf(t, LOCK_B), before);
  });

  it('the owner edits: operate within a window; the guest is refused before it and unlocks in it, as the grant', async () => {
    const [grant] = await grantsOf(t, LOCK_B);
    assert.ok(grant);
    const now = await simNow(t);
    const startsAt = now + 3_600_000;
    const edited = await owner.submit(`/dashboard/locks/${LOCK_B}/grants/${grant.id}`, {
      role: 'operate',
      starts_at: wallClockOf(startsAt, 'UTC'),
      ends_at: wallClockOf(now + 7_200_000, 'UTC'),
      schedule_form: '1',
    });
    assert.equal(noticeOf(edited.text), `The grant of ${GUEST} is saved.`);
    assert.match(edited.text, /data-field="grant-now">its window has not started yet</);
    const after = (await grantsOf(t, LOCK_B))[0];
    assert.equal(after?.role, 'operate');
    assert.equal(after?.state, 'accepted', 'the guest is not asked again');
    assert.equal(after?.starts_at, new Date(Math.floor(startsAt / 60_000) * 60_000).toISOString());

    // A refused edit: next to the field of that grant's form, which is left open.
    const bad = await owner.send(`/dashboard/locks/${LOCK_B}/grants/${grant.id}`, {
      role: 'operate',
      starts_at: wallClockOf(now + 7_200_000, 'UTC'),
      ends_at: wallClockOf(now + 3_600_000, 'UTC'),
    });
    assert.equal(bad.status, 400);
    assert.equal(fieldErrors(bad.text)[`g-${grant.id}-ends`], 'The end must be after the start.');
    assert.match(bad.text, /<details class="grant-edit" open>/);

    const page = await guest.get('/dashboard/locks');
    assert.match(page.text, /data-command="unlock"/, 'an operate guest has the buttons');
    const early = await guest.send(`/dashboard/locks/${LOCK_B}/command`, { command: 'unlock' });
    assert.equal(early.status, 403);
    assert.equal(noticeOf(early.text), 'Outside the grant window: it has not started yet.');

    await clockTo(t, new Date(startsAt + 60_000).toISOString());
    const wasLocked = await lockedOf(t, LOCK_B);
    const command = wasLocked ? 'unlock' : 'lock';
    const ran = await guest.submit(`/dashboard/locks/${LOCK_B}/command`, { command });
    assert.equal(noticeOf(ran.text), wasLocked ? 'Unlocked.' : 'Locked.');
    assert.equal(await lockedOf(t, LOCK_B), !wasLocked);
    const res = await t.request(`/ext/events?device_id=${LOCK_B}&type=lock.${command}ed&limit=50`, {
      key: OWNER_KEY,
    });
    const { events } = (await res.json()) as {
      events: { method: string; actor: { kind: string; grant_id?: string } }[];
    };
    const mine = events.filter((e) => e.actor.kind === 'grant');
    assert.equal(mine.length, 1, JSON.stringify(events));
    assert.deepEqual([mine[0]?.method, mine[0]?.actor.grant_id], ['dashboard', grant.id]);
  });

  it('a schedule of several times: a row each and an empty one; an emptied row goes, a bad row is named', async () => {
    const [grant] = await grantsOf(t, LOCK_B);
    assert.ok(grant);
    const url = `/dashboard/locks/${LOCK_B}/grants/${grant.id}`;
    const form = (page: string) =>
      page.slice(page.indexOf(`id="g-${grant.id}-from"`) - 4000, page.indexOf(`action="${url}/revoke"`));
    const saved = await owner.submit(url, {
      role: 'operate',
      schedule_form: '1',
      schedule_rows: '2',
      day_mon: 'on',
      day_fri: 'on',
      schedule_start: '08:00',
      schedule_end: '12:00',
      day_sat_1: 'on',
      schedule_start_1: '22:00',
      schedule_end_1: '24:00',
    });
    assert.equal(noticeOf(saved.text), `The grant of ${GUEST} is saved.`);
    assert.deepEqual((await grantsOf(t, LOCK_B))[0]?.schedule, [
      { days: ['mon', 'fri'], start: '08:00', end: '12:00' },
      { days: ['sat'], start: '22:00', end: '24:00' },
    ]);
    // The edit form: both times filled in, and a third row, empty, to add another.
    const shown = form(saved.text);
    assert.match(shown, /name="schedule_rows" value="3"/);
    assert.match(shown, /name="day_sat_1" value="on" checked/);
    assert.match(shown, /name="schedule_end_1" type="time" value="24:00"/);
    assert.match(shown, /name="schedule_start_2" type="time">/);
    assert.match(shown, /To<span class="visually-hidden">, time 2<\/span>/);

    // The first row emptied: the Saturday night is left.
    await owner.submit(url, {
      role: 'operate',
      schedule_form: '1',
      schedule_rows: '3',
      day_sat_1: 'on',
      schedule_start_1: '22:00',
      schedule_end_1: '24:00',
    });
    assert.deepEqual((await grantsOf(t, LOCK_B))[0]?.schedule, [
      { days: ['sat'], start: '22:00', end: '24:00' },
    ]);

    // A second row without days: refused, said by its row, nothing changed, the rows refilled.
    const bad = await owner.send(url, {
      role: 'operate',
      schedule_form: '1',
      schedule_rows: '2',
      day_sat: 'on',
      schedule_start: '22:00',
      schedule_end: '24:00',
      schedule_start_1: '06:00',
      schedule_end_1: '07:00',
    });
    assert.equal(bad.status, 400);
    assert.equal(fieldErrors(bad.text)[`g-${grant.id}-schedule`], 'Time 2: Tick at least one day.');
    assert.match(form(bad.text), /name="schedule_start_1" type="time" value="06:00"/);
    assert.deepEqual((await grantsOf(t, LOCK_B))[0]?.schedule, [
      { days: ['sat'], start: '22:00', end: '24:00' },
    ]);

    // Back to no schedule, as the tests after this one expect.
    await owner.submit(url, { role: 'operate', schedule_form: '1', schedule_rows: '2' });
    assert.equal((await grantsOf(t, LOCK_B))[0]?.schedule, null);
  });

  it('the owner revokes: at once the guest has no card and cannot command', async () => {
    const [grant] = await grantsOf(t, LOCK_B);
    assert.ok(grant);
    const done = await owner.submit(`/dashboard/locks/${LOCK_B}/grants/${grant.id}/revoke`, {});
    assert.equal(noticeOf(done.text), `The grant of ${GUEST} is revoked.`);
    assert.deepEqual(
      grantRows(done.text)
        .filter((r) => r.email === GUEST)
        .map((r) => r.state),
      ['revoked'],
      'a revoked grant is listed, without its forms',
    );
    assert.doesNotMatch(done.text, new RegExp(`/grants/${grant.id}/revoke`));
    const page = await guest.get('/dashboard/locks');
    assert.equal(hasCard(page.text, LOCK_B), false);
    const refused = await guest.send(`/dashboard/locks/${LOCK_B}/command`, { command: 'lock' });
    assert.equal(refused.status, 404);
  });

  it('a new invitation replaces the revoked grant; declining makes it disappear', async () => {
    await owner.submit(`/dashboard/locks/${LOCK_B}/grants`, {
      email: GUEST,
      role: 'operate',
      one_time: 'on',
    });
    const pending = (await grantsOf(t, LOCK_B)).find((g) => g.state === 'pending');
    assert.ok(pending);
    assert.equal(pending.one_time, true);
    const done = await guest.submit(`/dashboard/invitations/${pending.id}/decline`, {});
    assert.equal(noticeOf(done.text), 'You declined: Back door is not in your locks.');
    assert.deepEqual(invitationIds(done.text), []);
    assert.equal(hasCard(done.text, LOCK_B), false);
    assert.ok(grantRows((await owner.get('/dashboard/locks')).text).some((r) => r.state === 'declined'));
  });

  it('a withdrawn invitation disappears from the guest; another account cannot answer one', async () => {
    await owner.submit(`/dashboard/locks/${LOCK_B}/grants`, { email: GUEST, role: 'view' });
    const pending = (await grantsOf(t, LOCK_B)).find((g) => g.state === 'pending');
    assert.ok(pending);
    const stolen = await other.send(`/dashboard/invitations/${pending.id}/accept`, {});
    assert.equal(stolen.status, 404);
    const withdrawn = await owner.submit(`/dashboard/locks/${LOCK_B}/grants/${pending.id}/revoke`, {});
    assert.equal(noticeOf(withdrawn.text), `The invitation of ${GUEST} is withdrawn.`);
    assert.deepEqual(invitationIds((await guest.get('/dashboard/locks')).text), []);
    const late = await guest.send(`/dashboard/invitations/${pending.id}/accept`, {});
    assert.equal(late.status, 404);
    assert.equal(noticeOf(late.text), 'No such invitation.');
  });
});
