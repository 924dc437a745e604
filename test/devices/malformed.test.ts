/**
 * Malformed device messages are dropped at the edge (docs/device-protocol.md, "Malformed messages"):
 * not JSON, a wrong `v`, missing fields, values out of range, a payload over the size limit, a topic
 * with a bad id. The server keeps serving, and a valid report afterwards is applied: as an access
 * point's messages are handled in order, the valid report being applied shows that every malformed
 * one before it has been handled (and changed nothing).
 *
 * With the embedded broker a topic outside the grammar is refused by the broker itself (the client is
 * disconnected); Mosquitto (no ACL here) delivers it and the gateway drops it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { MqttClient } from 'mqtt';
import {
  AP_HOME,
  type BrokerKind,
  lockStatus,
  mosquittoUp,
  type RawAp,
  type Rig,
  startRig,
} from '../support/devices.ts';
import { eventually } from '../support/eventually.ts';
import { LOCK_A, LOCK_B, OWNER_KEY } from '../support/server.ts';

const valid = { v: 1, seq: 1, locked: true, battery: 70, reachable: true, app_open: false };

/** Payloads for the state topic, each wrong in one way, and each claiming an unlocked lock at 1 %. */
const BAD_STATES: readonly [string, string | Buffer][] = [
  ['not JSON', '{"v":1,"seq":100,"locked":false'],
  ['binary', Buffer.from([0xff, 0xfe, 0x00, 0x81, 0x7b])],
  ['JSON null', 'null'],
  ['a JSON array', JSON.stringify([{ ...valid, seq: 100, locked: false, battery: 1 }])],
  ['a JSON string', JSON.stringify('locked')],
  [
    'v 3 (a version this build does not know)',
    JSON.stringify({ ...valid, v: 3, seq: 100, locked: false, battery: 1 }),
  ],
  ['v 2 with a bad health field', JSON.stringify({ ...valid, v: 2, seq: 100, locked: false, door: 'ajar' })],
  ['v "1"', JSON.stringify({ ...valid, v: '1', seq: 100, locked: false, battery: 1 })],
  ['no v', JSON.stringify({ seq: 100, locked: false, battery: 1, reachable: true, app_open: false })],
  ['no seq', JSON.stringify({ v: 1, locked: false, battery: 1, reachable: true, app_open: false })],
  ['no locked', JSON.stringify({ v: 1, seq: 100, battery: 1, reachable: true, app_open: false })],
  ['no reachable', JSON.stringify({ v: 1, seq: 100, locked: false, battery: 1, app_open: false })],
  ['battery 101', JSON.stringify({ ...valid, seq: 100, locked: false, battery: 101 })],
  ['battery -1', JSON.stringify({ ...valid, seq: 100, locked: false, battery: -1 })],
  ['battery 50.5', JSON.stringify({ ...valid, seq: 100, locked: false, battery: 50.5 })],
  ['battery "1"', JSON.stringify({ ...valid, seq: 100, locked: false, battery: '1' })],
  ['seq -1', JSON.stringify({ ...valid, seq: -1, locked: false, battery: 1 })],
  ['seq 1.5', JSON.stringify({ ...valid, seq: 1.5, locked: false, battery: 1 })],
  ['locked "false"', JSON.stringify({ ...valid, seq: 100, locked: 'false', battery: 1 })],
  [
    'an epoch too long',
    JSON.stringify({ ...valid, seq: 100, epoch: 'e'.repeat(65), locked: false, battery: 1 }),
  ],
];
/**
 * Valid in every field, but over the 256 KiB limit. The embedded broker closes the connection at the
 * packet's header (docs/security.md); a broker without a packet limit (the machine's Mosquitto
 * here; `admin mqtt-acl` sets one) delivers it and the gateway drops it.
 */
const OVERSIZED = JSON.stringify({
  ...valid,
  seq: 100,
  locked: false,
  battery: 1,
  pad: 'x'.repeat(300 * 1024),
});

