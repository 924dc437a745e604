import type {
  Clock,
  DeviceTraffic,
  Logger,
  SecretBox,
  SimDeviceStore,
  SimulatedLockChange,
  SimulatedLockState,
  Simulator,
} from '../app/ports.ts';
import type { Topics } from '../device-protocol/topics.ts';
import { DomainError } from '../domain/errors.ts';
import type { SimDeviceState } from '../domain/sim-device.ts';
import { Fleet } from './fleet.ts';

/** Sends a sandbox change to the simulated device that has the lock, and waits for its answer. */
export type SimRelay = (
  apId: string,
  deviceId: string,
  change: SimulatedLockChange,
) => Promise<SimulatedLockState>;

export interface ServerSimulatorOptions {
  readonly url: string;
  readonly topics: Topics;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly store: SimDeviceStore;
  readonly secretBox: SecretBox;
  /** The cloud's side of the sandbox messages (the device gateway's). */
  readonly relay: SimRelay;
  readonly traffic: DeviceTraffic;
  readonly lowBatteryThreshold: number;
  /** false (--no-simulator): the simulated devices run elsewhere (`lockcloud sim`); only relay to them. */
  readonly runDevices: boolean;
  /** See AccessPointOptions.clientIdPrefix: set on an external broker. */
  readonly clientIdPrefix?: string;
}

// How long a start or reset waits for the simulated devices' announcements to be applied.
const SETTLE_MS = 5000;

/**
 * The sandbox's simulator: changes are relayed over the device link to whichever simulated device
 * has the lock; the devices the seed or the demo created run here, as clients of the same broker as
 * real ones, their state kept in the store so a restart finds them as they were.
 */
export class ServerSimulator implements Simulator {
  private fleet: Fleet | undefined;
  private started: Promise<void> = Promise.resolve();

  constructor(private readonly options: ServerSimulatorOptions) {}

  /**
   * Starts the simulated access points kept in the store that do not run yet (at the server's start,
   * once the demo is made, for a lock added to the sandbox), and waits until the cloud has heard
   * them. One at a time: a second call must not answer while the first still connects its own.
   */
  start(): Promise<void> {
    const run = this.started.then(() => this.startNew());
    this.started = run.catch(() => undefined);
    return run;
  }

  private async startNew(): Promise<void> {
    if (!this.options.runDevices) return;
    const { store, secretBox, traffic } = this.options;
    this.fleet ??= new Fleet({
      url: this.options.url,
      topics: this.options.topics,
      clock: this.options.clock,
      logger: this.options.logger,
      lowBatteryThreshold: this.options.lowBatteryThreshold,
      clientIdPrefix: this.options.clientIdPrefix,
      inFlight: traffic,
      onChange: (state) => store.save(state),
    });
    const fleet = this.fleet;
    const states = await store.list();
    const added = [];
    for (const ap of await store.listAccessPoints()) {
      if (fleet.get(ap.id)) continue;
      traffic.track(ap.id);
      added.push(
        fleet.add({
          id: ap.id,
          secret: secretBox.open(ap.sealedSecret),
          locks: states.filter((s) => s.apId === ap.id),
        }),
      );
    }
    await fleet.start(added);
    await traffic.idle(SETTLE_MS);
  }

  get runsDevices(): boolean {
    return this.options.runDevices;
  }

  change(deviceId: string, apId: string, change: SimulatedLockChange): Promise<SimulatedLockState> {
    return this.options.relay(apId, deviceId, change);
  }

  async pair(state: SimDeviceState): Promise<void> {
    const fleet = this.fleet;
    if (!fleet) throw new Error('the simulated devices do not run here');
    const running = fleet.get(state.apId);
    if (running) running.addLock(state);
    else
      await this.start().catch((error: unknown) => {
        // An external broker knows only the access points of its last `lockcloud admin mqtt-acl`.
        throw new DomainError(
          'NOT_CONFIGURED',
          `the broker refused the new simulated access point ${state.apId}: ${(error as Error).message} (an external broker needs lockcloud admin mqtt-acl and a reload first)`,
        );
      });
    await this.options.traffic.idle(SETTLE_MS);
  }

  async reload(): Promise<void> {
    if (!this.fleet) return;
    const { store, traffic } = this.options;
    // A command on its way to a device must arrive (and be forgotten by the reload), not land after it.
    await traffic.idle(SETTLE_MS);
    // Access points added since the snapshot (a simulated lock added to the sandbox) are gone with it.
    const kept = new Set((await store.listAccessPoints()).map((ap) => ap.id));
    for (const ap of await this.fleet.keepOnly(kept)) traffic.untrack(ap.id);
    this.fleet.reload(await store.list());
    await traffic.idle(SETTLE_MS);
  }

  async stop(): Promise<void> {
    await this.fleet?.stop();
    this.fleet = undefined;
  }
}
