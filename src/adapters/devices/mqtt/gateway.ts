import type { Socket } from 'node:net';
import { connect, type IClientOptions, type MqttClient } from 'mqtt';
import { KeyedQueue } from '../../../app/keyed-queue.ts';
import type {
  Cancel,
  Clock,
  DeviceCommand,
  DeviceGateway,
  DeviceListener,
  DeviceResult,
  DeviceTraffic,
  Logger,
  ReadinessCheck,
  SimulatedLockChange,
  SimulatedLockState,
} from '../../../app/ports.ts';
import { redactSecret } from '../../../config/redact.ts';
import { decode, encode, type Message } from '../../../device-protocol/codec.ts';
import type { ParsedTopic, Topics } from '../../../device-protocol/topics.ts';
import { BASE_VERSION } from '../../../device-protocol/versions.ts';
import { Admission } from './admission.ts';
import { accessPointInfoOf, reportOf, reportOfV2 } from './device-messages.ts';
import { SimRelay } from './sim-relay.ts';

export interface MqttGatewayOptions {
  readonly url: string;
  readonly username?: string;
  readonly password?: string;
  readonly clientId: string;
  readonly topics: Topics;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly inFlight?: DeviceTraffic;
  /** How long the sandbox waits for a simulated device to answer a change. */
  readonly simTimeoutMs?: number;
  /**
   * Several cloud processes share the device messages as this shared-subscription group; undefined:
   * this process hears every message (the embedded broker, one process).
   */
  readonly shareGroup?: string;
  /** The keep-alive's timer (tests drive it by hand); undefined: mqtt.js's own, in real time. */
  readonly keepaliveTimer?: IClientOptions['timerVariant'];
}

interface Pending {
  readonly apId: string;
  readonly deviceId: string;
  readonly resolve: (result: DeviceResult) => void;
  readonly cancel: () => void;
}

// Past the deadline the task has ended as TIMEOUT; the wait is only kept a little longer for a late ack.
const LATE_ACK_GRACE_MS = 1000;
// Retained messages follow a subscription at once; a pause this long (on the clock) means they are
// all in. Exported for the test that drives the catch-up with its own clock.
export const CATCH_UP_QUIET_MS = 300;
/**
 * Device messages handled at once, at most (admission.ts). Low enough to keep a storm out of the
 * heap; high enough that a command's acknowledgement, which is read in turn behind whatever the
 * broker queued before it, does not wait out its deadline: at 64, 32 of 10,000 commands sent after
 * a broker restart at 100,000 locks ended TIMEOUT, at 1,024 none did (docs/performance-notes.md).
 * Those runs also lost this connection to its keep-alive in the storms (fixed since, see `connect`),
 * which loses acknowledgements too: how much of the 32 was the queue's is not known.
 */
export const HANDLING_LIMIT = 1024;
const CATCH_UP_MAX_MS = 5000;
/** How long a shutdown waits for the device messages being handled (close). */
export const CLOSE_DRAIN_MS = 10_000;

/**
 * The device gateway over MQTT (docs/device-protocol.md). Commands are published to the lock's access
 * point and matched to their acknowledgement by task id; every message from the devices is checked
 * against the protocol, deduplicated by sequence number, and handled in order per access point.
 */
export class MqttGateway implements DeviceGateway {
  private listener: DeviceListener | undefined;
  private readonly pending = new Map<string, Pending>();
  private readonly queue = new KeyedQueue();
  private readonly admission = new Admission(HANDLING_LIMIT);
  /**
   * After a reconnection to the broker, the access points heard from since: until one speaks again
   * (its retained status, or its own reconnection) nothing says it is there to carry a command.
   */
  private heardSince: Set<string> | undefined;
  private early: [string, Buffer][] = [];
  /** While a catch-up waits for the retained messages to stop coming: told of each message. */
  private onActivity: (() => void) | undefined;
  private catchUps = 0;

  private readonly sims: SimRelay;

  private constructor(
    private readonly client: MqttClient,
    private readonly options: MqttGatewayOptions,
  ) {
    this.sims = new SimRelay(client, options);
  }

