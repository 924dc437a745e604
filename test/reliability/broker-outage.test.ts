/**
 * The device broker away for 30 s (issue 11, point 3), with the server running throughout.
 * test/devices/broker-restart.test.ts covers a short restart; this one holds the broker away for a
 * real 30 s, long past every reconnect period and keepalive of the gateway (0.5 s, 10 s) and of the
 * access points (1 s doubling to 30 s, 5 s), since those are real-time timers and cannot be moved by the
 * server's clock. So each case takes about 30 s of real time: the three run side by side
 * (RELIABILITY_OUTAGE_SECONDS shortens or lengthens them).
 *
 * - the embedded broker, stopped and started again on the same port;
 * - a Mosquitto of the test's own, killed with SIGKILL and started again;
 * - the same Mosquitto frozen with SIGSTOP (the connection stays open and nothing answers: a hung
 *   broker or a network partition), then resumed.
 *
 * While it is away: commands end fast with a documented error (DEVICE_UNREACHABLE, or TIMEOUT for one
 * already on the wire or sent before the loss was noticed), v1 controls answer LockUnreachable or
 * LockCommandTimeout, reads keep answering from the store. A lock turned by hand meanwhile is reported
 * once the access point is back, and its webhook is delivered. Afterwards everything reconnects by
 * itself, commands succeed, and no task is left processing.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { BetterSqlite3 } from '../../src/adapters/stores/sqlite/better-sqlite3.ts';
import { SQLITE_FILE_NAME } from '../../src/adapters/stores/sqlite/open.ts';
import { MAX_RECONNECT_MS } from '../../src/simulator/link-trouble.ts';
import { control, login, V1 } from '../http/v1/helpers.ts';
import {
  AP_HOME,
  deviceSeed,
  freePort,
  lockStatus,
  MOSQUITTO_BIN,
  OwnMosquitto,
  type Rig,
  SUCCESS,
  seededDevice,
  startRig,
  taskEnd,
} from '../support/devices.ts';
import { eventually } from '../support/eventually.ts';
import { answer, LOCK_A, LOCK_B, OWNER, OWNER_KEY, startTask } from '../support/server.ts';
import { type Receiver, startReceiver } from '../support/webhook-receiver.ts';

const OUTAGE_MS = Number(process.env.RELIABILITY_OUTAGE_SECONDS ?? 30) * 1000;
const COMMAND_TIMEOUT_MS = 2000;
const FLAGS = ['--command-timeout-ms', String(COMMAND_TIMEOUT_MS)];
/** A command must end within the command timeout plus a margin for a loaded machine. */
const ENDS_WITHIN_MS = COMMAND_TIMEOUT_MS + 3000;
const DOCUMENTED = new Set(['DEVICE_UNREACHABLE', 'TIMEOUT']);
const V1_DOCUMENTED = [V1.UNREACHABLE, V1.TIMEOUT].map((a) => JSON.stringify(a));
/**
 * An access point's attempts back off to one every 30 s, so after a 30 s outage its next attempt may
 * come up to 30 s after the broker is back (one failed just before): the wait for its first report
 * covers that, plus a margin for a loaded machine.
 */
const AP_BACK_WITHIN_MS = MAX_RECONNECT_MS + 10_000;

interface Broker {
  stop(): Promise<void>;
  start(): Promise<void>;
}

interface Report {
  diagnostic(message: string): void;
}

function processingTasks(rig: Rig): number {
  const db = new BetterSqlite3(join(rig.t.dataDir, SQLITE_FILE_NAME), {
    readonly: true,
    fileMustExist: true,
  });
  try {
    return (db.prepare("SELECT count(*) AS n FROM tasks WHERE status = 'processing'").get() as { n: number })
      .n;
  } finally {
    db.close();
  }
}

