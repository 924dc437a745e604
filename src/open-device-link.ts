/**
 * Part of the composition root: the device link the configuration names. By default an embedded
 * MQTT broker on a port of its own, else the external broker of --mqtt-url; in both cases the
 * server reaches the devices through one MQTT connection, and runs the simulated devices of the seed
 * or the demo as ordinary MQTT clients unless --no-simulator.
 */
import { hostname } from 'node:os';
import { CLOUD_USERNAME, EmbeddedBroker } from './adapters/devices/mqtt/embedded-broker.ts';
import { MqttGateway } from './adapters/devices/mqtt/gateway.ts';
import { InFlight } from './adapters/devices/mqtt/in-flight.ts';
import { Topics } from './adapters/devices/mqtt/topics.ts';
import { ServerSimulator } from './adapters/devices/server-simulator.ts';
import type { AdjustableClock } from './adapters/system/clock.ts';
import type { Logger, RandomSource, SecretBox, SecretHasher, Store } from './app/ports.ts';
import type { Config } from './config/config.ts';

export interface DeviceLinkParts {
  readonly gateway: MqttGateway;
  readonly simulator: ServerSimulator;
  /** undefined with an external broker. */
  readonly broker: EmbeddedBroker | undefined;
  /** The URL devices connect to. */
  readonly brokerUrl: string;
}

export interface DeviceLinkDeps {
  readonly store: Store;
  readonly clock: AdjustableClock;
  readonly logger: Logger;
  readonly random: RandomSource;
  readonly secrets: SecretHasher;
  readonly secretBox: SecretBox;
}

export async function openDeviceLink(
  config: Pick<
    Config,
    | 'mqttUrl'
    | 'mqttHost'
    | 'mqttPort'
    | 'mqttPrefix'
    | 'mqttShareGroup'
    | 'simulator'
    | 'lowBatteryThreshold'
  >,
  deps: DeviceLinkDeps,
): Promise<DeviceLinkParts> {
  const topics = new Topics(config.mqttPrefix);
  const inFlight = new InFlight();
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
      url: url.replace(/\/\/[^@/]*@/, '//'),
      topics,
      clock: deps.clock,
      logger: deps.logger,
      store: deps.store.simDevices,
      secretBox: deps.secretBox,
      gateway,
      inFlight,
      lowBatteryThreshold: config.lowBatteryThreshold,
      runDevices: config.simulator,
      // A shared external broker: the topic prefix keeps this deployment's device sessions apart.
      clientIdPrefix: broker === undefined ? topics.prefix.replace(/[^A-Za-z0-9_-]/g, '-') : undefined,
    });
    return { gateway, simulator, broker, brokerUrl: url.replace(/\/\/[^@/]*@/, '//') };
  } catch (error) {
    await broker?.stop();
    throw error;
  }
}