  /** Connects and subscribes; rejects if the broker cannot be reached or refuses the credentials. */
  static async connect(options: MqttGatewayOptions): Promise<MqttGateway> {
    const clientOptions: IClientOptions = {
      clientId: options.clientId,
      username: options.username,
      password: options.password,
      clean: true,
      keepalive: 10,
      reconnectPeriod: 500,
      connectTimeout: 5000,
      // A command queued while the broker is away would arrive late, or after its task ended.
      queueQoSZero: false,
      ...(options.keepaliveTimer === undefined ? {} : { timerVariant: options.keepaliveTimer }),
    };
    const client = connect(options.url, clientOptions);
    const gateway = new MqttGateway(client, options);
    let connections = 0;
    const shared = options.shareGroup !== undefined;
    client.on('connect', () => {
      (client.stream as Socket).setNoDelay?.(true);
      if (++connections === 1) return;
      // Shared, an access point's news reaches one process: who was heard since is not ours to know.
      if (shared) void gateway.catchUp();
      else gateway.heardSince = new Set();
    });
    client.on('message', (topic, payload) => gateway.onMessage(topic, payload));
    // mqtt.js counts only acknowledgements and PINGRESP as the broker's sign of life. Behind a
    // storm, which admission.ts leaves in the socket, the PINGRESP is read only after every message
    // before it: at 100,000 locks the keep-alive ran out 17 times in one run of the scale bench, and
    // each time the messages queued for this connection were lost and every access point's retained
    // status and pairing came again (docs/performance-notes.md). A message read is as good a sign;
    // only one that is acknowledged, though: that acknowledgement then tells the broker this client
    // lives, in place of the PINGREQ that rescheduling puts off.
    client.on('packetreceive', (packet) => {
      if (packet.cmd === 'publish' && packet.qos > 0) client.reschedulePing(true);
    });
    // mqtt.js emits a message, then reads the next packet once this calls back (admission.ts).
    client.handleMessage = (_packet, next) => gateway.admission.admit(() => next());
    client.on('offline', () =>
      options.logger.warn({ url: redactSecret(options.url) }, 'device broker unreachable'),
    );
    client.on('reconnect', () => options.logger.info({}, 'reconnecting to the device broker'));
    await new Promise<void>((resolve, reject) => {
      // Rejected once the client is closed: a failed start leaves no socket or timer of it behind.
      const onError = (error: Error): void => {
        client.end(true, () => reject(error));
      };
      client.once('error', onError);
      client.once('connect', () => {
        client.off('error', onError);
        client.on('error', (error) => options.logger.warn({ err: error }, 'device broker error'));
        resolve();
      });
    });
    const filters = shared
      ? options.topics.sharedCloudFilters(options.shareGroup ?? '')
      : options.topics.cloudFilters();
    await client.subscribeAsync(filters, { qos: 1 });
    if (shared) await gateway.catchUp();
    return gateway;
  }

  /**
   * A shared subscription receives no retained messages, so what the devices said while no process
   * listened (an access point's last will, a hand turn) is read through a plain subscription held
   * just long enough for the retained messages to arrive. A live message coming twice meanwhile
   * changes nothing: statuses and pairing lists are idempotent and a report is applied once.
   */
  private async catchUp(): Promise<void> {
    const filters = this.options.topics.retainedFilters();
    const round = ++this.catchUps;
    try {
      await this.client.subscribeAsync(filters, { qos: 1 });
      // Timed on the clock: a test moves it; the sandbox moving it ends a catch-up early (and the
      // retained messages still to come are heard anyway, until the subscription is dropped).
      await quietFor(this.options.clock, CATCH_UP_QUIET_MS, CATCH_UP_MAX_MS, (activity) => {
        this.onActivity = activity;
      });
    } catch (error) {
      this.options.logger.warn({ err: error }, 'reading retained device messages failed');
    } finally {
      // A reconnection meanwhile started a newer catch-up: the subscription is its to drop.
      if (round === this.catchUps) {
        this.onActivity = undefined;
        await this.client.unsubscribeAsync(filters).catch(() => undefined);
      }
    }
  }

  get connected(): boolean {
    return this.client.connected;
  }

  /** What /readyz checks: the gateway's own connection, without which no command reaches a lock. */
  readinessChecks(): ReadinessCheck[] {
    return [
      {
        name: 'broker',
        check: async () => {
          if (!this.client.connected) throw new Error('the device link is not connected to the broker');
        },
      },
    ];
  }

  listen(listener: DeviceListener): void {
    this.listener = listener;
    // Retained messages arrive as soon as we subscribe, perhaps before anyone listens.
    const early = this.early;
    this.early = [];
    for (const [topic, payload] of early) this.onMessage(topic, payload);
  }

