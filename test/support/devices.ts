import { randomUUID } from 'node:crypto';
import type { Socket } from 'node:net';
import { connect, type IClientOptions, type MqttClient } from 'mqtt';
import type { Seed } from '../../src/app/seed/schema.ts';
import { apUsername, Topics } from '../../src/device-protocol/topics.ts';
import { SIM_HEALTH, type SimDeviceState } from '../../src/domain/sim-device.ts';
import { type AccessPointOptions, SimulatedAccessPoint } from '../../src/simulator/access-point.ts';
import { eventually } from './eventually.ts';
import { portOpen } from './mosquitto.ts';
import {
  answer,
  getLock,
  LOCK_A,
  LOCK_B,
  OTHER_LOCK,
  OWNER_KEY,
  standardSeed,
  startServer,
  type TestServer,
} from './server.ts';

export const MOSQUITTO_URL = 'mqtt://127.0.0.1:1883';

/** The owner's access point: LOCK_A and LOCK_B. */
export const AP_HOME = 'a0000000-0000-4000-8000-000000000001';
/** The owner's second access point, with no lock to start with. */
export const AP_GARAGE = 'a0000000-0000-4000-8000-000000000002';
/** The other account's access point: OTHER_LOCK. */
export const AP_OTHER = 'a0000000-0000-4000-8000-000000000003';
export const SECRETS: Readonly<Record<string, string>> = {
  [AP_HOME]: 'home-ap-secret-00000001',
  [AP_GARAGE]: 'garage-ap-secret-000002',
  [AP_OTHER]: 'other-ap-secret-0000003',
};
/** A lock no account knows yet. */
export const NEW_LOCK = 'b0000000-0000-4000-8000-0000000000e1';

export const SUCCESS = { status: 'terminated', successful: true };
export const failed = (error: string) => ({ status: 'terminated', successful: false, error });

const AP_OF: Readonly<Record<string, string>> = {
  [LOCK_A]: AP_HOME,
  [LOCK_B]: AP_HOME,
  [OTHER_LOCK]: AP_OTHER,
};

/** The standard seed, its locks on three access points with known secrets. */
export function deviceSeed(): Seed {
  const seed = standardSeed();
  return {
    ...seed,
    access_points: [
      { id: AP_HOME, account: 'owner@example.com', name: 'Home', secret: SECRETS[AP_HOME] },
      { id: AP_GARAGE, account: 'owner@example.com', name: 'Garage', secret: SECRETS[AP_GARAGE] },
      { id: AP_OTHER, account: 'other@example.com', name: 'Theirs', secret: SECRETS[AP_OTHER] },
    ],
    locks: (seed.locks ?? []).map((lock) => ({ ...lock, access_point_id: AP_OF[lock.device_id] })),
  };
}

/** The seed's state of a lock, as a simulated access point starts with it. */
export function seededDevice(deviceId: string, change: Partial<SimDeviceState> = {}): SimDeviceState {
  const lock = (standardSeed().locks ?? []).find((l) => l.device_id === deviceId);
  if (!lock) throw new Error(`${deviceId} is not in the standard seed`);
  return {
    deviceId,
    apId: AP_OF[deviceId] ?? AP_HOME,
    serial: lock.serial ?? 'SERIAL',
    nickname: lock.nickname ?? 'Lock',
    locked: lock.locked ?? true,
    battery: lock.battery ?? 100,
    responsive: true,
    accessPoint: true,
    appOpen: false,
    latencyMs: 0,
    failNext: null,
    ...SIM_HEALTH,
    ...change,
  };
}

export const silentLogger = { info: () => undefined, warn: () => undefined, error: () => undefined };

export type BrokerKind = 'embedded' | 'mosquitto';

let mosquittoProbe: Promise<boolean> | undefined;
/** The machine's Mosquitto answers on 127.0.0.1:1883 (the (M) variants are skipped otherwise). */
export function mosquittoUp(): Promise<boolean> {
  mosquittoProbe ??= portOpen(1883);
  return mosquittoProbe;
}

export interface RigOptions {
  /** Run the seed's access points inside the server (default) or not (--no-simulator). */
  readonly simulator?: boolean;
  readonly flags?: readonly string[];
  readonly seed?: Seed;
  /** An external broker other than the machine's Mosquitto (a test's own). */
  readonly mqttUrl?: string;
}

/** A server, its broker and the access points the test runs; close() ends them all. */
export interface Rig {
  readonly t: TestServer;
  readonly kind: BrokerKind;
  /** The broker as the devices reach it. */
  readonly url: string;
  readonly topics: Topics;
  raw(apId: string, options?: RawApOptions): Promise<RawAp>;
  /** `options`: e.g. `versions: [1]` for an access point on the old firmware. */
  sim(
    apId: string,
    locks: readonly SimDeviceState[],
    options?: Partial<AccessPointOptions>,
  ): Promise<SimulatedAccessPoint>;
  close(): Promise<void>;
}

