import type { Cancel, Clock, Logger } from './ports.ts';

const HOUR_MS = 60 * 60 * 1000;

/** One kind of record a use case forgets once it is past keeping. */
export interface Purge {
  /** For the log: what it forgets ("ended tasks"). */
  readonly what: string;
  /** Forgets what is past keeping at `now`; resolves to how many records went. */
  run(now: number): Promise<number>;
}

/**
 * The one loop that forgets what has expired: each hour on the clock it runs every purge, one after
 * the other. A purge that fails (the database away) is logged and waits for the next round; unhandled,
 * its rejection would end the process. The next round is armed only once this one's store work is
 * done, so a slow database never has two rounds at once, and a ten-year move of the sandbox clock
 * fires one round, not 87,600 (adapters/system/clock.ts).
 */
export class HourlyPurges {
  private cancel: Cancel | undefined;
  /** Moved by start and stop: a round that ends after a stop (or a stop and a start) arms nothing. */
  private generation = 0;

  constructor(
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly purges: readonly Purge[],
  ) {}

  start(): void {
    this.stop();
    this.schedule(this.generation);
  }

  stop(): void {
    this.generation++;
    this.cancel?.();
    this.cancel = undefined;
  }

  /** Runs every purge once, now. Never rejects. */
  async round(): Promise<void> {
    const now = this.clock.now();
    for (const purge of this.purges) {
      try {
        await purge.run(now);
      } catch (error) {
        this.logger.warn(
          { err: error, purge: purge.what },
          'an hourly purge failed; it runs again next hour',
        );
      }
    }
  }

  private schedule(generation: number): void {
    this.cancel = this.clock.at(this.clock.now() + HOUR_MS, () => {
      void this.round().then(() => {
        if (generation === this.generation) this.schedule(generation);
      });
    });
  }
}
