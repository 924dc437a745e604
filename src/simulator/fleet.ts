import type { PayloadVersion } from '../device-protocol/versions.ts';
import type { SimDeviceState } from '../domain/sim-device.ts';
import { type AccessPointOptions, SimulatedAccessPoint } from './access-point.ts';
import { LinkTrouble, type LinkTroubleSummary } from './link-trouble.ts';

export interface FleetMember {
  readonly id: string;
  readonly secret: string;
  readonly locks: readonly SimDeviceState[];
  /** The payload versions it speaks (default: every one; `[1]`: an access point on old firmware). */
  readonly versions?: readonly PayloadVersion[];
}

export interface FleetOptions extends Omit<AccessPointOptions, 'link'> {
  /**
   * Told, a line's worth at a time, when access points cannot reach the broker and when they are
   * back (link-trouble.ts); by default a warning in the log, without a stack.
   */
  readonly onLinkTrouble?: (summary: LinkTroubleSummary) => void;
}

/** Many simulated access points on one broker: started a batch at a time, stopped together. */
export class Fleet {
  private readonly members = new Map<string, SimulatedAccessPoint>();
  private readonly trouble: LinkTrouble;
  private readonly options: AccessPointOptions;

  constructor(options: FleetOptions) {
    const { onLinkTrouble, ...rest } = options;
    this.trouble = new LinkTrouble(
      onLinkTrouble ??
        ((summary) =>
          summary.reason === undefined
            ? options.logger.info(
                { ...summary, broker: options.url },
                'simulated access points connected again',
              )
            : options.logger.warn(
                { ...summary, broker: options.url },
                'simulated access points cannot reach the broker',
              )),
    );
    this.options = { ...rest, link: this.trouble };
  }

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
    const options = member.versions ? { ...this.options, versions: member.versions } : this.options;
    const ap = new SimulatedAccessPoint(member.id, member.secret, member.locks, options);
    this.members.set(member.id, ap);
    return ap;
  }

  /**
   * Connects these access points (by default every one), `concurrency` at a time (a thousand
   * CONNECTs at once is a storm).
   */
  async start(which: readonly SimulatedAccessPoint[] = this.accessPoints(), concurrency = 50): Promise<void> {
    const queue = [...which];
    const worker = async (): Promise<void> => {
      for (let ap = queue.shift(); ap !== undefined; ap = queue.shift()) await ap.start();
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, queue.length) }, worker));
  }

  async stop(): Promise<void> {
    await Promise.all([...this.members.values()].map((ap) => ap.stop()));
    this.trouble.stop();
  }

  /** Stops and forgets the access points not named (a sandbox reset to before they were added). */
  async keepOnly(ids: ReadonlySet<string>): Promise<SimulatedAccessPoint[]> {
    const gone = [...this.members.values()].filter((ap) => !ids.has(ap.id));
    for (const ap of gone) this.members.delete(ap.id);
    await Promise.all(gone.map((ap) => ap.stop()));
    return gone;
  }

  /** Every access point takes its locks' states from `states` (the sandbox's reset). */
  reload(states: readonly SimDeviceState[]): void {
    for (const ap of this.members.values()) ap.reload(states.filter((s) => s.apId === ap.id));
  }
}