export async function startRig(kind: BrokerKind, options: RigOptions = {}): Promise<Rig> {
  const flags = ['--no-rate-limit', ...(options.flags ?? [])];
  let prefix = '';
  if (kind === 'mosquitto') {
    prefix = `lctest-${randomUUID().slice(0, 8)}/`;
    flags.push('--mqtt-url', options.mqttUrl ?? MOSQUITTO_URL, '--mqtt-prefix', prefix);
  }
  if (options.simulator === false) flags.push('--no-simulator');
  const t = await startServer({ seed: options.seed ?? deviceSeed(), flags });
  const topics = new Topics(prefix);
  const url = t.server.devices.brokerUrl;
  // The machine's Mosquitto is shared by test files running at once, which use the same access
  // point ids: without a prefix, one file's access point would take over another's session (as
  // the server's own simulator does on an external broker, src/open-device-link.ts).
  const clientIdPrefix = prefix.replace(/[^A-Za-z0-9_-]/g, '-');
  const raws: RawAp[] = [];
  const sims: SimulatedAccessPoint[] = [];
  return {
    t,
    kind,
    url,
    topics,
    async raw(apId, rawOptions = {}) {
      const ap = await RawAp.connect(url, topics, apId, rawOptions.secret ?? SECRETS[apId] ?? '', {
        clientId: clientIdPrefix + apUsername(apId),
        ...rawOptions,
      });
      raws.push(ap);
      return ap;
    },
    async sim(apId, locks, simOptions = {}) {
      const ap = new SimulatedAccessPoint(apId, SECRETS[apId] ?? '', locks, {
        url,
        topics,
        clock: t.server.clock,
        lowBatteryThreshold: 10,
        logger: silentLogger,
        keepaliveSeconds: 5,
        clientIdPrefix,
        ...simOptions,
      });
      sims.push(ap);
      await ap.start();
      return ap;
    },
    async close() {
      for (const ap of raws) ap.end();
      await Promise.all(sims.map((ap) => ap.stop().catch(() => undefined)));
      await t.close();
      if (kind === 'mosquitto') await clearRetained(options.mqttUrl ?? MOSQUITTO_URL, prefix);
    },
  };
}

/** Publishes a zero-length retained message on every retained topic under the prefix. */
export async function clearRetained(url: string, prefix: string): Promise<void> {
  if (prefix === '') throw new Error('refusing to clear a whole broker');
  const client = await connectAsync(url, { clientId: `lctest-clean-${randomUUID()}`, reconnectPeriod: 0 });
  const retained = new Set<string>();
  // The broker queues the retained messages when it handles the SUBSCRIBE: a message published after
  // the SUBACK comes back after all of them.
  const marker = `${prefix}lctest-clean/${randomUUID()}`;
  let markerBack = false;
  client.on('message', (topic, payload, packet) => {
    if (topic === marker) markerBack = true;
    else if (packet.retain && payload.byteLength > 0) retained.add(topic);
  });
  await client.subscribeAsync(`${prefix}#`, { qos: 1 });
  await client.publishAsync(marker, 'after the retained messages', { qos: 1 });
  await eventually('every retained message', () => markerBack);
  for (const topic of retained) await client.publishAsync(topic, Buffer.alloc(0), { qos: 1, retain: true });
  await client.endAsync();
}

export function connectAsync(url: string, options: IClientOptions): Promise<MqttClient> {
  return new Promise((resolve, reject) => {
    const client = connect(url, { connectTimeout: 3000, ...options });
    client.once('connect', () => {
      client.off('error', onError);
      (client.stream as Socket).setNoDelay?.(true);
      resolve(client);
    });
    const onError = (error: Error): void => {
      client.end(true);
      reject(error);
    };
    client.once('error', onError);
  });
}

export interface RawApOptions {
  readonly secret?: string;
  readonly clientId?: string;
  /** Subscribe to its commands (default true). */
  readonly subscribe?: boolean;
}

export interface Received {
  readonly topic: string;
  readonly lock: string | undefined;
  readonly message: Record<string, unknown>;
}

export interface StateBody {
  readonly seq: number;
  readonly epoch?: string;
  readonly locked: boolean;
  readonly battery: number;
  readonly reachable?: boolean;
  readonly app_open?: boolean;
}

/** An access point as a bare MQTT client: publishes whatever it is told, records what it receives. */
export class RawAp {
  readonly received: Received[] = [];
  private waiters: (() => void)[] = [];

  private constructor(
    readonly client: MqttClient,
    readonly topics: Topics,
    readonly id: string,
  ) {
    client.on('message', (topic, payload) => {
      let message: Record<string, unknown> = {};
      try {
        message = JSON.parse(payload.toString()) as Record<string, unknown>;
      } catch {
        // recorded as empty
      }
      this.received.push({ topic, lock: topics.parse(topic)?.lock, message });
      for (const wake of this.waiters.splice(0)) wake();
    });
  }

