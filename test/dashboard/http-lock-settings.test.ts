/**
 * The lock card's health and the owner's settings form (issue 22, point 6; docs/locks.md): the card
 * shows the door, a jam, last seen, the battery state against the lock's own thresholds, the firmware
 * and the owner's access point; POST /dashboard/locks/{id}/settings sets auto-lock and the battery
 * thresholds through LockDetails.change as the session's actor, Post/Redirect/Get with a notice, each
 * refusal next to its field or on top, changing nothing; auto-lock on device protocol 1 is refused.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AP_HOME, type Rig, seededDevice, startRig } from '../support/devices.ts';
import { eventually } from '../support/eventually.ts';
import {
  LOCK_A,
  LOCK_B,
  OTHER,
  OTHER_LOCK,
  OWNER,
  OWNER_KEY,
  simLockOk,
  startServer,
  type TestServer,
} from '../support/server.ts';
import { FormClient } from './support.ts';

const noticeOf = (page: string) => /data-testid="notice">([^<]*)</.exec(page)?.[1];
const fieldErrors = (page: string) =>
  Object.fromEntries(
    [...page.matchAll(/<p class="field-error" id="([^"]+)-error">([^<]*)</g)].map((m) => [m[1], m[2]]),
  );
/** The card of one lock in the page. */
const cardOf = (page: string, deviceId: string) => {
  const start = page.indexOf(`data-device-id="${deviceId}"`);
  assert.ok(start >= 0, `no card for ${deviceId}`);
  const end = page.indexOf('</section>', start);
  return page.slice(start, end);
};

async function extLock(t: TestServer, deviceId: string): Promise<Record<string, unknown>> {
  const res = await t.request(`/ext/locks/${deviceId}`, { key: OWNER_KEY });
  assert.equal(res.status, 200);
  return (await res.json()) as Record<string, unknown>;
}

const settingsOf = async (t: TestServer, deviceId: string) => {
  const lock = await extLock(t, deviceId);
  return [lock.auto_lock_seconds, lock.battery_low, lock.battery_critical];
};

