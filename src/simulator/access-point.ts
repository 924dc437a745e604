import { randomUUID } from 'node:crypto';
import type { Cancel, Clock, DeviceTraffic, Logger } from '../app/ports.ts';
import { decode, encode, type Message } from '../device-protocol/codec.ts';
import type { Topics } from '../device-protocol/topics.ts';
import type * as v2 from '../device-protocol/v2.ts';
import { BASE_VERSION, LATEST_VERSION, type PayloadVersion } from '../device-protocol/versions.ts';
import type { SimDeviceState } from '../domain/sim-device.ts';
import { ApLink, type RetainedMessage } from './ap-link.ts';
import { AutoLock, type RelockOutcome } from './auto-lock.ts';
import { linkReason } from './link-trouble.ts';
import { autoRelock, carryOut, changed, type WorldChange } from './lock-rules.ts';
import { signalOf, simStateOf, simStateOfV2, stateOf, stateOfV2 } from './reports.ts';

export interface AccessPointOptions {
  /** The broker, e.g. mqtt://127.0.0.1:1884. */
  readonly url: string;
  readonly topics: Topics;
  /** Latency and command deadlines are read on this clock (the sandbox's, inside the server). */
  readonly clock: Clock;
  readonly lowBatteryThreshold: number;
  readonly logger: Logger;
  /**
   * Put before the client id (the user name) on a broker other deployments share under other topic
   * prefixes, so one's access point does not take over another's session of the same id. Empty for
   * the embedded broker, which requires the client id to be the user name (Mosquitto as `admin
   * mqtt-acl` configures it takes the user name as the client id anyway).
   */
  readonly clientIdPrefix?: string;
  /** Seconds between keep-alives: the broker notices a vanished access point within 1.5 times this. */
  readonly keepaliveSeconds?: number;
  /** Battery a lock or unlock costs, in whole percent. */
  readonly drainPerCommand?: number;
  /** Probability that a lock or unlock jams. */
  readonly jamRate?: number;
  /**
   * The payload versions the access point speaks (docs/device-protocol.md, "Versioning"): by default
   * every one this build knows; `[1]` plays an access point on the old firmware, which says nothing
   * of its locks' health and knows no settings.
   */
  readonly versions?: readonly PayloadVersion[];
  /** Its Wi-Fi signal in dBm, reported in a version-2 status (default: one derived from its id). */
  readonly rssi?: number;
  readonly random?: () => number;
  /** Counts messages to and from the server's own simulated devices (sandbox clock settling). */
  readonly inFlight?: DeviceTraffic;
  /** Keeps a lock's simulated state after each change (the server's own simulator persists it). */
  readonly onChange?: (state: SimDeviceState) => Promise<void>;
  /**
   * Told when the connection is lost or refused, with the wait before the next attempt, and when it
   * is up again; the fleet gathers these into a line per reason (link-trouble.ts). Without it, each
   * failure is logged on its own, in one line.
   */
  readonly link?: {
    failed(apId: string, reason: string, retryInMs: number): void;
    connected(apId: string): void;
  };
}

const FIRMWARE = 'lockcloud-sim/2';
const REMEMBERED_TASKS = 1000;

/**
 * A simulated Wi-Fi access point and the locks paired with it, speaking the device protocol over a
 * real MQTT connection exactly as a real one would: it announces itself (with a last will), its locks
 * and their states, carries out commands after each lock's latency, and reports hand turns. It is
 * the same code inside the server (the demo, the sandbox) and in `lockcloud sim`.
 */
export class SimulatedAccessPoint {
  private readonly link: ApLink;
  private readonly locks = new Map<string, SimDeviceState>();
  private seq = 0;
  // A new epoch per run: the cloud then accepts our counter starting again from 1.
  private readonly epoch = randomUUID();
  private readonly answered = new Set<string>();
  private readonly timers = new Set<Cancel>();
  private readonly autoLock: AutoLock;
  /** The highest version it speaks: what it writes, and the newest it reads. */
  readonly version: PayloadVersion;
  private readonly versions: readonly PayloadVersion[];

