/**
 * The MQTT 5 specification sends no retained messages to a shared subscription, and brokers built
 * for clusters (EMQX, VerneMQ) follow it; Mosquitto 2.0 sends them anyway. The gateway must not
 * depend on either: with a share group it reads the retained topics through a plain subscription
 * held while connecting. Here the broker is a bare aedes, which has no shared subscriptions at all,
 * so whatever reaches the gateway came through that catch-up.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { Aedes } from 'aedes';
import { connectAsync } from 'mqtt';
import { MqttGateway } from '../../../src/adapters/devices/mqtt/gateway.ts';
import { Topics } from '../../../src/adapters/devices/mqtt/topics.ts';
import type { DeviceListener } from '../../../src/app/ports.ts';
import type { LockReport, ReportMark } from '../../../src/domain/lock.ts';

const AP = 'a0000000-0000-4000-8000-0000000000d1';
const LOCK = 'b0000000-0000-4000-8000-0000000000d1';
const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };
const clock = { now: () => Date.now(), at: () => () => undefined, every: () => () => undefined };

describe('MqttGateway with a share group: the retained catch-up', () => {
  let broker: Aedes;
  let server: Server;
  let url: string;
  const topics = new Topics('catch-up/');

  before(async () => {
    broker = await Aedes.createBroker();
    server = createServer(broker.handle);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    url = `mqtt://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
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

  after(async () => {
    await new Promise<void>((resolve) => broker.close(() => resolve()));
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('hands the retained status and state to the listener, then drops the plain subscription', async () => {
    const heard: string[] = [];
    const reports: [LockReport, ReportMark][] = [];
    const listener: DeviceListener = {
      accessPointStatus: async (apId, online) => void heard.push(`status ${apId} ${online}`),
      pairedLocks: async () => undefined,
      lockReport: async (_apId, _deviceId, report, mark) => void reports.push([report, mark]),
      lateResult: async () => undefined,
    };
    const gateway = await MqttGateway.connect({
      url,
      clientId: 'cloud-1',
      topics,
      clock,
      logger: silent,
      shareGroup: 'lockcloud',
    });
    try {
      gateway.listen(listener);
      const until = Date.now() + 2000;
      while (reports.length === 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
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
      await device.endAsync();
      await new Promise((r) => setTimeout(r, 200));
      assert.deepEqual(heard, [`status ${AP} false`]);
    } finally {
      await gateway.close();
    }
  });
});
