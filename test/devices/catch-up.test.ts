/**
 * The MQTT 5 specification sends no retained messages to a shared subscription, and brokers built
 * for clusters (EMQX, VerneMQ) follow it; Mosquitto 2.0 sends them anyway. The gateway must not
 * depend on either: with a share group it reads the retained topics through a plain subscription
 * held while connecting, and again after every reconnection, until the clock says they have stopped
 * coming. Here the broker is a bare aedes, which has no shared subscriptions at all, so whatever
 * reaches the gateway came through that catch-up; and the clock is the test's, which moves only
 * when told.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Aedes, Client } from 'aedes';
import { connectAsync, type MqttClient } from 'mqtt';
import { CATCH_UP_QUIET_MS, MqttGateway } from '../../src/adapters/devices/mqtt/gateway.ts';
import type { DeviceListener, DeviceTraffic } from '../../src/app/ports.ts';
import { Topics } from '../../src/device-protocol/topics.ts';
import type { LockReport, ReportMark } from '../../src/domain/lock.ts';
import { type BareBroker, startBareBroker } from '../support/bare-broker.ts';
import { eventually } from '../support/eventually.ts';
import { ManualClock } from '../support/manual-clock.ts';

const AP = 'a0000000-0000-4000-8000-0000000000d1';
const LOCK = 'b0000000-0000-4000-8000-0000000000d1';
const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };

/** Resolves at the broker's next `event` from the gateway's client (a PUBACK, an UNSUBSCRIBE, ...). */
function next(broker: Aedes, event: 'ack' | 'unsubscribe' | 'client', count = 1): Promise<Client> {
  return new Promise((resolve) => {
    let left = count;
    const listener = (...args: unknown[]): void => {
      const client = (event === 'client' ? args[0] : args[1]) as Client;
      if (client.id !== 'cloud-1' || --left > 0) return;
      broker.off(event, listener);
      resolve(client);
    };
    broker.on(event as 'ack', listener);
  });
}

/** Counts the device messages the gateway has handled: it tells its DeviceTraffic of each one. */
function handledCounter(): { count: number; traffic: DeviceTraffic } {
  const counter = {
    count: 0,
    traffic: {
      track: () => undefined,
      untrack: () => undefined,
      begin: () => undefined,
      end: () => {
        counter.count++;
      },
      idle: async () => undefined,
    },
  };
  return counter;
}