async function outage(rig: Rig, broker: Broker, receiver: Receiver, name: string, c: Report): Promise<void> {
  const { t } = rig;
  const hook = `/${name}/${LOCK_A}`;
  const ap = await rig.sim(AP_HOME, [seededDevice(LOCK_A), seededDevice(LOCK_B)]);
  const token = await login(t, OWNER);
  assert.deepEqual(await taskEnd(t, await startTask(t, LOCK_A, 'sync')), SUCCESS);

  // A command on its way when the broker goes: the lock takes 20 s, longer than the command timeout.
  await ap.changeLock(LOCK_B, { latency_ms: 20_000 });
  const onTheWire = await startTask(t, LOCK_B, 'lock');
  await broker.stop();
  const lost = performance.now();

  // Until the broker is back: commands, v1 controls and reads, one round every second or so.
  const outcomes: Record<string, number> = {};
  const count = (what: string): void => {
    outcomes[what] = (outcomes[what] ?? 0) + 1;
  };
  let turned = false;
  let slowest = 0;
  while (performance.now() - lost < OUTAGE_MS) {
    const started = performance.now();
    const ended = await taskEnd(t, await startTask(t, LOCK_A, 'unlock'), ENDS_WITHIN_MS);
    assert.equal(ended.status, 'terminated');
    assert.ok(
      DOCUMENTED.has(String(ended.error)),
      `unlock while the broker is away: ${JSON.stringify(ended)}`,
    );
    count(`v3 ${ended.error}`);
    const v1 = await answer(await control(t, token, LOCK_A, 'lock'));
    assert.ok(V1_DOCUMENTED.includes(JSON.stringify(v1)), `v1 control while away: ${JSON.stringify(v1)}`);
    count(`v1 ${(v1.body as { message: string }).message}`);
    slowest = Math.max(slowest, performance.now() - started);
    // Reads answer from the store: the lock as it was last reported.
    assert.deepEqual(await lockStatus(t, LOCK_A), { locked: true, battery: 100, responsive: true });
    assert.equal((await t.request('/public/locks', { key: OWNER_KEY })).status, 200);
    assert.equal((await t.request('/ext/webhook/deliveries', { key: OWNER_KEY })).status, 200);
    // Liveness stays up; readiness says the broker is missing once the gateway has noticed.
    assert.equal((await t.request('/healthz')).status, 200);
    const ready = await answer(await t.request('/readyz'));
    const readiness =
      ready.status === 200 ? 'ready' : JSON.stringify((ready.body as { failing?: unknown }).failing);
    count(`readyz ${readiness}`);
    if (!t.server.devices.gateway.connected) assert.equal(readiness, '["broker"]');
    if (!turned && performance.now() - lost > OUTAGE_MS / 3) {
      // Turned by hand while its access point cannot say so.
      await ap.changeLock(LOCK_A, { locked: false });
      turned = true;
    }
    // Pacing, not a wait for anything: a round of probes about every second of the 30 s outage.
    await new Promise((r) => setTimeout(r, 1000));
  }
  assert.ok(turned);
  const wire = await taskEnd(t, onTheWire, ENDS_WITHIN_MS);
  assert.ok(DOCUMENTED.has(String(wire.error)), `the command on the wire: ${JSON.stringify(wire)}`);
  await ap.changeLock(LOCK_B, { latency_ms: 0 });

  const restarted = performance.now();
  await broker.start();
  await eventually('the gateway to reconnect', async () => t.server.devices.gateway.connected, 20_000);
  const reconnectMs = performance.now() - restarted;
  // The hand turn arrives once the access point is back, and its webhook goes out.
  await eventually(
    'the hand turn to be reported',
    async () => (await lockStatus(t, LOCK_A)).locked === false,
    AP_BACK_WITHIN_MS,
  );
  const reportedMs = performance.now() - restarted;
  const sent = (): string[] => receiver.requests.filter((r) => r.url.startsWith(hook)).map((r) => r.url);
  await eventually("the hand turn's webhook", async () => sent().length >= 1, 10_000);
  assert.deepEqual(sent(), [`${hook}/unlocked`]);
  const attempts: string[] = [];
  await eventually(
    'a command to succeed',
    async () => {
      const ended = await taskEnd(t, await startTask(t, LOCK_A, 'lock'), ENDS_WITHIN_MS);
      attempts.push(ended.successful === true ? 'success' : String(ended.error));
      if (ended.successful !== true) assert.ok(DOCUMENTED.has(String(ended.error)), JSON.stringify(ended));
      return ended.successful === true;
    },
    20_000,
  );
  const commandMs = performance.now() - restarted;
  assert.deepEqual(await lockStatus(t, LOCK_A), { locked: true, battery: 100, responsive: true });
  assert.deepEqual(await answer(await control(t, token, LOCK_A, 'unlock')), { status: 204, body: '' });
  assert.deepEqual(await taskEnd(t, await startTask(t, LOCK_B, 'sync')), SUCCESS);
  await eventually('the webhooks of the commands after the outage', async () => sent().length >= 3, 10_000);
  assert.deepEqual(sent(), [`${hook}/unlocked`, `${hook}/locked`, `${hook}/unlocked`]);
  assert.equal(processingTasks(rig), 0, 'a task is still processing');
  assert.equal((await t.request('/readyz')).status, 200);

  c.diagnostic(
    `${name}: away ${Math.round((restarted - lost) / 1000)} s; while away ${JSON.stringify(outcomes)}, ` +
      `slowest command + v1 control round ${Math.round(slowest)} ms; the command on the wire: ${wire.error}`,
  );
  c.diagnostic(
    `${name}: after the broker came back: gateway reconnected in ${Math.round(reconnectMs)} ms, hand turn ` +
      `reported in ${Math.round(reportedMs)} ms, a command succeeded in ${Math.round(commandMs)} ms ` +
      `(attempts: ${attempts.join(', ')})`,
  );
}

