/**
 * The operator's view of the application: what it counts for metrics, and what readiness checks.
 * Re-exported by app/ports.ts.
 * The counting happens where an event is decided, in the one process that decided it, never on the
 * event bus (which may carry other processes' events): summed over processes, nothing counts twice.
 */
import type { LockCommand } from '../../domain/lock.ts';
import type { TaskFailure } from '../../domain/task.ts';

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

/** Why the embedded device broker closed a connection it had not authenticated, or refused it. */
export type DeviceConnectionRefusal =
  | 'total_limit'
  | 'address_limit'
  | 'too_large'
  | 'malformed'
  | 'connect_timeout';

export const DEVICE_CONNECTION_REFUSALS: readonly DeviceConnectionRefusal[] = [
  'total_limit',
  'address_limit',
  'too_large',
  'malformed',
  'connect_timeout',
];

/** What the embedded device broker counts (adapters/devices/mqtt/connection-guard.ts). */
export interface DeviceBrokerMetrics {
  deviceConnectionRefused(reason: DeviceConnectionRefusal): void;
  /** Connections open now, after each change. */
  deviceConnectionsOpen(count: number): void;
}

/** Counts nothing: the default where no metrics are collected (unit tests, tools). */
export const NO_METRICS: Metrics = {
  commandEnded: () => undefined,
  webhookAttempted: () => undefined,
};

/**
 * One dependency readiness depends on. Each adapter that has a backend to lose names its own checks
 * (`readinessChecks()`); the composition root hands them to /readyz (http/ops.ts).
 */
export interface ReadinessCheck {
  readonly name: string;
  /**
   * false: the process still serves without it (Redis: the rate limits fall back to memory, events
   * come later). Its failure is shown (`degraded`, still 200) but does not take the process out of
   * rotation: every process shares that dependency, and failing them all would turn its outage
   * into a full one. Default true.
   */
  readonly critical?: boolean;
  /** Resolves when the dependency answers; rejects (or throws) with the reason otherwise. */
  check(): Promise<void>;
}