describe('dashboard: a lock card shows its health; the owner sets auto-lock and thresholds', () => {
  let t: TestServer;
  let owner: FormClient;
  before(async () => {
    t = await startServer({ flags: ['--no-rate-limit'] });
    owner = new FormClient(t);
    await owner.logIn(OWNER, 'owner-password');
  });
  after(() => t.close());

  it('the card: door, jam, battery state, last seen, firmware; the owner sees the access point', async () => {
    await simLockOk(t, LOCK_A, { door: 'open', jammed: true, firmware: 'lock-fw 3.1.0', battery: 15 });
    const page = await owner.get('/dashboard/locks');
    assert.equal(page.status, 200);
    const card = cardOf(page.text, LOCK_A);
    assert.match(card, /<li class="pill pill-danger" data-field="jammed"[^>]*>Jammed</);
    assert.match(card, /<span class="door door-open" data-field="door">Door open</);
    assert.match(card, /data-field="battery" data-state="low"[^>]*>Battery 15% · low</);
    assert.match(
      card,
      /Last seen <time data-field="last-seen" datetime="[^"]+Z" title="[^"]+ UTC">just now</,
    );
    assert.match(card, /data-field="firmware">lock-fw 3\.1\.0</);
    assert.match(card, /Access point <strong>[^<]+<\/strong>: <span data-field="ap-online">online</);
    assert.match(card, /device protocol <span data-field="ap-protocol">2</);

    const words = [
      ...(await owner.get(`/dashboard/locks/${LOCK_A}/activity`)).text.matchAll(
        /<td class="event-words">([^<]*)<\/td><td>([^<]*)</g,
      ),
    ].map((m) => `${m[1]} · ${m[2]}`);
    for (const said of [
      'Jammed: the bolt is blocked · The device',
      'Door opened · The device',
      'Battery low (15 %, under 20 %) · The device',
    ])
      assert.ok(words.includes(said), `${said} in ${JSON.stringify(words)}`);
    await simLockOk(t, LOCK_A, { door: null, jammed: false, battery: 100 });
    const calm = cardOf((await owner.get('/dashboard/locks')).text, LOCK_A);
    assert.match(calm, /data-field="jammed"[^>]*hidden>Jammed/, 'no jam: the pill is hidden');
    assert.match(calm, /<span class="door" data-field="door" hidden>/, 'no door sensor: no door shown');
    assert.match(calm, /data-state="ok"[^>]*>Battery 100%</);

    // The guest's card: the state only, no settings form, no access point.
    const guest = new FormClient(t);
    await guest.logIn(OTHER, 'other-password');
    const shared = cardOf((await guest.get('/dashboard/locks')).text, LOCK_A);
    assert.match(shared, /data-field="last-seen"/);
    assert.doesNotMatch(shared, /settings|access-point|auto_lock/);

    const json = (await (
      await fetch(`${t.url}/dashboard/api/locks`, { headers: { cookie: guest.cookieHeader() } })
    ).json()) as { now: string; shared: Record<string, unknown>[] };
    assert.ok(!Number.isNaN(Date.parse(json.now)));
    assert.deepEqual(Object.keys(json.shared[0] ?? {}).sort(), [
      'battery',
      'battery_per_day',
      'battery_state',
      'device_id',
      'door',
      'firmware',
      'jammed',
      'last_seen_at',
      'locked',
      'nickname',
      'responsive',
    ]);
  });

  it('saves auto-lock and thresholds: 303, a notice once, the battery read again as the session', async () => {
    const sent = await owner.send(`/dashboard/locks/${LOCK_B}/settings`, {
      auto_lock_seconds: '30',
      battery_low: '60',
      battery_critical: '15',
    });
    assert.equal(sent.posted, 303);
    assert.match(sent.location, /^\/dashboard\/locks\?note=/);
    assert.equal(sent.status, 200);
    assert.equal(
      noticeOf(sent.text),
      'Settings saved for Back door: auto-lock after 30 s, battery low under 60 %, critical under 15 %.',
    );
    assert.deepEqual(await settingsOf(t, LOCK_B), [30, 60, 15]);
    const card = cardOf(sent.text, LOCK_B);
    assert.match(card, /data-field="summary-auto-lock">auto-lock after 30 s</);
    assert.match(card, /id="battery_low-[^"]+" name="battery_low" [^>]*value="60"/);
    assert.match(card, /data-state="low"[^>]*>Battery 55% · low</, 'LOCK_B (55 %) is low under 60');
    // The crossing the new threshold makes is an event, by the dashboard session.
    const events = (await (
      await t.request(`/ext/events?device_id=${LOCK_B}&type=lock.battery&order=newest-first`, {
        key: OWNER_KEY,
      })
    ).json()) as { events: { type: string; actor: { kind: string } }[] };
    assert.deepEqual(
      events.events.slice(0, 1).map((e) => [e.type, e.actor.kind]),
      [['lock.battery_low', 'dashboard_session']],
    );
    // The activity page says it in words, with the threshold the owner just chose, and who.
    const activity = await owner.get(`/dashboard/locks/${LOCK_B}/activity`);
    assert.match(
      activity.text,
      /<td class="event-words">Battery low \(55 %, under 60 %\)<\/td><td>Dashboard<\/td>/,
    );
    const reload = await owner.get(sent.location);
    assert.equal(noticeOf(reload.text), undefined, 'the notice is shown once');
    await owner.submit(`/dashboard/locks/${LOCK_B}/settings`, {
      auto_lock_seconds: '0',
      battery_low: '20',
      battery_critical: '10',
    });
    assert.deepEqual(await settingsOf(t, LOCK_B), [0, 20, 10]);
  });

  it('bad values: each next to its field, typed values refilled, nothing changed', async () => {
    const before = await extLock(t, LOCK_A);
    const cases: [Record<string, string>, Record<string, RegExp>][] = [
      [
        { auto_lock_seconds: 'soon', battery_low: '101', battery_critical: '0' },
        {
          auto_lock_seconds: /^Must be an integer from 0 to 3600\.$/,
          battery_low: /^Must be an integer from 2 to 100\.$/,
          battery_critical: /^Must be an integer from 1 to 99\.$/,
        },
      ],
      [
        { auto_lock_seconds: '-1', battery_low: '20', battery_critical: '10' },
        { auto_lock_seconds: /0 to 3600/ },
      ],
      [
        { auto_lock_seconds: '3601', battery_low: '20', battery_critical: '10' },
        { auto_lock_seconds: /0 to 3600/ },
      ],
      [
        { auto_lock_seconds: '', battery_low: '20', battery_critical: '10' },
        { auto_lock_seconds: /0 to 3600/ },
      ],
      [{ auto_lock_seconds: '0', battery_low: '12.5', battery_critical: '10' }, { battery_low: /2 to 100/ }],
      [
        { auto_lock_seconds: '0', battery_low: '10', battery_critical: '10' },
        { battery_critical: /^The critical level \(10 %\) must be under the low one \(10 %\)\.$/ },
      ],
      [
        { auto_lock_seconds: '0', battery_low: '30', battery_critical: '40' },
        { battery_critical: /^The critical level \(40 %\) must be under the low one \(30 %\)\.$/ },
      ],
    ];
    for (const [fields, want] of cases) {
      const what = JSON.stringify(fields);
      const sent = await owner.send(`/dashboard/locks/${LOCK_A}/settings`, fields);
      assert.equal(sent.posted, 303, what);
      assert.match(sent.location, /^\/dashboard\/locks\?refused=[A-Za-z0-9_-]{22}$/, what);
      assert.equal(sent.status, 400, what);
      assert.equal(noticeOf(sent.text), 'Check the form.', what);
      const errors = fieldErrors(sent.text);
      assert.deepEqual(
        Object.keys(errors).sort(),
        Object.keys(want)
          .map((f) => `${f}-${LOCK_A}`)
          .sort(),
        what,
      );
      for (const [f, message] of Object.entries(want))
        assert.match(errors[`${f}-${LOCK_A}`] ?? '', message, what);
      const card = cardOf(sent.text, LOCK_A);
      assert.match(card, /<details class="lock-more" open>/, `${what}: the fold is open`);
      for (const [name, value] of Object.entries(fields))
        assert.match(
          card,
          new RegExp(`name="${name}" [^>]*value="${value.replace('.', '\\.')}"`),
          `${what}: refilled`,
        );
    }
    assert.deepEqual(await extLock(t, LOCK_A), before);
  });

  it("refuses a guest (403), another account's lock (404) and a form without CSRF (403)", async () => {
    const before = await extLock(t, LOCK_A);
    const fields = { auto_lock_seconds: '30', battery_low: '40', battery_critical: '20' };
    const guest = new FormClient(t);
    await guest.logIn(OTHER, 'other-password');
    const asGuest = await guest.send(`/dashboard/locks/${LOCK_A}/settings`, fields);
    assert.equal(asGuest.posted, 303);
    assert.match(asGuest.location, /\?refused=/);
    assert.equal(asGuest.status, 403);
    assert.equal(noticeOf(asGuest.text), 'Only the owner of this lock can do that.');

    const foreign = await owner.send(`/dashboard/locks/${OTHER_LOCK}/settings`, fields);
    assert.equal(foreign.posted, 303);
    assert.equal(foreign.status, 404);
    assert.equal(noticeOf(foreign.text), 'No such lock or task in this account.');
    const unknown = await owner.send(
      '/dashboard/locks/00000000-0000-4000-8000-0000000000ee/settings',
      fields,
    );
    assert.equal(unknown.status, 404);

    assert.equal(
      (await owner.post(`/dashboard/locks/${LOCK_A}/settings`, { ...fields, _csrf: '' })).status,
      403,
    );
    assert.equal(
      (await owner.post(`/dashboard/locks/${LOCK_A}/settings`, { ...fields, _csrf: 'x'.repeat(64) })).status,
      403,
    );
    const anonymous = await fetch(`${t.url}/dashboard/locks/${LOCK_A}/settings`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields),
    });
    assert.notEqual(anonymous.status, 200);
    assert.deepEqual(await extLock(t, LOCK_A), before);
  });
});

