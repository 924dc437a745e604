/**
 * The operator's view of the application: what it counts for metrics. Re-exported by ports.ts.
 * The counting happens where an event is decided, in the one process that decided it, never on the
 * event bus (which may carry other processes' events): summed over processes, nothing counts twice.
 */
import type { LockCommand } from '../domain/lock.ts';
import type { TaskFailure } from '../domain/task.ts';

/** How a command ended: `success`, or the failure the task reports (`TIMEOUT`, `JAMMED`, ...). */
export type CommandOutcome = 'success' | TaskFailure;

/**
 * How one webhook attempt ended: `delivered` (2xx), `retry_scheduled` (failed, another attempt
 * queued: the account opted into retries), `failed` (failed, no attempt follows), `interrupted`
 * (cut short by a shutdown; not sent again).
 */
export type WebhookAttemptOutcome = 'delivered' | 'retry_scheduled' | 'failed' | 'interrupted';

export interface Metrics {
  /** A task ended, by this process's call to the store (a device answer, a timeout, recovery). */
  commandEnded(command: LockCommand, outcome: CommandOutcome): void;
  webhookAttempted(outcome: WebhookAttemptOutcome): void;
}

/** Counts nothing: the default where no metrics are collected (unit tests, tools). */
export const NO_METRICS: Metrics = {
  commandEnded: () => undefined,
  webhookAttempted: () => undefined,
};
