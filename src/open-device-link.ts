/**
 * Part of the composition root: the device link the configuration names. By default an embedded
 * MQTT broker on a port of its own, else the external broker of --mqtt-url; in both cases the
 * server reaches the devices through one MQTT connection, and runs the simulated devices of the seed
 * or the demo as ordinary MQTT clients unless --no-simulator. What it hands back is not MQTT-shaped:
 * the ports the application uses, the readiness checks, and one close.
 */
import { hostname } from 'node:os';
import { InFlight } from './adapters/devices/in-flight.ts';
import { CLOUD_USERNAME, EmbeddedBroker } from './adapters/devices/mqtt/embedded-broker.ts';
import { MqttGateway } from './adapters/devices/mqtt/gateway.ts';
import type { AdjustableClock } from './adapters/system/clock.ts';
import type {
  DeviceBrokerMetrics,
  DeviceGateway,
  Logger,
  RandomSource,
  ReadinessCheck,
  SecretBox,
  SecretHasher,
  Simulator,
  Store,
} from './app/ports.ts';
import type { Config } from './config/config.ts';
import { Topics } from './device-protocol/topics.ts';
import { ServerSimulator } from './simulator/server-simulator.ts';

export interface DeviceLink {
  /** The way to the locks, and whether it is up now. Not closed by close(): main.ts closes it first. */
  readonly gateway: DeviceGateway & { readonly connected: boolean };
  /** The sandbox's way to the simulated devices; `start` runs the ones the store holds (seed, demo). */
  readonly simulator: Simulator & { start(): Promise<void> };
  /** What /readyz checks for the device link. */
  readonly readiness: readonly ReadinessCheck[];
  /** Where devices connect (no credentials in it). */
  readonly brokerUrl: string;
  /** The embedded broker, if the server runs one: tests stop and start it to fake an outage. */
  readonly broker: EmbeddedBroker | undefined;
  /** Stops the simulated devices, then the embedded broker. */
  close(): Promise<void>;
}

export interface DeviceLinkDeps {
  readonly store: Store;
  readonly clock: AdjustableClock;
  readonly logger: Logger;
  readonly random: RandomSource;
  readonly secrets: SecretHasher;
  readonly secretBox: SecretBox;
  readonly metrics?: DeviceBrokerMetrics;
}

export type DeviceLinkConfig = Pick<
  Config,
  | 'mqttUrl'
  | 'mqttHost'
  | 'mqttPort'
  | 'mqttPrefix'
  | 'mqttShareGroup'
  | 'mqttMaxConnections'
  | 'mqttMaxConnectionsPerAddress'
  | 'simulator'
  | 'lowBatteryThreshold'
>;

const withoutCredentials = (url: string): string => url.replace(/\/\/[^@/]*@/, '//');

export async function openDeviceLink(config: DeviceLinkConfig, deps: DeviceLinkDeps): Promise<DeviceLink> {
  const topics = new Topics(config.mqttPrefix);
  const inFlight = new InFlight((count, apIds) =>
    deps.logger.warn({ count, apIds }, 'simulated device messages lost on the way, no longer waited for'),
  );
  deps.clock.settleWith(() => inFlight.idle(2000));
  let broker: EmbeddedBroker | undefined;
  let url: string;
  let credentials: { username?: string; password?: string } = {};
  if (config.mqttUrl === undefined) {
    const cloudSecret = deps.random.secret(24);
    broker = new EmbeddedBroker({
      host: config.mqttHost,
      port: config.mqttPort,
      topics,
      accessPoints: deps.store.accessPoints,
      secrets: deps.secrets,
      cloudSecret,
      logger: deps.logger,
      clock: deps.clock,
      maxConnections: config.mqttMaxConnections,
      maxConnectionsPerAddress: config.mqttMaxConnectionsPerAddress,
      metrics: deps.metrics,
    });
    await broker.start();
    url = broker.url;
    credentials = { username: CLOUD_USERNAME, password: cloudSecret };
  } else {
    url = config.mqttUrl;
  }
  try {
    const gateway = await MqttGateway.connect({
      url,
      ...credentials,
      clientId: `lockcloud-${hostname()}-${process.pid}-${deps.random.secret(6)}`,
      topics,
      clock: deps.clock,
      logger: deps.logger,
      inFlight,
      // An external broker may serve several server processes: each device message goes to one.
      shareGroup: broker === undefined ? config.mqttShareGroup : undefined,
    });
    const simulator = new ServerSimulator({
      url: withoutCredentials(url),
      topics,
      clock: deps.clock,
      logger: deps.logger,
      store: deps.store.simDevices,
      secretBox: deps.secretBox,
      relay: (apId, deviceId, change) => gateway.relaySim(apId, deviceId, change),
      traffic: inFlight,
      lowBatteryThreshold: config.lowBatteryThreshold,
      runDevices: config.simulator,
      // A shared external broker: the topic prefix keeps this deployment's device sessions apart.
      clientIdPrefix: broker === undefined ? topics.prefix.replace(/[^A-Za-z0-9_-]/g, '-') : undefined,
    });
    const embedded = broker;
    return {
      gateway,
      simulator,
      readiness: gateway.readinessChecks(),
      brokerUrl: withoutCredentials(url),
      broker: embedded,
      async close() {
        await simulator.stop();
        await embedded?.stop();
      },
    };
  } catch (error) {
    await broker?.stop();
    throw error;
  }
}