describe('the device broker away for 30 s', { concurrency: 3 }, () => {
  const noMosquitto = existsSync(MOSQUITTO_BIN) ? false : `no ${MOSQUITTO_BIN}`;
  let receiver: Receiver;
  const webhookSeed = (name: string) => ({
    ...deviceSeed(),
    webhooks: [{ account: OWNER, url: `${receiver.url}/${name}/{device_id}/{state}` }],
  });
  const rigs: Rig[] = [];
  const brokers: OwnMosquitto[] = [];
  before(async () => {
    receiver = await startReceiver();
  });
  after(async () => {
    for (const rig of rigs) await rig.close();
    for (const mosquitto of brokers) await mosquitto.dispose();
    await receiver.close();
  });

  it('the embedded broker stopped and started again', async (c) => {
    const rig = await startRig('embedded', { flags: FLAGS, simulator: false, seed: webhookSeed('embedded') });
    rigs.push(rig);
    const broker = rig.t.server.devices.broker;
    assert.ok(broker);
    await outage(rig, broker, receiver, 'embedded', c);
  });

  const ownMosquittoOutages = [
    [
      'killed',
      'killed (SIGKILL) and started again',
      (m: OwnMosquitto) => ({ stop: () => m.kill(), start: () => m.start() }),
    ],
    [
      'frozen',
      'frozen (SIGSTOP) and resumed',
      (m: OwnMosquitto) => ({ stop: () => m.pause(), start: () => m.resume() }),
    ],
  ] as const;
  for (const [label, how, fault] of ownMosquittoOutages) {
    it(`an own Mosquitto ${how}`, { skip: noMosquitto }, async (c) => {
      const mosquitto = new OwnMosquitto(await freePort());
      brokers.push(mosquitto);
      await mosquitto.start();
      const rig = await startRig('mosquitto', {
        flags: FLAGS,
        simulator: false,
        mqttUrl: mosquitto.url,
        seed: webhookSeed(label),
      });
      rigs.push(rig);
      await outage(rig, fault(mosquitto), receiver, label, c);
    });
  }
});
