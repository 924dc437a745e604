/**
 * The test suite's one way of waiting for what the code under test does on its own once the test
 * has acted: a task ending, a message arriving, a process listening, a server noticing that a
 * backend is back. It polls; it never decides that something did not happen. To check that nothing
 * happened, first wait for a signal that everything which could have happened has (POST /_sim/clock
 * answers once what it set off has settled: docs/sandbox.md; a later message on the same ordered
 * channel; the delivery log with nothing being sent), then look once.
 */
import { setTimeout as sleep } from 'node:timers/promises';

export interface EventuallyOptions {
  /** Real time to wait before failing (default 10 s: generous, only a failing test waits it out). */
  readonly timeoutMs?: number;
  /** Pause between two probes (default 10 ms). */
  readonly everyMs?: number;
}

/** What a probe answers once it holds. */
export type Held<T> = Exclude<T, false | null | undefined>;

/**
 * Calls `probe` until it answers something other than false, null or undefined, and answers that
 * (true for a yes-or-no probe, the value for one that looks something up). Fails after `timeoutMs`
 * of real time, naming `what` and the probe's last answer; an error the probe throws ends the wait
 * at once. A number for `options` is the timeout.
 */
export async function eventually<T>(
  what: string,
  probe: () => T | Promise<T>,
  options: EventuallyOptions | number = {},
): Promise<Held<T>> {
  const { timeoutMs = 10_000, everyMs = 10 } = typeof options === 'number' ? { timeoutMs: options } : options;
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const answer = await probe();
    if (answer !== false && answer !== null && answer !== undefined) return answer as Held<T>;
    if (performance.now() >= deadline) {
      const last = typeof answer === 'boolean' ? '' : ` (last answer: ${String(answer)})`;
      throw new Error(`still waiting for ${what} after ${timeoutMs} ms${last}`);
    }
    await sleep(everyMs);
  }
}
