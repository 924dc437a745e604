/**
 * The broker goes away and comes back while the server keeps running: commands end with a documented
 * failure (DEVICE_UNREACHABLE, or TIMEOUT for one published just before the loss) and fast, reads keep
 * answering from the store, and once the broker is back the gateway and the simulated access points
 * (run by the server) reconnect by themselves and commands succeed again.
 *
 * The embedded broker is stopped and started in-process; the external one is a Mosquitto of the
 * test's own on a free loopback port, killed with SIGKILL (never the machine's service on 1883).
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { control, login, V1 } from '../http/v1/helpers.ts';
import {
  freePort,
  lockStatus,
  MOSQUITTO_BIN,
  OwnMosquitto,
  type Rig,
  SUCCESS,
  startRig,
  taskEnd,
} from '../support/devices.ts';
import { eventually } from '../support/eventually.ts';
import { answer, LOCK_A, OWNER, OWNER_KEY, startTask, type TestServer } from '../support/server.ts';

/** A short command timeout bounds a command published while the access points are still away. */
const FLAGS = ['--command-timeout-ms', '2000'];
const FAST_MS = 2000;
const DOCUMENTED = new Set(['DEVICE_UNREACHABLE', 'TIMEOUT']);

interface Broker {
  stop(): Promise<void>;
  start(): Promise<void>;
}

/** While the broker is away: commands fail fast with a documented error, reads answer. */
async function whileAway(t: TestServer, c: { diagnostic(message: string): void }): Promise<void> {
  for (const command of ['lock', 'unlock', 'sync']) {
    const started = performance.now();
    const taskId = await startTask(t, LOCK_A, command);
    const ended = await taskEnd(t, taskId, FAST_MS);
    assert.equal(ended.status, 'terminated');
    assert.equal(ended.successful, false);
    assert.ok(DOCUMENTED.has(String(ended.error)), `${command}: ${JSON.stringify(ended)}`);
    c.diagnostic(
      `${command} with the broker away: ${ended.error} after ${(performance.now() - started).toFixed(0)} ms`,
    );
  }
  const started = performance.now();
  const res = await control(t, await login(t, OWNER), LOCK_A, 'unlock');
  assert.deepEqual(await answer(res), V1.UNREACHABLE);
  assert.ok(performance.now() - started < FAST_MS);
  assert.deepEqual(await lockStatus(t, LOCK_A), { locked: true, battery: 100, responsive: true });
  const list = await t.request('/public/locks', { key: OWNER_KEY });
  assert.equal(list.status, 200);
}

/** Commands succeed again once everything has reconnected; answers what the attempts ended with. */
async function recovers(t: TestServer): Promise<string[]> {
  const outcomes: string[] = [];
  await eventually(
    'a command to succeed after the broker came back',
    async () => {
      const ended = await taskEnd(t, await startTask(t, LOCK_A, 'unlock'), 5000);
      outcomes.push(ended.successful === true ? 'success' : String(ended.error));
      if (ended.successful === true) return true;
      assert.ok(DOCUMENTED.has(String(ended.error)), JSON.stringify(ended));
      return false;
    },
    15_000,
  );
  return outcomes;
}

async function scenario(rig: Rig, broker: Broker, c: { diagnostic(message: string): void }): Promise<void> {
  const { t } = rig;
  assert.deepEqual(await taskEnd(t, await startTask(t, LOCK_A, 'sync')), SUCCESS);
  await broker.stop();
  await eventually('the gateway to notice', async () => !t.server.devices.gateway.connected, 3000);
  await whileAway(t, c);
  const restarted = performance.now();
  await broker.start();
  const outcomes = await recovers(t);
  const took = (performance.now() - restarted).toFixed(0);
  c.diagnostic(
    `commands succeed again ${took} ms after the broker restarted (attempts: ${outcomes.join(', ')})`,
  );
  assert.equal(t.server.devices.gateway.connected, true);
  assert.deepEqual(await lockStatus(t, LOCK_A), { locked: false, battery: 100, responsive: true });
  assert.deepEqual(await taskEnd(t, await startTask(t, LOCK_A, 'lock')), SUCCESS);
  assert.deepEqual(await lockStatus(t, LOCK_A), { locked: true, battery: 100, responsive: true });
}

describe('the embedded broker restarted', () => {
  let rig: Rig;
  before(async () => {
    rig = await startRig('embedded', { flags: FLAGS });
  });
  after(() => rig.close());

  it('commands fail fast while it is down, and succeed again once it is back, on the same port', async (c) => {
    const broker = rig.t.server.devices.broker;
    assert.ok(broker);
    const port = broker.port;
    await scenario(rig, broker, c);
    assert.equal(broker.port, port);
  });
});

describe('an external Mosquitto killed and started again', () => {
  const skip = existsSync(MOSQUITTO_BIN) ? false : `no ${MOSQUITTO_BIN}`;
  let mosquitto: OwnMosquitto;
  let rig: Rig;
  before(async () => {
    if (skip) return;
    mosquitto = new OwnMosquitto(await freePort());
    await mosquitto.start();
    rig = await startRig('mosquitto', { flags: FLAGS, mqttUrl: mosquitto.url });
  });
  after(async () => {
    if (skip) return;
    await rig?.close();
    await mosquitto.dispose();
  });

  it('kill -9: commands fail fast; started again on the same port: everything reconnects', {
    skip,
  }, async (c) => {
    await scenario(rig, { stop: () => mosquitto.kill(), start: () => mosquitto.start() }, c);
  });
});
