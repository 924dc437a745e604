/**
 * Device authorization with the embedded broker: an access point needs its own secret and a client id
 * equal to its user name; it may publish only under its own topics and subscribe only to its own
 * commands; and the cloud believes it only about the locks paired with it.
 *
 * AP_HOME (LOCK_A, LOCK_B) is a simulated access point run by the test; the intruders are bare MQTT
 * clients with valid credentials of their own: AP_OTHER (another account) and AP_GARAGE (the same
 * account, no lock). A refusal is checked by absence once a later positive control has come through.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { MqttClient } from 'mqtt';
import { apUsername } from '../../src/device-protocol/topics.ts';
import type { SimulatedAccessPoint } from '../../src/simulator/access-point.ts';
import {
  AP_GARAGE,
  AP_HOME,
  AP_OTHER,
  lockStatus,
  NEW_LOCK,
  RawAp,
  type Rig,
  SECRETS,
  SUCCESS,
  seededDevice,
  startRig,
  taskEnd,
} from '../support/devices.ts';
import { eventually } from '../support/eventually.ts';
import {
  advanceClock,
  LOCK_A,
  LOCK_B,
  OTHER_KEY,
  OTHER_LOCK,
  OWNER_KEY,
  startTask,
} from '../support/server.ts';

const HOME_STATUS = { locked: true, battery: 100, responsive: true };

function closed(client: MqttClient, timeoutMs = 3000): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the broker did not disconnect the client')), timeoutMs);
    client.once('close', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

async function refused(promise: Promise<unknown>): Promise<{ code?: number; message: string }> {
  try {
    await promise;
  } catch (error) {
    return error as { code?: number; message: string };
  }
  assert.fail('the connection was accepted');
}

describe('device authorization (embedded broker)', () => {
  let rig: Rig;
  let home: SimulatedAccessPoint;
  /** An accepted report of OTHER_LOCK, by AP_OTHER, after what must have been dropped. */
  let battery = 90;
  const control = async (other: RawAp): Promise<void> => {
    battery--;
    await other.state(OTHER_LOCK, { seq: 1000 - battery, epoch: 'control', locked: true, battery });
    await eventually(
      'the control report',
      async () => (await lockStatus(rig.t, OTHER_LOCK, OTHER_KEY)).battery === battery,
    );
  };

  /** The same for AP_GARAGE: a lock of its own (NEW_LOCK, paired on the way) reports a new battery. */
  let garageBattery = 90;
  const garageControl = async (garage: RawAp): Promise<void> => {
    garageBattery--;
    await garage.pair([{ device_id: NEW_LOCK, serial: 'SERIALNEW1', nickname: 'Shed' }]);
    await garage.state(NEW_LOCK, {
      seq: 1000 - garageBattery,
      epoch: 'control',
      locked: true,
      battery: garageBattery,
    });
    await eventually('the garage control report', async () => {
      const res = await rig.t.request(`/public/lock/${NEW_LOCK}`, { key: OWNER_KEY });
      return res.status === 200 && ((await res.json()) as { battery: number }).battery === garageBattery;
    });
  };

  before(async () => {
    rig = await startRig('embedded', { simulator: false });
    home = await rig.sim(AP_HOME, [seededDevice(LOCK_A), seededDevice(LOCK_B)]);
    assert.deepEqual(await taskEnd(rig.t, await startTask(rig.t, LOCK_A, 'sync')), SUCCESS);
  });
  after(() => rig.close());

  it("refuses a wrong secret, an unknown access point and another access point's secret", async () => {
    const { url, topics } = rig;
    const wrong = await refused(RawAp.connect(url, topics, AP_HOME, 'not-the-secret-000000'));
    assert.match(wrong.message, /Bad username or password/);
    assert.equal(wrong.code, 4);
    const unknown = 'a0000000-0000-4000-8000-0000000000ff';
    assert.equal((await refused(RawAp.connect(url, topics, unknown, SECRETS[AP_HOME] ?? ''))).code, 4);
    assert.equal((await refused(RawAp.connect(url, topics, AP_OTHER, SECRETS[AP_HOME] ?? ''))).code, 4);
    // The real one is still connected and obeys.
    assert.equal(home.connected, true);
    assert.deepEqual(await taskEnd(rig.t, await startTask(rig.t, LOCK_A, 'sync')), SUCCESS);
  });

  it("refuses a client id other than the user name (also another access point's, to take its session)", async () => {
    const { url, topics } = rig;
    for (const clientId of ['anything', apUsername(AP_HOME), `${apUsername(AP_OTHER)}-2`, `ap:${AP_OTHER}`]) {
      const error = await refused(
        RawAp.connect(url, topics, AP_OTHER, SECRETS[AP_OTHER] ?? '', { clientId }),
      );
      assert.equal(error.code, 5, clientId);
      assert.match(error.message, /Not authorized/);
    }
    assert.equal(home.connected, true);
    assert.deepEqual(await lockStatus(rig.t, LOCK_A), HOME_STATUS);
  });

  it("disconnects an access point publishing under another access point's topics; nothing changes", async () => {
    const forged = [
      [
        rig.topics.lock(AP_HOME, LOCK_A, 'state'),
        { v: 1, seq: 1e12, locked: false, battery: 1, reachable: true, app_open: false },
      ],
      [rig.topics.status(AP_HOME), { v: 1, online: false }],
      [rig.topics.locks(AP_HOME), { v: 1, locks: [] }],
    ] as const;
    for (const [topic, message] of forged) {
      const intruder = await rig.raw(AP_OTHER);
      const gone = closed(intruder.client);
      void intruder.publish(topic, JSON.stringify(message), true).catch(() => undefined);
      await gone;
    }
    const other = await rig.raw(AP_OTHER);
    await control(other);
    assert.deepEqual(await lockStatus(rig.t, LOCK_A), HOME_STATUS);
    assert.deepEqual(await lockStatus(rig.t, LOCK_B), { locked: false, battery: 55, responsive: true });
    assert.deepEqual(await taskEnd(rig.t, await startTask(rig.t, LOCK_A, 'sync')), SUCCESS);
    other.end();
  });

  it("refuses a subscription to another access point's commands: they never reach it", async () => {
    const intruder = await rig.raw(AP_OTHER);
    const filters = [
      rig.topics.lock(AP_HOME, '+', 'cmd'),
      rig.topics.lock(AP_HOME, LOCK_A, 'cmd'),
      '#',
      'lc/1/ap/+/lock/+/cmd',
    ];
    // SUBACK 0x80 (failure) for each; mqtt.js rejects the subscribe with the packet.
    const error = (await intruder.client.subscribeAsync(filters, { qos: 1 }).then(
      () => assert.fail('the subscription was granted'),
      (e: unknown) => e,
    )) as { packet?: { granted?: number[] } };
    assert.deepEqual(error.packet?.granted, [128, 128, 128, 128]);
    await control(intruder);
    const taskId = await startTask(rig.t, LOCK_A, 'sync');
    assert.deepEqual(await taskEnd(rig.t, taskId), SUCCESS);
    // Its own commands do arrive on the same connection: the control that it would have been delivered.
    const theirs = await startTask(rig.t, OTHER_LOCK, 'sync', OTHER_KEY);
    const received = await intruder.command(0);
    assert.equal(received.lock, OTHER_LOCK);
    assert.equal(received.message.task_id, theirs);
    assert.deepEqual(
      intruder.received.map((r) => r.topic),
      [rig.topics.lock(AP_OTHER, OTHER_LOCK, 'cmd')],
    );
    await intruder.ack(OTHER_LOCK, { task_id: theirs, seq: 1, epoch: 'sub', ok: true });
    assert.equal(intruder.client.connected, true);
    intruder.end();
  });

  it('ignores state published under its own topics for a lock not paired with it', async () => {
    const other = await rig.raw(AP_OTHER);
    const garage = await rig.raw(AP_GARAGE);
    for (const ap of [other, garage]) {
      await ap.state(LOCK_A, { seq: 1e12, locked: false, battery: 3, reachable: false });
      await ap.state(LOCK_B, { seq: 1e12, epoch: 'x', locked: true, battery: 3 });
    }
    await control(other);
    await garageControl(garage);
    assert.deepEqual(await lockStatus(rig.t, LOCK_A), HOME_STATUS);
    assert.deepEqual(await lockStatus(rig.t, LOCK_B), { locked: false, battery: 55, responsive: true });
    other.end();
    garage.end();
  });

  it("a forged ack for another lock's task does not end that task", async () => {
    await home.changeLock(LOCK_A, { latency_ms: 5000 });
    const taskId = await startTask(rig.t, LOCK_A, 'unlock');
    const other = await rig.raw(AP_OTHER);
    const garage = await rig.raw(AP_GARAGE);
    const forged = { task_id: taskId, seq: 1e12, ok: false, error: 'JAMMED' };
    const withState = { ...forged, state: { locked: false, battery: 2, reachable: true, app_open: false } };
    for (const ap of [other, garage]) {
      await ap.ack(LOCK_A, withState);
      await ap.ack(OTHER_LOCK, forged);
      await ap.ack(LOCK_B, forged);
    }
    await control(other);
    await garageControl(garage);
    const res = await rig.t.request(`/public/action-result?task_id=${taskId}`, { key: OWNER_KEY });
    assert.deepEqual(await res.json(), { status: 'processing', task_id: taskId });
    assert.deepEqual(await lockStatus(rig.t, LOCK_A), HOME_STATUS);
    await advanceClock(rig.t, 5);
    assert.deepEqual(await taskEnd(rig.t, taskId), SUCCESS);
    assert.deepEqual(await lockStatus(rig.t, LOCK_A), { locked: false, battery: 100, responsive: true });
    other.end();
    garage.end();
  });
});