  constructor(
    readonly id: string,
    secret: string,
    locks: readonly SimDeviceState[],
    private readonly options: AccessPointOptions,
  ) {
    for (const lock of locks) this.locks.set(lock.deviceId, lock);
    this.versions = options.versions ?? [BASE_VERSION, LATEST_VERSION];
    this.version = this.versions.reduce<PayloadVersion>((a, b) => (b > a ? b : a), BASE_VERSION);
    this.link = new ApLink(id, secret, {
      url: options.url,
      ...(options.clientIdPrefix === undefined ? {} : { clientIdPrefix: options.clientIdPrefix }),
      ...(options.keepaliveSeconds === undefined ? {} : { keepaliveSeconds: options.keepaliveSeconds }),
      logger: options.logger,
      ...(options.link ? { link: options.link } : {}),
      will: this.goneStatus(),
      onConnect: (client) => {
        // A clean session forgets the subscription: made again on each connection, before the
        // announcement, so the broker has it before the cloud can answer.
        client.subscribe(options.topics.apFilters(id, this.version), { qos: 1 });
        this.announce();
      },
      onMessage: (topic, payload) => this.onMessage(topic, payload),
    });
    this.autoLock = new AutoLock({
      apId: id,
      clock: options.clock,
      logger: options.logger,
      ...(options.inFlight ? { inFlight: options.inFlight } : {}),
      relock: (deviceId) => this.relock(deviceId),
    });
  }

  /** It speaks version 2: it reports its locks' health and carries out their settings. */
  get health(): boolean {
    return this.version >= 2;
  }

  get connected(): boolean {
    return this.link.up !== undefined;
  }

  /** What the access point says of itself going away: its last will, or its last words. */
  private goneStatus(): RetainedMessage {
    return {
      topic: this.options.topics.status(this.id),
      payload: encode('status', { v: BASE_VERSION, online: false }),
    };
  }

  lockIds(): string[] {
    return [...this.locks.keys()];
  }

  lock(deviceId: string): SimDeviceState | undefined {
    return this.locks.get(deviceId);
  }

  /** Connects, reconnecting after a loss (ApLink.start: resolves at the first connection). */
  start(): Promise<void> {
    return this.link.start();
  }

  /** Switched off properly: says it is going, then disconnects (no last will). */
  async stop(): Promise<void> {
    this.cancelTimers();
    await this.link.stop(this.goneStatus(), () => this.options.inFlight?.begin(this.id));
  }

  /** Loses power: the connection drops without a word, so the broker publishes the last will. */
  kill(): void {
    this.cancelTimers();
    this.link.kill();
  }

  /** A lock newly paired with this access point (the sandbox adds one): announced at once. */
  addLock(state: SimDeviceState): void {
    this.locks.set(state.deviceId, state);
    // Not connected: the announcement at the connection names it.
    if (!this.connected) return;
    this.publishLocks();
    if (state.accessPoint) this.publishState(state);
  }

  /** Takes these states instead (the sandbox's reset) and tells the cloud. */
  reload(locks: readonly SimDeviceState[]): void {
    this.cancelTimers();
    this.locks.clear();
    for (const lock of locks) this.locks.set(lock.deviceId, lock);
    if (this.connected) this.announce();
  }

  /**
   * A hand turn, a battery reading, the door, the app: changes the lock as the world would, and
   * reports it. The lock's health (door, jam, firmware) changes only on a version-2 access point.
   */
  async changeLock(deviceId: string, change: v2.SimChange): Promise<SimDeviceState | undefined> {
    const device = this.locks.get(deviceId);
    if (!device) return undefined;
    const world: WorldChange = {
      locked: change.locked,
      battery: change.battery,
      reachable: change.reachable,
      paired: change.paired,
      appOpen: change.app_open,
      latencyMs: change.latency_ms,
      failNext: change.fail_next,
      ...(this.health ? { door: change.door, jammed: change.jammed, firmware: change.fw } : {}),
    };
    const next = changed(device, world);
    await this.save(next);
    if (next.accessPoint !== device.accessPoint) this.publishLocks();
    if (next.accessPoint) this.publishState(next);
    this.followAutoLock(device, next);
    return next;
  }

  /** The auto-lock's turn: relock and report it as `cause: "auto"`, or wait for the door. */
  private async relock(deviceId: string): Promise<RelockOutcome> {
    const device = this.locks.get(deviceId);
    if (!device) return 'none';
    const verdict = autoRelock(device, this.options.drainPerCommand);
    if (verdict.kind !== 'relock') return verdict.kind === 'wait' ? 'wait' : 'none';
    await this.save(verdict.next);
    this.publishState(verdict.next, 'auto');
    return 'relocked';
  }