describe('MqttGateway with a share group: the retained catch-up', () => {
  let bare: BareBroker;
  let broker: Aedes;
  let url: string;
  const topics = new Topics('catch-up/');

  before(async () => {
    bare = await startBareBroker();
    ({ broker, url } = bare);
    const device = await connectAsync(url, { clientId: 'device' });
    await device.publishAsync(topics.status(AP), JSON.stringify({ v: 1, online: false }), {
      qos: 1,
      retain: true,
    });
    const state = { v: 1, seq: 7, epoch: 'e', locked: false, battery: 33, reachable: true, app_open: false };
    await device.publishAsync(topics.lock(AP, LOCK, 'state'), JSON.stringify(state), {
      qos: 1,
      retain: true,
    });
    await device.endAsync();
  });

  /**
   * Once this resolves, the gateway has handled everything the broker sent it before: a sandbox
   * answer (sim-ack, heard on a plain subscription the gateway keeps) is published and handled, and
   * the broker keeps one client's messages in order, as the gateway keeps one access point's.
   */
  async function handledSoFar(device: MqttClient, counter: { count: number }): Promise<void> {
    const before = counter.count;
    await device.publishAsync(topics.lock(AP, LOCK, 'sim-ack'), '{"v":1}', { qos: 1 });
    await eventually('the gateway to handle a sandbox answer', () => counter.count > before);
  }

  after(() => bare.close());

  it('hands the retained status and state to the listener, then drops the plain subscription', async () => {
    const heard: string[] = [];
    const reports: [LockReport, ReportMark][] = [];
    const listener: DeviceListener = {
      accessPointStatus: async (apId, online) => void heard.push(`status ${apId} ${online}`),
      pairedLocks: async () => undefined,
      lockReport: async (_apId, _deviceId, report, mark) => void reports.push([report, mark]),
      lateResult: async () => undefined,
    };
    const clock = new ManualClock(Date.now());
    const handled = handledCounter();
    // Both retained messages acknowledged by the gateway: they are in; only the clock ends the wait.
    const delivered = next(broker, 'ack', 2);
    let connected = false;
    const connecting = MqttGateway.connect({
      url,
      clientId: 'cloud-1',
      topics,
      clock,
      logger: silent,
      shareGroup: 'lockcloud',
      inFlight: handled.traffic,
    }).then((gateway) => {
      connected = true;
      return gateway;
    });
    await delivered;
    assert.equal(connected, false, 'the catch-up waits for the clock');
    clock.advance(CATCH_UP_QUIET_MS);
    const gateway = await connecting;
    try {
      gateway.listen(listener);
      await eventually('the retained state', () => reports.length > 0);
      assert.deepEqual(heard, [`status ${AP} false`]);
      assert.deepEqual(reports, [
        [
          { locked: false, battery: 33, responsive: true, appOpen: false },
          { apId: AP, epoch: 'e', seq: 7 },
        ],
      ]);
      // Only the shared subscriptions (and sim-ack) stay: a live message no longer comes this way.
      const device = await connectAsync(url, { clientId: 'device-2' });
      await device.publishAsync(topics.status(AP), JSON.stringify({ v: 1, online: true }), { qos: 1 });
      await handledSoFar(device, handled);
      await device.endAsync();
      assert.deepEqual(heard, [`status ${AP} false`]);
    } finally {
      await gateway.close();
    }
  });

  it('after a reconnection reads the retained topics again, for as long as its clock says', async () => {
    const heard: string[] = [];
    const clock = new ManualClock(Date.now());
    const handled = handledCounter();
    const delivered = next(broker, 'ack', 2);
    const connecting = MqttGateway.connect({
      url,
      clientId: 'cloud-1',
      topics,
      clock,
      logger: silent,
      shareGroup: 'lockcloud',
      inFlight: handled.traffic,
    });
    const first = next(broker, 'client');
    await delivered;
    clock.advance(CATCH_UP_QUIET_MS);
    const gateway = await connecting;
    try {
      gateway.listen({
        accessPointStatus: async (apId, online) => void heard.push(`status ${apId} ${online}`),
        pairedLocks: async () => undefined,
        lockReport: async () => undefined,
        lateResult: async () => undefined,
      });
      await eventually('the retained status', () => heard.length === 1);

      // The broker drops the gateway's connection; it comes back and catches up.
      const again = next(broker, 'ack', 2);
      (await first).close();
      await again;
      await eventually('the retained status, read again', () => heard.length === 2);
      // Real time passing does not end the catch-up (a fixed wait on purpose: it is what is tested);
      // the plain subscription stays until the clock moves, and a live status still comes through it.
      await new Promise((r) => setTimeout(r, 2 * CATCH_UP_QUIET_MS));
      const device = await connectAsync(url, { clientId: 'device-3' });
      await device.publishAsync(topics.status(AP), JSON.stringify({ v: 1, online: true }), { qos: 1 });
      await eventually('the live status', () => heard.length === 3);
      assert.deepEqual(heard, [`status ${AP} false`, `status ${AP} false`, `status ${AP} true`]);

      const dropped = next(broker, 'unsubscribe');
      clock.advance(CATCH_UP_QUIET_MS);
      await dropped;
      await device.publishAsync(topics.status(AP), JSON.stringify({ v: 1, online: false }), { qos: 1 });
      await handledSoFar(device, handled);
      await device.endAsync();
      assert.equal(heard.length, 3, 'nothing comes through the dropped subscription');
    } finally {
      await gateway.close();
    }
  });
});
