/**
 * GET /ext/locks, GET and PATCH /ext/locks/{device_id}, black-box (docs/locks.md): the v3 fields
 * with the lock's health, what an owner and a guest each see, the owner's settings and the battery
 * state they read again, and every refusal in /ext's error shape, changing nothing.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  advanceClock,
  LOCK_A,
  LOCK_B,
  OTHER_KEY,
  OTHER_LOCK,
  OWNER_KEY,
  simLockOk,
  startServer,
  type TestServer,
} from '../../support/server.ts';
import { expectExtError } from './helpers.ts';

interface LockJson {
  device_id: string;
  role: string;
  battery: number;
  battery_state: string;
  battery_low?: number;
  battery_critical?: number;
  nickname: string;
  last_seen_at: string | null;
  access_point?: { id: string; online: boolean; protocol_version: number } | null;
  [field: string]: unknown;
}

async function lockOf(t: TestServer, deviceId: string, key = OWNER_KEY): Promise<LockJson> {
  const res = await t.request(`/ext/locks/${deviceId}`, { key });
  const body = (await res.json()) as LockJson;
  assert.equal(res.status, 200, JSON.stringify(body));
  return body;
}

function patch(t: TestServer, deviceId: string, json: unknown, key = OWNER_KEY): Promise<Response> {
  return t.request(`/ext/locks/${deviceId}`, { method: 'PATCH', key, json });
}

async function batteryEvents(t: TestServer, deviceId: string): Promise<{ type: string; data: unknown }[]> {
  const res = await t.request(`/ext/events?device_id=${deviceId}&type=lock.battery&limit=500`, {
    key: OWNER_KEY,
  });
  return ((await res.json()) as { events: { type: string; data: unknown }[] }).events.map((e) => ({
    type: e.type,
    data: e.data,
  }));
}

describe('/ext/locks', () => {
  let t: TestServer;
  before(async () => {
    t = await startServer({ flags: ['--no-rate-limit'] });
  });
  after(async () => {
    await t.close();
  });

  it("lists the owner's locks and the one shared with it, each as GET answers it", async () => {
    const res = await t.request('/ext/locks', { key: OWNER_KEY });
    assert.equal(res.status, 200);
    const { locks } = (await res.json()) as { locks: LockJson[] };
    assert.deepEqual(
      locks.map((l) => [l.device_id, l.role]),
      [
        [LOCK_A, 'owner'],
        [LOCK_B, 'owner'],
      ],
    );
    assert.deepEqual(locks[0], await lockOf(t, LOCK_A));
    const theirs = (await (await t.request('/ext/locks', { key: OTHER_KEY })).json()) as {
      locks: LockJson[];
    };
    assert.deepEqual(
      theirs.locks.map((l) => [l.device_id, l.role]).sort(),
      [
        [LOCK_A, 'guest'],
        [OTHER_LOCK, 'owner'],
      ].sort(),
    );
  });

  it('answers the v3 fields, the health, and for the owner the settings and the access point', async () => {
    const lock = await lockOf(t, LOCK_B);
    assert.deepEqual(Object.keys(lock), [
      'device_id',
      'nickname',
      'role',
      'locked',
      'battery',
      'responsive',
      'battery_state',
      'battery_per_day',
      'jammed',
      'door',
      'last_seen_at',
      'firmware',
      'time_zone',
      'serial',
      'auto_lock_seconds',
      'battery_low',
      'battery_critical',
      'access_point',
    ]);
    assert.deepEqual(
      { locked: lock.locked, battery: lock.battery, responsive: lock.responsive },
      (await (await t.request(`/public/lock/${LOCK_B}`, { key: OWNER_KEY })).json()) as object,
      'the v3 fields as v3 answers them',
    );
    assert.equal(lock.battery_state, 'ok');
    assert.deepEqual([lock.auto_lock_seconds, lock.battery_low, lock.battery_critical], [0, 20, 10]);
    assert.equal(lock.access_point?.online, true);
    assert.ok(lock.last_seen_at !== null && !Number.isNaN(Date.parse(lock.last_seen_at)), 'heard from');
  });

  it('shows a guest the state, never the settings or the access point', async () => {
    const guest = await lockOf(t, LOCK_A, OTHER_KEY);
    assert.equal(guest.role, 'guest');
    for (const field of ['serial', 'auto_lock_seconds', 'battery_low', 'battery_critical', 'access_point'])
      assert.ok(!(field in guest), `${field} shown to a guest`);
    const {
      role: _o,
      serial,
      auto_lock_seconds,
      battery_low,
      battery_critical,
      access_point,
      ...owner
    } = await lockOf(t, LOCK_A);
    const { role: _g, ...state } = guest;
    assert.deepEqual(state, owner);
  });

  it('changes the nickname and thresholds; a threshold that puts the battery under it is a crossing', async () => {
    await simLockOk(t, LOCK_B, { battery: 30 });
    const res = await patch(t, LOCK_B, { nickname: 'Garden gate', battery_low: 35, battery_critical: 15 });
    const body = (await res.json()) as LockJson;
    assert.equal(res.status, 200, JSON.stringify(body));
    assert.deepEqual(
      [body.nickname, body.battery_low, body.battery_critical, body.battery_state],
      ['Garden gate', 35, 15, 'low'],
    );
    assert.deepEqual(await lockOf(t, LOCK_B), body);
    assert.deepEqual((await batteryEvents(t, LOCK_B)).at(-1), {
      type: 'lock.battery_low',
      data: { battery: 30, threshold: 35 },
    });
    // v3 lists the new nickname: one lock, one name.
    const v3 = (await (await t.request('/public/locks', { key: OWNER_KEY })).json()) as LockJson[];
    assert.equal(v3.find((l) => l.device_id === LOCK_B)?.nickname, 'Garden gate');
    // Back under the hysteresis: the state holds until the level is 5 points past the threshold.
    const back = (await (await patch(t, LOCK_B, { battery_low: 28 })).json()) as LockJson;
    assert.equal(back.battery_state, 'low', '30 is not 28 + 5');
    const ok = (await (await patch(t, LOCK_B, { battery_low: 25 })).json()) as LockJson;
    assert.equal(ok.battery_state, 'ok');
    assert.deepEqual((await batteryEvents(t, LOCK_B)).at(-1), {
      type: 'lock.battery_ok',
      data: { battery: 30, threshold: 25 },
    });
  });

  it('refuses bad settings in the documented shape, naming the field, and changes nothing', async () => {
    const before = await lockOf(t, LOCK_A);
    const cases: [unknown, RegExp][] = [
      [{}, /fewer than 1|must NOT have fewer|at least 1|minProperties|properties/i],
      [{ colour: 'red' }, /colour|additional/i],
      [{ battery_low: 'high' }, /battery_low/],
      [{ battery_low: 101 }, /battery_low/],
      [{ battery_critical: 0 }, /battery_critical/],
      [{ battery_low: 12.5 }, /battery_low/],
      [{ auto_lock_seconds: -1 }, /auto_lock_seconds/],
      [{ auto_lock_seconds: 3601 }, /auto_lock_seconds/],
      [{ nickname: '' }, /nickname/],
      [{ nickname: 'a'.repeat(129) }, /nickname/],
      [{ nickname: 'bell\u0007' }, /nickname/],
      [{ battery_critical: 20 }, /battery_critical \(20\) must be lower than battery_low \(20\)/],
      [{ battery_low: 10 }, /battery_low: battery_critical \(10\) must be lower than battery_low \(10\)/],
      [{ battery_low: 30, battery_critical: 40 }, /battery_critical/],
      [null, /body/i],
      [[1], /object|body/i],
    ];
    for (const [json, message] of cases)
      await expectExtError(await patch(t, LOCK_A, json), 400, 'BAD_PARAMS', message, JSON.stringify(json));
    const notJson = await t.request(`/ext/locks/${LOCK_A}`, {
      method: 'PATCH',
      key: OWNER_KEY,
      headers: { 'content-type': 'application/json' },
      body: '{"battery_low":',
    });
    await expectExtError(notJson, 400, 'BAD_PARAMS', /JSON/i, 'a body that is not JSON');
    assert.deepEqual(await lockOf(t, LOCK_A), before);
  });

  it('refuses a guest, a stranger, an unknown lock and a missing key, changing nothing', async () => {
    const before = await lockOf(t, LOCK_A);
    await expectExtError(
      await patch(t, LOCK_A, { battery_low: 30 }, OTHER_KEY),
      400,
      'BAD_PARAMS',
      /only the lock's owner/,
      'a guest',
    );
    await expectExtError(
      await patch(t, OTHER_LOCK, { battery_low: 30 }),
      404,
      'NOT_FOUND',
      /no such lock/,
      'a stranger',
    );
    const unknown = '00000000-0000-4000-8000-0000000000ee';
    await expectExtError(
      await patch(t, unknown, { battery_low: 30 }),
      404,
      'NOT_FOUND',
      /no such lock/,
      'unknown',
    );
    await expectExtError(
      await t.request(`/ext/locks/${OTHER_LOCK}`, { key: OWNER_KEY }),
      404,
      'NOT_FOUND',
      /no such lock/,
      "GET another's lock",
    );
    await expectExtError(
      await t.request('/ext/locks/not-a-lock', { key: OWNER_KEY }),
      404,
      'NOT_FOUND',
      /no such lock/,
      'GET a bad id',
    );
    const anonymous = await t.request(`/ext/locks/${LOCK_A}`, { method: 'PATCH', json: { battery_low: 30 } });
    assert.equal(anonymous.status, 401);
    assert.deepEqual(await anonymous.json(), { error: 'UNAUTHORIZED' });
    assert.equal((await t.request('/ext/locks')).status, 401);
    assert.deepEqual(await lockOf(t, LOCK_A), before);
  });
});

describe('/ext/locks: the battery trend on the sandbox clock', () => {
  let t: TestServer;
  before(async () => {
    t = await startServer({ flags: ['--no-rate-limit'] });
  });
  after(async () => {
    await t.close();
  });

  it('is null until a day of readings, then points per day from the first', async () => {
    // The seed's 55 %, reported as the server started, is the first reading.
    assert.equal((await lockOf(t, LOCK_B)).battery_per_day, null);
    await advanceClock(t, 12 * 3600);
    await simLockOk(t, LOCK_B, { battery: 54 });
    assert.equal((await lockOf(t, LOCK_B)).battery_per_day, null, 'half a day: not yet');
    await advanceClock(t, 36 * 3600);
    await simLockOk(t, LOCK_B, { battery: 52 });
    assert.equal((await lockOf(t, LOCK_B)).battery_per_day, -1.5, 'from 55 two days ago');
    // The next day is measured from that reading: a new battery is a rise.
    await advanceClock(t, 24 * 3600);
    await simLockOk(t, LOCK_B, { battery: 100 });
    assert.equal((await lockOf(t, LOCK_B)).battery_per_day, 48);
  });
});
