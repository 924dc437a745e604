import type { SimDeviceState } from '../domain/sim-device.ts';
import { type AccessPointOptions, SimulatedAccessPoint } from './access-point.ts';

export interface FleetMember {
  readonly id: string;
  readonly secret: string;
  readonly locks: readonly SimDeviceState[];
}

/** Many simulated access points on one broker: started a batch at a time, stopped together. */
export class Fleet {
  private readonly members = new Map<string, SimulatedAccessPoint>();

  constructor(private readonly options: AccessPointOptions) {}

  get size(): number {
    return this.members.size;
  }

  accessPoints(): SimulatedAccessPoint[] {
    return [...this.members.values()];
  }

  get(apId: string): SimulatedAccessPoint | undefined {
    return this.members.get(apId);
  }

  /** The access point that has this lock, if any of ours has. */
  findLock(deviceId: string): SimulatedAccessPoint | undefined {
    for (const ap of this.members.values()) if (ap.lock(deviceId)) return ap;
    return undefined;
  }

  add(member: FleetMember): SimulatedAccessPoint {
    const ap = new SimulatedAccessPoint(member.id, member.secret, member.locks, this.options);
    this.members.set(member.id, ap);
    return ap;
  }

  /** Connects every access point, `concurrency` at a time (a thousand CONNECTs at once is a storm). */
  async start(concurrency = 50): Promise<void> {
    const queue = [...this.members.values()];
    const worker = async (): Promise<void> => {
      for (let ap = queue.shift(); ap !== undefined; ap = queue.shift()) await ap.start();
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, queue.length) }, worker));
  }

  async stop(): Promise<void> {
    await Promise.all([...this.members.values()].map((ap) => ap.stop()));
  }

  /** Every access point takes its locks' states from `states` (the sandbox's reset). */
  reload(states: readonly SimDeviceState[]): void {
    for (const ap of this.members.values()) ap.reload(states.filter((s) => s.apId === ap.id));
  }
}