function closed(client: MqttClient, timeoutMs = 3000): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the broker did not disconnect the client')), timeoutMs);
    client.once('close', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

for (const kind of ['embedded', 'mosquitto'] as const satisfies readonly BrokerKind[]) {
  describe(`malformed device messages (${kind} broker)`, async () => {
    const skip = kind === 'mosquitto' && !(await mosquittoUp()) ? 'no Mosquitto on 127.0.0.1:1883' : false;
    let rig: Rig;
    let home: RawAp;
    let seq = 1;
    let battery = 80;
    /** A valid report of LOCK_A, and until it is applied; answers the status then. */
    const report = async (ap: RawAp = home): Promise<Record<string, unknown>> => {
      battery--;
      await ap.state(LOCK_A, { seq: ++seq, locked: true, battery });
      await eventually('the valid report', async () => (await lockStatus(rig.t, LOCK_A)).battery === battery);
      return lockStatus(rig.t, LOCK_A);
    };

    before(async () => {
      if (skip) return;
      rig = await startRig(kind, { simulator: false });
      home = await rig.raw(AP_HOME);
      await home.online();
      await report();
    });
    after(() => (skip ? undefined : rig.close()));

    it('drops state reports that are not JSON, of the wrong version, incomplete, out of range or too big', {
      skip,
    }, async () => {
      const payloads = [
        ...BAD_STATES.map(([, payload]) => payload),
        ...(kind === 'embedded' ? [] : [OVERSIZED]),
      ];
      for (const payload of payloads)
        await home.publish(rig.topics.lock(AP_HOME, LOCK_A, 'state'), payload, true);
      assert.deepEqual(await report(), { locked: true, battery, responsive: true });
      assert.equal(home.client.connected, true);
    });

    it('drops malformed status, pairing and ack messages: nothing changes', { skip }, async () => {
      const { topics } = rig;
      const messages: [string, string][] = [
        [topics.status(AP_HOME), JSON.stringify({ v: 1, online: 'false' })],
        [topics.status(AP_HOME), JSON.stringify({ v: 3, online: false })],
        [topics.status(AP_HOME), JSON.stringify({ v: 2, online: false, rssi: 5 })],
        [topics.status(AP_HOME), 'offline'],
        [
          topics.locks(AP_HOME),
          JSON.stringify({ v: 1, locks: [{ device_id: 'not-a-uuid', serial: 'S', nickname: 'N' }] }),
        ],
        [
          topics.locks(AP_HOME),
          JSON.stringify({ v: 1, locks: [{ device_id: LOCK_B, serial: '', nickname: 'N' }] }),
        ],
        [topics.locks(AP_HOME), JSON.stringify({ v: 1 })],
        [topics.locks(AP_HOME), JSON.stringify({ v: 1, locks: {} })],
        [topics.lock(AP_HOME, LOCK_A, 'ack'), JSON.stringify({ v: 1, task_id: 't', seq: 1e3, ok: 'yes' })],
        [
          topics.lock(AP_HOME, LOCK_A, 'ack'),
          JSON.stringify({ v: 1, task_id: 't', seq: 1e3, ok: false, error: 'ON_FIRE' }),
        ],
        [topics.lock(AP_HOME, LOCK_A, 'ack'), '{'],
        [
          topics.lock(AP_HOME, LOCK_A, 'sim-ack'),
          JSON.stringify({ v: 1, req_id: 'x', sim: { locked: 'no' } }),
        ],
      ];
      for (const [topic, payload] of messages) await home.publish(topic, payload, topic.endsWith('status'));
      // Nothing unpaired (an unlisted LOCK_B would have lost its access point), nothing unresponsive.
      assert.deepEqual(await report(), { locked: true, battery, responsive: true });
      assert.deepEqual(await lockStatus(rig.t, LOCK_B), { locked: false, battery: 55, responsive: true });
      const sync = await rig.t.request(`/public/lock/${LOCK_B}`, {
        method: 'POST',
        key: OWNER_KEY,
        json: { command: 'sync' },
      });
      assert.equal(sync.status, 200, 'LOCK_B is still paired (integration on)');
    });

    it('a topic with a bad id or kind: refused or dropped; the server keeps serving', { skip }, async () => {
      const base = `${rig.topics.prefix}lc/1/ap/${AP_HOME}`;
      const body = JSON.stringify({ ...valid, seq: 1e6, locked: false, battery: 1 });
      const topics = [
        `${base}/lock/not-a-uuid/state`,
        `${base}/lock/${LOCK_A.toUpperCase()}/state`,
        `${base}/lock/${LOCK_A}/bogus`,
        `${base}/lock/${LOCK_A}/state/extra`,
        `${rig.topics.prefix}lc/1/ap/not-a-uuid/lock/${LOCK_A}/state`,
        `${rig.topics.prefix}lc/2/ap/${AP_HOME}/lock/${LOCK_A}/state`,
      ];
      if (kind === 'embedded') {
        // Outside its own topics: the broker disconnects it at once, for each.
        for (const topic of topics) {
          const ap = await rig.raw(AP_HOME);
          const gone = closed(ap.client);
          void ap.publish(topic, body).catch(() => undefined);
          await gone;
        }
        home = await rig.raw(AP_HOME);
        await home.online();
      } else {
        for (const topic of topics) await home.publish(topic, body);
      }
      const status = await report();
      assert.deepEqual(status, { locked: true, battery, responsive: true });
      assert.equal(rig.t.server.devices.gateway.connected, true);
      const list = await rig.t.request('/public/locks', { key: OWNER_KEY });
      assert.equal(list.status, 200);
      assert.equal(((await list.json()) as unknown[]).length, 2);
    });

    it('a packet over the size limit: the embedded broker closes the connection', {
      skip: skip || (kind !== 'embedded' && 'Mosquitto here has no packet limit'),
    }, async () => {
      const ap = await rig.raw(AP_HOME);
      const gone = closed(ap.client);
      void ap.publish(rig.topics.lock(AP_HOME, LOCK_A, 'state'), OVERSIZED, true).catch(() => undefined);
      await gone;
      home = await rig.raw(AP_HOME);
      await home.online();
      assert.deepEqual(await report(), { locked: true, battery, responsive: true });
    });
  });
}
