import type { Clock } from '../ports.ts';

/**
 * The forms anyone may fill in with any address refuse a code no sooner than this after they began.
 * Their work is the same for every address, but the database's is not quite: an account's row and a
 * live code's are found, and the code's attempt is written (about 0.06 ms more in process, 0.3-0.5 ms
 * over loopback: bench/login-timing.ts). A refusal at a fixed time hides that while the work takes
 * less; a person does not notice 25 ms.
 */
export const STEADY_REFUSAL_MS = 25;

/** Runs `work`; if it throws, rethrows once STEADY_REFUSAL_MS have passed since it began. */
export async function refuseSteadily<T>(clock: Clock, work: () => Promise<T>): Promise<T> {
  const started = clock.now();
  try {
    return await work();
  } catch (error) {
    await new Promise<void>((resolve) => clock.at(started + STEADY_REFUSAL_MS, resolve));
    throw error;
  }
}
