/**
 * A command's round trip through the MQTT device link, against bare MQTT request/response measured
 * in the same run. Ours: the gateway publishes a command, the server's simulated access point
 * carries it out and acks, the gateway checks the ack and applies its state (the whole device path
 * of a task, without HTTP). Baseline: two bare mqtt.js clients echoing a message through a bare aedes
 * broker, with TCP_NODELAY, and (a few rounds) without it: Nagle's algorithm against delayed ACKs.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createTcpServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Aedes } from 'aedes';
import { connect, type MqttClient } from 'mqtt';
import { startInProcess } from './lib/in-process.ts';
import { fmtMs, fmtRatio, quantile, report } from './lib/report.ts';

const LOCK = '00000000-0000-4000-8000-000000000001';
const ROUNDS = 2000;
const NAGLE_ROUNDS = 20;

async function ours(): Promise<number[]> {
  const dir = mkdtempSync(join(tmpdir(), 'lockcloud-bench-'));
  const seed = join(dir, 'seed.json');
  writeFileSync(
    seed,
    JSON.stringify({
      accounts: [{ email: 'a@example.com' }],
      locks: [{ device_id: LOCK, owner: 'a@example.com' }],
    }),
  );
  const server = await startInProcess(dir, seed);
  const lock = await server.store.locks.get(LOCK);
  if (!lock?.accessPointId) throw new Error('the seeded lock has no access point');
  const times: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const started = performance.now();
    const result = await server.devices.gateway.execute({
      taskId: randomUUID(),
      deviceId: LOCK,
      accessPointId: lock.accessPointId,
      responsive: true,
      command: i % 2 === 0 ? 'unlock' : 'lock',
      deadline: Date.now() + 15_000,
    });
    if (!result.ok) throw new Error(`command failed: ${result.error}`);
    times.push(performance.now() - started);
  }
  await server.close();
  rmSync(dir, { recursive: true, force: true });
  return times;
}

async function bare(noDelay: boolean, rounds: number): Promise<number[]> {
  const broker = await Aedes.createBroker();
  const server: Server = createTcpServer({ noDelay }, (socket) => broker.handle(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  const client = async (): Promise<MqttClient> => {
    const c = connect(`mqtt://127.0.0.1:${port}`, { clean: true });
    await new Promise<void>((resolve) => c.once('connect', () => resolve()));
    if (noDelay) (c.stream as Socket).setNoDelay(true);
    return c;
  };
  const cloud = await client();
  const device = await client();
  await device.subscribeAsync('cmd', { qos: 1 });
  await cloud.subscribeAsync('ack', { qos: 1 });
  device.on('message', (_topic, payload) => device.publish('ack', payload, { qos: 1 }));
  const times: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const started = performance.now();
    await new Promise<void>((resolve) => {
      cloud.once('message', () => resolve());
      cloud.publish('cmd', JSON.stringify({ i }), { qos: 1 });
    });
    times.push(performance.now() - started);
  }
  await cloud.endAsync();
  await device.endAsync();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await new Promise<void>((resolve) => broker.close(() => resolve()));
  return times;
}

// Warm up both paths, then measure.
await bare(true, 200);
const baseline = await bare(true, ROUNDS);
const device = await ours();
const nagle = await bare(false, NAGLE_ROUNDS);

const ratio = (xs: number[]): string => fmtRatio(quantile(xs, 0.5) / quantile(baseline, 0.5));
const row = (name: string, times: number[], r: string): string[] => [
  name,
  String(times.length),
  fmtMs(quantile(times, 0.5)),
  fmtMs(quantile(times, 0.99)),
  r,
];
report({
  name: 'device-round-trip',
  title: "A command's round trip through the MQTT device link, without HTTP (bench/device-round-trip.ts)",
  columns: ['case', 'rounds', 'p50', 'p99', 'p50 ratio to bare'],
  rows: [
    row('bare MQTT echo through aedes, TCP_NODELAY (baseline)', baseline, '1.00'),
    row('lockcloud command round trip (gateway → simulated AP → ack applied)', device, ratio(device)),
    row('bare MQTT echo without TCP_NODELAY', nagle, ratio(nagle)),
  ],
  targets: [],
  notes: [
    "In process: the gateway publishes a command, the server's own simulated access point carries it out and acks, the gateway applies it; one at a time.",
  ],
});
process.exit(0);