  execute(command: DeviceCommand): Promise<DeviceResult> {
    const { accessPointId: apId, deviceId } = command;
    // No access point, a lock out of reach or no way to the broker: nothing can carry it. Say so now.
    const unheard = this.heardSince !== undefined && apId !== null && !this.heardSince.has(apId);
    if (apId === null || !command.responsive || !this.client.connected || unheard) {
      return Promise.resolve({ ok: false, error: 'DEVICE_UNREACHABLE' });
    }
    return new Promise((resolve) => {
      const cancel = this.options.clock.at(command.deadline + LATE_ACK_GRACE_MS, () =>
        this.settle(command.taskId, { ok: false, error: 'TIMEOUT' }),
      );
      this.pending.set(command.taskId, { apId, deviceId, resolve, cancel });
      const payload = encode('cmd', {
        v: BASE_VERSION,
        task_id: command.taskId,
        command: command.command,
        deadline: new Date(command.deadline).toISOString(),
      });
      this.options.inFlight?.begin(apId);
      this.client.publish(this.options.topics.lock(apId, deviceId, 'cmd'), payload, { qos: 1 }, (error) => {
        if (!error) return;
        this.options.inFlight?.end(apId);
        this.settle(command.taskId, { ok: false, error: 'DEVICE_UNREACHABLE' });
      });
    });
  }

  configure(apId: string, deviceId: string, settings: { readonly autoLockSeconds: number }): void {
    // Not queued while the broker is away: the lock's next report shows the difference, and the
    // cloud sends its setting again then.
    if (!this.client.connected) return;
    const payload = encode('config', { v: 2, auto_lock_seconds: settings.autoLockSeconds });
    this.client.publish(this.options.topics.lock(apId, deviceId, 'config'), payload, { qos: 1 }, (error) => {
      if (error) this.options.logger.warn({ apId, deviceId, err: error }, 'lock settings not sent');
    });
  }

  /** Relays a sandbox change to the simulated device and waits for its answer (sim-relay.ts). */
  relaySim(apId: string, deviceId: string, change: SimulatedLockChange): Promise<SimulatedLockState> {
    return this.sims.relay(apId, deviceId, change);
  }

  /**
   * Disconnects once the device messages already taken are handled. Each was acknowledged to the
   * broker as it was taken (mqtt.js sends the PUBACK when `handleMessage` calls back, admission.ts),
   * so the broker will not send it again: disconnecting at once let the store close under their
   * handlers, and they were lost (49 in one run of the scale bench, 'driver has already been
   * destroyed'). Nothing more is read meanwhile. A store that does not answer holds the shutdown
   * CLOSE_DRAIN_MS at most; how many were left then is logged. Commands still waiting are left
   * unanswered: their tasks end TIMEOUT at the next start.
   */
  async close(): Promise<void> {
    for (const pending of this.pending.values()) pending.cancel();
    this.pending.clear();
    const { clock } = this.options;
    let cancel: (() => void) | undefined;
    const outOfTime = new Promise<true>((resolve) => {
      cancel = clock.at(clock.now() + CLOSE_DRAIN_MS, () => resolve(true));
    });
    const gaveUp = await Promise.race([this.admission.close().then(() => false), outOfTime]);
    cancel?.();
    if (gaveUp)
      this.options.logger.error(
        { messages: this.admission.size, waitedMs: CLOSE_DRAIN_MS },
        'device messages still being handled at shutdown are dropped',
      );
    await this.client.endAsync(true);
  }

  private settle(taskId: string, result: DeviceResult): void {
    const pending = this.pending.get(taskId);
    if (!pending) return;
    this.pending.delete(taskId);
    pending.cancel();
    pending.resolve(result);
  }

  private onMessage(topic: string, payload: Buffer): void {
    this.onActivity?.();
    if (!this.listener) {
      this.early.push([topic, payload]);
      return;
    }
    const parsed = this.options.topics.parse(topic);
    if (!parsed) {
      this.options.logger.warn({ topic }, 'device message on an unknown topic dropped');
      return;
    }
    this.admission.begin();
    void this.queue
      .run(parsed.ap, () => this.handle(parsed, topic, payload))
      .catch((error: unknown) => this.options.logger.error({ err: error, topic }, 'device message failed'))
      .finally(() => {
        this.admission.end();
        this.options.inFlight?.end(parsed.ap);
      });
  }