  /** Tells the auto-lock of a change of the lock (only a version-2 access point has one). */
  private followAutoLock(before: SimDeviceState, after: SimDeviceState): void {
    if (this.health) this.autoLock.follow(before, after);
  }

  private announce(): void {
    const { topics } = this.options;
    this.publish(
      topics.status(this.id),
      this.health
        ? encode('status', {
            v: 2,
            online: true,
            fw: FIRMWARE,
            rssi: this.options.rssi ?? signalOf(this.id),
            versions: [...this.versions],
          })
        : encode('status', { v: BASE_VERSION, online: true, fw: 'lockcloud-sim/1' }),
      true,
    );
    this.publishLocks();
    for (const lock of this.locks.values()) if (lock.accessPoint) this.publishState(lock);
  }

  private publishLocks(): void {
    const paired = [...this.locks.values()]
      .filter((lock) => lock.accessPoint)
      .map((lock) => ({ device_id: lock.deviceId, serial: lock.serial, nickname: lock.nickname }));
    this.publish(
      this.options.topics.locks(this.id),
      encode('locks', { v: BASE_VERSION, locks: paired }),
      true,
    );
  }

  private publishState(lock: SimDeviceState, cause?: 'auto'): void {
    const topic = this.options.topics.lock(this.id, lock.deviceId, 'state');
    const at = new Date(this.options.clock.now()).toISOString();
    const seq = ++this.seq;
    const { epoch } = this;
    this.publish(
      topic,
      this.health
        ? encode('state', { v: 2, seq, epoch, ...stateOfV2(lock), at, ...(cause ? { cause } : {}) })
        : encode('state', { v: BASE_VERSION, seq, epoch, ...stateOf(lock), at }),
      true,
    );
  }

  private onMessage(topic: string, payload: Buffer): void {
    // The message counts as in flight until what it sets off has been published.
    void this.handle(topic, payload)
      .catch((error: unknown) =>
        this.options.logger.error({ apId: this.id, topic, err: error }, 'access point failed'),
      )
      .finally(() => this.options.inFlight?.end(this.id));
  }

  private async handle(topic: string, payload: Buffer): Promise<void> {
    const parsed = this.options.topics.parse(topic);
    const { logger } = this.options;
    if (!parsed?.lock || parsed.ap !== this.id) return;
    const drop = (problem: string): void => logger.warn({ apId: this.id, topic, problem }, 'message dropped');
    if (parsed.kind === 'config') {
      const decoded = decode('config', payload);
      if (!decoded.ok) return drop(decoded.problem);
      // A version-1 access point would not even subscribe; one that gets a setting anyway ignores it.
      if (!this.health) return drop('settings need version 2');
      await this.onConfig(parsed.lock, decoded.message.auto_lock_seconds);
      return;
    }
    if (parsed.kind === 'cmd') {
      const decoded = decode('cmd', payload);
      if (decoded.ok) await this.onCommand(parsed.lock, decoded.message);
      else logger.warn({ apId: this.id, topic, problem: decoded.problem }, 'malformed command dropped');
    } else if (parsed.kind === 'sim') {
      const decoded = decode('sim', payload);
      // An access point on the old firmware cannot read a later version's message.
      if (decoded.ok && decoded.message.v > this.version)
        drop(`version ${decoded.message.v} is not spoken here`);
      else if (decoded.ok) await this.onSim(parsed.lock, decoded.message);
      else
        logger.warn({ apId: this.id, topic, problem: decoded.problem }, 'malformed sandbox change dropped');
    }
  }

  private async onCommand(deviceId: string, message: Message<'cmd'>): Promise<void> {
    const { clock, inFlight } = this.options;
    // QoS 1 may deliver a command twice; a command past its deadline was already ended by the cloud.
    if (this.answered.has(message.task_id) || clock.now() > Date.parse(message.deadline)) return;
    this.remember(message.task_id);
    const device = this.locks.get(deviceId);
    if (!device) return this.ack(deviceId, message.task_id, { ok: false, error: 'DEVICE_UNREACHABLE' });
    if (device.latencyMs === 0) return this.carry(deviceId, message);
    const cancel = clock.at(clock.now() + device.latencyMs, () => {
      this.timers.delete(cancel);
      // In flight from the moment the lock moves until its answer is out (sandbox clock settling).
      inFlight?.begin(this.id);
      void this.carry(deviceId, message)
        .catch((error: unknown) => this.options.logger.error({ apId: this.id, err: error }, 'command failed'))
        .finally(() => inFlight?.end(this.id));
    });
    this.timers.add(cancel);
  }