  static async connect(url: string, topics: Topics, id: string, secret: string, options: RawApOptions = {}) {
    const client = await connectAsync(url, {
      clientId: options.clientId ?? apUsername(id),
      username: apUsername(id),
      password: secret,
      protocolVersion: 4,
      clean: true,
      keepalive: 5,
      reconnectPeriod: 0,
      will: {
        topic: topics.status(id),
        payload: Buffer.from('{"v":1,"online":false}'),
        qos: 1,
        retain: true,
      },
    });
    const ap = new RawAp(client, topics, id);
    if (options.subscribe !== false) await client.subscribeAsync(topics.apFilters(id), { qos: 1 });
    return ap;
  }

  publish(topic: string, payload: string | Buffer, retain = false): Promise<unknown> {
    return this.client.publishAsync(topic, payload, { qos: 1, retain });
  }

  online(online = true): Promise<unknown> {
    return this.publish(this.topics.status(this.id), JSON.stringify({ v: 1, online }), true);
  }

  pair(locks: readonly { device_id: string; serial: string; nickname: string }[]): Promise<unknown> {
    return this.publish(this.topics.locks(this.id), JSON.stringify({ v: 1, locks }), true);
  }

  state(lock: string, body: StateBody, ap = this.id): Promise<unknown> {
    const message = { v: 1, reachable: true, app_open: false, ...body };
    return this.publish(this.topics.lock(ap, lock, 'state'), JSON.stringify(message), true);
  }

  ack(lock: string, body: Record<string, unknown>): Promise<unknown> {
    return this.publish(this.topics.lock(this.id, lock, 'ack'), JSON.stringify({ v: 1, ...body }));
  }

  /**
   * The command (cmd topic) received `index`-th, 0-based, waiting for it; rejects after `timeoutMs`
   * (generous: on a loaded machine a command crosses two brokers' hops in seconds, not milliseconds).
   */
  async command(index: number, timeoutMs = 15_000): Promise<Received> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const commands = this.received.filter((r) => r.topic.endsWith('/cmd'));
      const found = commands[index];
      if (found) return found;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`access point ${this.id}: no command #${index} within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  commandCount(): number {
    return this.received.filter((r) => r.topic.endsWith('/cmd')).length;
  }

  /** Power loss: the socket goes without a DISCONNECT, so the broker publishes the last will. */
  kill(): void {
    this.client.stream.destroy();
    this.client.end(true);
  }

  end(): void {
    this.client.end(true);
  }
}

export async function lockStatus(
  t: TestServer,
  deviceId: string,
  key = OWNER_KEY,
): Promise<Record<string, unknown>> {
  const { status, body } = await answer(await getLock(t, deviceId, key));
  if (status !== 200) throw new Error(`GET /public/lock/${deviceId}: ${status} ${JSON.stringify(body)}`);
  return body as Record<string, unknown>;
}

export function statusIs(
  t: TestServer,
  deviceId: string,
  expected: Record<string, unknown>,
): () => Promise<boolean> {
  return async () => {
    const actual = await lockStatus(t, deviceId);
    return Object.entries(expected).every(([k, v]) => actual[k] === v);
  };
}

/** Waits for a task's end in real time (not the 500-poll budget of waitForTask). */
export async function taskEnd(
  t: TestServer,
  taskId: string,
  timeoutMs = 20_000,
): Promise<Record<string, unknown>> {
  let body: Record<string, unknown> = {};
  await eventually(
    `task ${taskId} to end`,
    async () => {
      const res = await t.request(`/public/action-result?task_id=${encodeURIComponent(taskId)}`, {
        key: OWNER_KEY,
      });
      const { task_id, ...outcome } = (await res.json()) as Record<string, unknown>;
      // Every answer names its task (issue 21); the outcome is what the callers compare.
      if (res.status === 200 && task_id !== taskId) throw new Error(`action-result named ${String(task_id)}`);
      body = outcome;
      return body.status !== 'processing';
    },
    timeoutMs,
  );
  return body;
}

/**
 * Both device protocols side by side: AP_HOME a version-2 simulated access point with `homeLocks`,
 * and AP_OTHER a bare version-1 client writing today's messages, with OTHER_LOCK paired, locked, at
 * 64 %. Resolves once the cloud has both statuses, AP_HOME's as version 2.
 */
export async function oldAndNew(
  rig: Rig,
  homeLocks: readonly SimDeviceState[],
): Promise<{ home: SimulatedAccessPoint; old: RawAp }> {
  const home = await rig.sim(AP_HOME, homeLocks);
  const old = await rig.raw(AP_OTHER);
  await old.online();
  await old.pair([{ device_id: OTHER_LOCK, serial: 'OTHER-1', nickname: 'Theirs' }]);
  await old.state(OTHER_LOCK, { seq: 1, locked: true, battery: 64 });
  const { accessPoints } = rig.t.server.store;
  await eventually(
    'both access points',
    async () =>
      (await accessPoints.get(AP_HOME))?.protocolVersion === 2 &&
      (await accessPoints.get(AP_OTHER))?.online === true,
  );
  return { home, old };
}

export { freePort, MOSQUITTO_BIN, OwnMosquitto, portOpen } from './mosquitto.ts';