  private async handle(parsed: ParsedTopic, topic: string, payload: Buffer): Promise<void> {
    const listener = this.listener;
    // A zero-length retained message clears the topic: nothing to say.
    if (!listener || payload.byteLength === 0) return;
    const { ap, lock } = parsed;
    this.heardSince?.add(ap);
    const malformed = (problem: string): void =>
      this.options.logger.warn({ apId: ap, topic, problem }, 'malformed device message dropped');
    switch (parsed.kind) {
      case 'status': {
        const decoded = decode('status', payload);
        if (!decoded.ok) return malformed(decoded.problem);
        if (!decoded.message.online) {
          this.heardSince?.delete(ap);
          this.failPendingOf(ap);
          // A last will is written once, in whatever version: it says nothing new of the access point.
          return listener.accessPointStatus(ap, false);
        }
        return listener.accessPointStatus(ap, true, accessPointInfoOf(decoded.message));
      }
      case 'locks': {
        const decoded = decode('locks', payload);
        if (!decoded.ok) return malformed(decoded.problem);
        const locks = decoded.message.locks.map((l) => ({
          deviceId: l.device_id,
          serial: l.serial,
          nickname: l.nickname,
        }));
        return listener.pairedLocks(ap, locks);
      }
      case 'state': {
        const decoded = decode('state', payload);
        if (!decoded.ok || lock === undefined) return malformed(decoded.ok ? 'no lock' : decoded.problem);
        const message = decoded.message;
        const { seq, epoch = '' } = message;
        const report = message.v === BASE_VERSION ? reportOf(message) : reportOfV2(message, message.cause);
        return listener.lockReport(ap, lock, report, { apId: ap, epoch, seq });
      }
      case 'ack': {
        const decoded = decode('ack', payload);
        if (!decoded.ok || lock === undefined) return malformed(decoded.ok ? 'no lock' : decoded.problem);
        return this.onAck(ap, lock, decoded.message);
      }
      case 'sim-ack': {
        const decoded = decode('sim-ack', payload);
        if (!decoded.ok) return malformed(decoded.problem);
        if (lock !== undefined) this.sims.answered(ap, lock, decoded.message);
        return;
      }
      default:
        // Our own commands and sandbox changes come back only if a subscription is too wide.
        return;
    }
  }

  private async onAck(ap: string, lock: string, ack: Message<'ack'>): Promise<void> {
    const listener = this.listener;
    if (!listener) return;
    const result: DeviceResult = ack.ok ? { ok: true } : { ok: false, error: ack.error ?? 'JAMMED' };
    const mark = { apId: ap, epoch: ack.epoch ?? '', seq: ack.seq };
    const pending = this.pending.get(ack.task_id);
    const state = ack.state && (ack.v === BASE_VERSION ? reportOf(ack.state) : reportOfV2(ack.state));
    if (state && pending?.apId === ap && pending.deviceId === lock) {
      // Our own command's answer: its state goes with the result, and the waiting command writes it
      // and the task's end in one transaction (Commands, DeviceReports.applyAnswer), the state first.
      // That wait is resolved now, so it queues its write for the lock before any later message of
      // this access point reaches the lock's reports; in the other order each is still applied once.
      this.settle(ack.task_id, { ...result, report: state, mark });
      return;
    }
    // The device's state is the truth even for an answer that comes late: store it first, so a task
    // is never seen ended before the state it left. Whether it is newer than what is stored is the
    // store's to say: another process may have applied a later report of this lock.
    if (state) await listener.lockReport(ap, lock, state, mark);
    if (pending) {
      if (pending.apId !== ap || pending.deviceId !== lock) {
        this.options.logger.warn(
          { apId: ap, deviceId: lock, taskId: ack.task_id },
          'an ack for another lock dropped',
        );
        return;
      }
      this.settle(ack.task_id, result);
      return;
    }
    await listener.lateResult(ap, ack.task_id, lock, result);
  }

  /** The access point went away: what it was carrying can no longer be answered. */
  private failPendingOf(apId: string): void {
    for (const [taskId, pending] of this.pending) {
      if (pending.apId === apId) this.settle(taskId, { ok: false, error: 'DEVICE_UNREACHABLE' });
    }
  }
}

/**
 * Resolves once `quietMs` pass on the clock without activity (each call of the function handed to
 * `watch` starts the wait again), or `maxMs` after it began, whichever comes first.
 */
function quietFor(
  clock: Clock,
  quietMs: number,
  maxMs: number,
  watch: (activity: () => void) => void,
): Promise<void> {
  return new Promise((resolve) => {
    let cancelQuiet: Cancel = () => undefined;
    const done = (): void => {
      cancelQuiet();
      cancelMax();
      resolve();
    };
    const cancelMax = clock.at(clock.now() + maxMs, done);
    const activity = (): void => {
      cancelQuiet();
      cancelQuiet = clock.at(clock.now() + quietMs, done);
    };
    watch(activity);
    activity();
  });
}