describe('dashboard: auto-lock on a lock whose access point speaks device protocol 1', () => {
  let rig: Rig;
  let owner: FormClient;
  before(async () => {
    rig = await startRig('embedded', { simulator: false });
    await rig.sim(AP_HOME, [seededDevice(LOCK_A), seededDevice(LOCK_B)], { versions: [1] });
    await eventually(
      'the access point',
      async () => (await rig.t.server.store.accessPoints.countOnline()) === 1,
    );
    owner = new FormClient(rig.t);
    await owner.logIn(OWNER, 'owner-password');
  });
  after(() => rig.close());

  it('shows it unavailable with the reason, refuses it next to its field, still takes thresholds', async () => {
    const page = await owner.get('/dashboard/locks');
    const card = cardOf(page.text, LOCK_A);
    assert.match(card, /name="auto_lock_seconds" [^>]* disabled>/);
    assert.match(
      card,
      /Unavailable: its access point [^<]+ speaks device protocol 1, which has no auto-lock/,
    );
    assert.match(card, /device protocol <span data-field="ap-protocol">1</);

    // A browser sends no disabled field; a hand-made form that does is refused next to it.
    const refused = await owner.send(`/dashboard/locks/${LOCK_A}/settings`, {
      auto_lock_seconds: '30',
      battery_low: '20',
      battery_critical: '10',
    });
    assert.equal(refused.status, 400);
    assert.match(
      fieldErrors(refused.text)[`auto_lock_seconds-${LOCK_A}`] ?? '',
      /speaks device protocol 1, which has no auto-lock/,
    );
    assert.deepEqual(await settingsOf(rig.t, LOCK_A), [0, 20, 10]);

    const saved = await owner.send(`/dashboard/locks/${LOCK_A}/settings`, {
      battery_low: '25',
      battery_critical: '5',
    });
    assert.equal(saved.status, 200);
    assert.match(noticeOf(saved.text) ?? '', /auto-lock off, battery low under 25 %, critical under 5 %/);
    assert.deepEqual(await settingsOf(rig.t, LOCK_A), [0, 25, 5]);
  });
});
