import type { Logger } from '../ports.ts';

/**
 * Work a form does after its answer is sent, so that the answer takes as long whatever the address
 * holds: the code or "you already have an account" mail, the new account's row. Failures are
 * logged; the person asks again.
 */
export class AfterAnswer {
  private readonly pending = new Set<Promise<void>>();

  constructor(private readonly logger: Logger) {}

  run(what: string, work: () => Promise<void>): void {
    // On a timer, not a bare promise nor setImmediate: SQLite writes synchronously, and work begun
    // in this turn of the event loop (or the next check phase) still held the answer back: a known
    // address stayed 0.2-0.5 ms slower (bench/login-timing). A 0 ms timer runs once it is out.
    const done = new Promise<void>((resolve) => setTimeout(resolve, 0))
      .then(work)
      .catch((error: unknown) => {
        this.logger.error({ err: error }, `${what} failed after the answer`);
      })
      .finally(() => this.pending.delete(done));
    this.pending.add(done);
  }

  /** Resolves once the work of every answer given so far is done (the sandbox's mailbox waits for it). */
  async settled(): Promise<void> {
    await Promise.all([...this.pending]);
  }
}
