/**
 * Pairing (docs/device-protocol.md, "Pairing"): an access point's retained `locks` message lists the
 * locks paired with it. An unknown lock joins the access point's account with its serial and
 * nickname; a lock of the same account listed by another access point moves there (its commands
 * follow); a lock of another account is never taken over; a lock missing from the list loses its
 * access point (commands answer CLOUD_INTEGRATION_NOT_ENABLED).
 *
 * The access points are bare MQTT clients run by the test, answering commands by hand.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  AP_GARAGE,
  AP_HOME,
  AP_OTHER,
  lockStatus,
  NEW_LOCK,
  type RawAp,
  type Rig,
  SUCCESS,
  startRig,
  taskEnd,
} from '../support/devices.ts';
import { eventually } from '../support/eventually.ts';
import {
  advanceClock,
  answer,
  LOCK_A,
  LOCK_B,
  OTHER_KEY,
  OWNER_KEY,
  startTask,
  type TestServer,
} from '../support/server.ts';

const THEIR_NEW_LOCK = 'b0000000-0000-4000-8000-0000000000e2';
const NOT_ENABLED = { status: 400, body: { error: 'CLOUD_INTEGRATION_NOT_ENABLED' } };
const A = { device_id: LOCK_A, serial: 'SERIAL000A', nickname: 'Front door' };
const B = { device_id: LOCK_B, serial: 'SERIAL000B', nickname: 'Back door' };
const SHED = { device_id: NEW_LOCK, serial: 'SERIALNEW1', nickname: 'Shed' };

async function listed(t: TestServer, key: string): Promise<unknown[]> {
  const res = await t.request('/public/locks', { key });
  assert.equal(res.status, 200);
  return (await res.json()) as unknown[];
}

describe('pairing locks to access points (embedded broker)', () => {
  let rig: Rig;
  let home: RawAp;
  let garage: RawAp;
  let other: RawAp;
  let seq = 0;

  /** Sends a command, checks it reaches `ap` (and no other), answers it as done; the task must succeed. */
  async function commandVia(ap: RawAp, deviceId: string, command: string, state: { locked: boolean }) {
    const before = [home, garage, other].map((x) => x.commandCount());
    const taskId = await startTask(rig.t, deviceId, command);
    const received = await ap.command(before[[home, garage, other].indexOf(ap)] ?? 0);
    assert.equal(received.lock, deviceId);
    assert.equal(received.message.task_id, taskId);
    assert.equal(received.message.command, command);
    await ap.ack(deviceId, {
      task_id: taskId,
      seq: ++seq,
      ok: true,
      state: { locked: state.locked, battery: 90, reachable: true, app_open: false },
    });
    assert.deepEqual(await taskEnd(rig.t, taskId), SUCCESS);
    assert.deepEqual(
      [home, garage, other].map((x) => x.commandCount()),
      before.map((n, i) => ([home, garage, other][i] === ap ? n + 1 : n)),
      'the command reached its access point only',
    );
  }

  before(async () => {
    rig = await startRig('embedded', { simulator: false });
    [home, garage, other] = await Promise.all([rig.raw(AP_HOME), rig.raw(AP_GARAGE), rig.raw(AP_OTHER)]);
    for (const ap of [home, garage, other]) await ap.online();
    await home.pair([A, B]);
    await home.state(LOCK_A, { seq: ++seq, locked: true, battery: 90 });
    await home.state(LOCK_B, { seq: ++seq, locked: false, battery: 90 });
    await eventually(
      'the seeded locks reported',
      async () => (await lockStatus(rig.t, LOCK_B)).battery === 90,
    );
  });
  after(() => rig.close());

  it('an unknown lock announced by an access point appears in its account with serial and nickname', async () => {
    await garage.pair([SHED]);
    await eventually('the new lock listed', async () => (await listed(rig.t, OWNER_KEY)).length === 3);
    assert.deepEqual(await listed(rig.t, OWNER_KEY), [
      { device_id: LOCK_A, serial: 'SERIAL000A', nickname: 'Front door' },
      { device_id: LOCK_B, serial: 'SERIAL000B', nickname: 'Back door' },
      { device_id: NEW_LOCK, serial: 'SERIALNEW1', nickname: 'Shed' },
    ]);
    assert.equal((await listed(rig.t, OTHER_KEY)).length, 1);
    // Unresponsive until its access point reports its state; then it obeys through that access point.
    assert.deepEqual(await lockStatus(rig.t, NEW_LOCK), { locked: true, battery: 100, responsive: false });
    await garage.state(NEW_LOCK, { seq: ++seq, locked: false, battery: 77 });
    await eventually('its first report', async () => (await lockStatus(rig.t, NEW_LOCK)).responsive === true);
    assert.deepEqual(await lockStatus(rig.t, NEW_LOCK), { locked: false, battery: 77, responsive: true });
    await commandVia(garage, NEW_LOCK, 'lock', { locked: true });
    assert.deepEqual(await lockStatus(rig.t, NEW_LOCK), { locked: true, battery: 90, responsive: true });
    // A repeated announcement changes nothing.
    await garage.pair([SHED]);
    await commandVia(garage, NEW_LOCK, 'sync', { locked: true });
  });

  it('a lock listed by a second access point of the same account moves there; its commands follow', async () => {
    await commandVia(home, LOCK_A, 'sync', { locked: true });
    await garage.pair([SHED, A]);
    const moved = async (): Promise<boolean> => {
      const taskId = await startTask(rig.t, LOCK_A, 'sync');
      const before = garage.commandCount();
      const reached = await garage.command(before, 300).then(
        () => true,
        () => false,
      );
      if (reached) await garage.ack(LOCK_A, { task_id: taskId, seq: ++seq, ok: true });
      else await home.ack(LOCK_A, { task_id: taskId, seq: ++seq, ok: true });
      await taskEnd(rig.t, taskId);
      return reached;
    };
    await eventually('LOCK_A to answer through the garage', moved);
    await commandVia(garage, LOCK_A, 'unlock', { locked: false });
    // Its state now comes from the garage, not from home.
    await home.state(LOCK_A, { seq: ++seq, locked: true, battery: 5 });
    await garage.state(LOCK_A, { seq: ++seq, locked: false, battery: 66 });
    await eventually('the garage report', async () => (await lockStatus(rig.t, LOCK_A)).battery === 66);
    assert.deepEqual(await lockStatus(rig.t, LOCK_A), { locked: false, battery: 66, responsive: true });
    // Home no longer listing it does not unpair it from the garage.
    await home.pair([B]);
    await commandVia(garage, LOCK_A, 'lock', { locked: true });
  });

  it('a lock of another account is not taken over', async () => {
    const theirs = { device_id: THEIR_NEW_LOCK, serial: 'SERIALNEW2', nickname: 'Their shed' };
    await other.pair([B, theirs]);
    // Its own new lock appearing shows the announcement has been handled.
    await eventually('their new lock', async () => (await listed(rig.t, OTHER_KEY)).length === 2);
    assert.deepEqual(
      (await listed(rig.t, OTHER_KEY)).map((l) => (l as { device_id: string }).device_id).sort(),
      ['00000000-0000-4000-8000-0000000000cc', THEIR_NEW_LOCK],
    );
    await other.state(LOCK_B, { seq: ++seq, locked: true, battery: 1 });
    await commandVia(home, LOCK_B, 'sync', { locked: false });
    assert.deepEqual(await lockStatus(rig.t, LOCK_B), { locked: false, battery: 90, responsive: true });
    const forOther = await rig.t.request(`/public/lock/${LOCK_B}`, { key: OTHER_KEY });
    assert.equal(forOther.status, 400);
  });

  it('a lock dropped from the list loses its access point: commands answer CLOUD_INTEGRATION_NOT_ENABLED', async () => {
    await home.pair([]);
    const refused = async (): Promise<boolean> => {
      const index = home.commandCount();
      const res = await rig.t.request(`/public/lock/${LOCK_B}`, {
        method: 'POST',
        key: OWNER_KEY,
        json: { command: 'sync' },
      });
      const got = await answer(res);
      if (got.status === 200) {
        // The list was not handled yet: the command went out; answer it and try again.
        await home.command(index);
        const taskId = (got.body as { task_id: string }).task_id;
        await home.ack(LOCK_B, { task_id: taskId, seq: ++seq, ok: true });
        await taskEnd(rig.t, taskId);
        return false;
      }
      assert.deepEqual(got, NOT_ENABLED);
      return true;
    };
    await eventually('LOCK_B unpaired', refused);
    for (const command of ['lock', 'unlock', 'sync']) {
      const res = await rig.t.request(`/public/lock/${LOCK_B}`, {
        method: 'POST',
        key: OWNER_KEY,
        json: { command },
      });
      assert.deepEqual(await answer(res), NOT_ENABLED, command);
    }
    assert.equal((await lockStatus(rig.t, LOCK_B)).responsive, false);
    // Still the owner's lock, still listed; the garage's locks are untouched.
    assert.equal((await listed(rig.t, OWNER_KEY)).length, 3);
    await commandVia(garage, LOCK_A, 'sync', { locked: true });
    // Listed again, and reporting: it obeys again.
    await home.pair([B]);
    await home.state(LOCK_B, { seq: ++seq, locked: false, battery: 44 });
    await eventually('LOCK_B back', async () => (await lockStatus(rig.t, LOCK_B)).battery === 44);
    assert.deepEqual(await lockStatus(rig.t, LOCK_B), { locked: false, battery: 44, responsive: true });
    await commandVia(home, LOCK_B, 'lock', { locked: true });
  });

  it('an access point of a deleted account brings no lock back (its locks were released)', async () => {
    const { store } = rig.t.server;
    const account = await store.accounts.findByEmail('other@example.com');
    assert.ok(account);
    const owned = (await store.locks.listOwnedBy(account.id)).length;
    const res = await rig.t.request('/_sim/accounts/other@example.com', {
      method: 'POST',
      json: { deleted: true },
    });
    assert.equal(res.status, 200);
    const late = 'b0000000-0000-4000-8000-0000000000e3';
    await advanceClock(rig.t, 1);
    const seen = (await store.accessPoints.get(AP_OTHER))?.lastSeenAt;
    await other.pair([{ device_id: late, serial: 'SERIALLATE', nickname: 'Late' }]);
    // No answer says the list was handled. An access point's messages are handled in order: once
    // its status sent after the list is (its last-seen time is the moved clock's), so is the list.
    await other.online(true);
    await eventually(
      'the status sent after the list to be handled',
      async () => (await store.accessPoints.get(AP_OTHER))?.lastSeenAt !== seen,
    );
    assert.equal(await store.locks.get(late), undefined);
    assert.equal((await store.locks.listOwnedBy(account.id)).length, owned);
  });
});
