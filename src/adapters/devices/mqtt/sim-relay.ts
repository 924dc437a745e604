import type { MqttClient } from 'mqtt';
import type { DeviceTraffic, SimulatedLockChange, SimulatedLockState } from '../../../app/ports.ts';
import { encode, type Message } from '../../../device-protocol/codec.ts';
import type { Topics } from '../../../device-protocol/topics.ts';
import { BASE_VERSION } from '../../../device-protocol/versions.ts';
import { DomainError } from '../../../domain/errors.ts';

export interface SimRelayOptions {
  readonly topics: Topics;
  readonly inFlight?: DeviceTraffic;
  /** How long the sandbox waits for a simulated device to answer a change. */
  readonly simTimeoutMs?: number;
}

interface SimWait {
  readonly apId: string;
  readonly deviceId: string;
  readonly resolve: (answer: Message<'sim-ack'>) => void;
}

/**
 * The cloud's side of the sandbox messages (docs/device-protocol.md, "Sandbox change"): a change is
 * published to the simulated device that has the lock, and matched to its answer by request id.
 * Whichever process runs the simulated devices (this one, or `lockcloud sim`), the sandbox works alike.
 */
export class SimRelay {
  private readonly waits = new Map<string, SimWait>();
  private counter = 0;

  constructor(
    private readonly client: MqttClient,
    private readonly options: SimRelayOptions,
  ) {}

  relay(apId: string, deviceId: string, change: SimulatedLockChange): Promise<SimulatedLockState> {
    const reqId = `sim-${process.pid}-${++this.counter}`;
    const timeoutMs = this.options.simTimeoutMs ?? 5000;
    return new Promise((resolve, reject) => {
      const notFound = (): void => {
        this.waits.delete(reqId);
        reject(
          new DomainError(
            'LOCK_NOT_FOUND',
            `no simulated device answered for lock ${deviceId} (its access point is offline or not simulated)`,
          ),
        );
      };
      if (!this.client.connected) return notFound();
      const timer = setTimeout(notFound, timeoutMs);
      timer.unref();
      this.waits.set(reqId, {
        apId,
        deviceId,
        resolve: (answer) => {
          const { sim } = answer;
          clearTimeout(timer);
          this.waits.delete(reqId);
          const health = answer.v === 2 ? answer.sim : undefined;
          resolve({
            deviceId,
            locked: sim.locked,
            battery: sim.battery,
            responsive: sim.reachable,
            accessPoint: sim.paired,
            appOpen: sim.app_open,
            latencyMs: sim.latency_ms,
            failNext: sim.fail_next,
            jammed: health?.jammed ?? false,
            door: health?.door ?? null,
            firmware: health?.fw ?? null,
            autoLockSeconds: health?.auto_lock_seconds ?? null,
            protocolVersion: answer.v,
          });
        },
      });
      const plain = {
        locked: change.locked,
        battery: change.battery,
        reachable: change.responsive,
        paired: change.accessPoint,
        app_open: change.appOpen,
        latency_ms: change.latencyMs,
        fail_next: change.failNext === 'INTERNAL_ERROR' ? 'JAMMED' : change.failNext,
      } as const;
      // The lock's health is version 2's (the caller has checked the access point speaks it); any
      // other change stays in version 1, which every simulated access point reads.
      const health =
        change.door !== undefined || change.jammed !== undefined || change.firmware !== undefined;
      const payload = health
        ? encode('sim', {
            v: 2,
            req_id: reqId,
            change: { ...plain, door: change.door, jammed: change.jammed, fw: change.firmware },
          })
        : encode('sim', { v: BASE_VERSION, req_id: reqId, change: plain });
      this.options.inFlight?.begin(apId);
      this.client.publish(this.options.topics.lock(apId, deviceId, 'sim'), payload, { qos: 1 });
    });
  }

  /** A simulated device's answer: it counts only from the access point and lock that were asked. */
  answered(apId: string, deviceId: string, message: Message<'sim-ack'>): void {
    const wait = this.waits.get(message.req_id);
    if (wait && wait.apId === apId && wait.deviceId === deviceId) wait.resolve(message);
  }
}