  private async carry(deviceId: string, message: Message<'cmd'>): Promise<void> {
    const device = this.locks.get(deviceId);
    if (!device) return;
    const { lowBatteryThreshold, drainPerCommand = 0, jamRate = 0, random = Math.random } = this.options;
    const jam =
      message.command !== 'sync' &&
      jamRate > 0 &&
      device.failNext === null &&
      !device.jammed &&
      random() < jamRate;
    const { next, outcome } = carryOut(
      device,
      message.command,
      lowBatteryThreshold,
      drainPerCommand,
      this.health,
      jam,
    );
    if (next !== device) await this.save(next);
    if (outcome === null) return; // swallowed: the cloud will call it a TIMEOUT
    this.ack(deviceId, message.task_id, outcome.ok ? { ok: true } : { ok: false, error: outcome.error });
    if (next.locked !== device.locked || next.battery !== device.battery || next.jammed !== device.jammed)
      this.publishState(next);
    this.followAutoLock(device, next);
  }

  /** A setting from the cloud: the lock runs it from now on and says so in its next report. */
  private async onConfig(deviceId: string, autoLockSeconds: number): Promise<void> {
    const device = this.locks.get(deviceId);
    if (!device || device.autoLockSeconds === autoLockSeconds) return;
    const next = { ...device, autoLockSeconds };
    await this.save(next);
    if (next.accessPoint) this.publishState(next);
    // A new delay counts from now for a lock already unlocked.
    if (!next.locked && autoLockSeconds > 0) this.autoLock.schedule(next);
    else this.autoLock.cancel(deviceId);
  }

  private ack(
    deviceId: string,
    taskId: string,
    outcome:
      | { ok: true }
      | { ok: false; error: 'JAMMED' | 'DEVICE_IS_BUSY' | 'LOW_BATTERY' | 'DEVICE_UNREACHABLE' },
  ): void {
    const device = this.locks.get(deviceId);
    const topic = this.options.topics.lock(this.id, deviceId, 'ack');
    const present = device?.accessPoint && device.responsive ? device : undefined;
    const seq = ++this.seq;
    const { epoch } = this;
    this.publish(
      topic,
      this.health
        ? encode('ack', {
            v: 2,
            task_id: taskId,
            seq,
            epoch,
            ...outcome,
            state: present && stateOfV2(present),
          })
        : encode('ack', {
            v: BASE_VERSION,
            task_id: taskId,
            seq,
            epoch,
            ...outcome,
            state: present && stateOf(present),
          }),
      false,
    );
  }

  private async onSim(deviceId: string, message: Message<'sim'>): Promise<void> {
    const next = await this.changeLock(deviceId, message.change);
    if (!next) return; // not ours: the cloud's wait runs out and says so
    const topic = this.options.topics.lock(this.id, deviceId, 'sim-ack');
    const req_id = message.req_id;
    this.publish(
      topic,
      this.health
        ? encode('sim-ack', { v: 2, req_id, sim: simStateOfV2(next) })
        : encode('sim-ack', { v: BASE_VERSION, req_id, sim: simStateOf(next) }),
      false,
    );
  }

  private async save(next: SimDeviceState): Promise<void> {
    this.locks.set(next.deviceId, next);
    await this.options.onChange?.(next);
  }

  private publish(topic: string, payload: string, retain: boolean): void {
    const client = this.link.up;
    if (!client) return;
    this.options.inFlight?.begin(this.id);
    client.publish(topic, payload, { qos: 1, retain }, (error) => {
      if (!error) return;
      // A connection lost with this message on the wire: the loss itself is told once (above), and
      // the message will not arrive, so it is no longer in flight.
      this.options.inFlight?.end(this.id);
      this.options.logger.warn(
        { apId: this.id, topic, reason: linkReason(error) },
        'access point publish failed',
      );
    });
  }

  private remember(taskId: string): void {
    this.answered.add(taskId);
    if (this.answered.size > REMEMBERED_TASKS) {
      const oldest = this.answered.values().next().value;
      if (oldest !== undefined) this.answered.delete(oldest);
    }
  }

  private cancelTimers(): void {
    for (const cancel of this.timers) cancel();
    this.timers.clear();
    this.autoLock.clear();
  }
}
