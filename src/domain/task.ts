import type { Origin } from './event.ts';
import type { LockCommand } from './lock.ts';

/** Why a terminated task failed; the exact strings v3 answers in `error`. */
export type TaskFailure =
  | 'TIMEOUT'
  | 'DEVICE_UNREACHABLE'
  | 'DEVICE_IS_BUSY'
  | 'JAMMED'
  | 'LOW_BATTERY'
  | 'INTERNAL_ERROR';
export const TASK_FAILURES: readonly TaskFailure[] = [
  'TIMEOUT',
  'DEVICE_UNREACHABLE',
  'DEVICE_IS_BUSY',
  'JAMMED',
  'LOW_BATTERY',
  'INTERNAL_ERROR',
];

export type TaskOutcome =
  | { readonly successful: true }
  | { readonly successful: false; readonly error: TaskFailure };

interface TaskBase {
  readonly id: string;
  readonly accountId: string;
  readonly deviceId: string;
  readonly command: LockCommand;
  readonly createdAt: number;
  /** When the task ends as TIMEOUT if the device has not confirmed by then. */
  readonly deadline: number;
  /** Who sent the command and how; absent for tasks older than the event log. */
  readonly origin?: Origin;
}

export type Task =
  | (TaskBase & { readonly status: 'processing' })
  | (TaskBase & { readonly status: 'terminated'; readonly outcome: TaskOutcome; readonly endedAt: number });

/** Terminated tasks stay readable at least this long (the documents promise 24 h). */
export const TASK_RETENTION_MS = 48 * 60 * 60 * 1000;

export function isExpired(task: Task, now: number): boolean {
  return task.status === 'terminated' && now - task.endedAt > TASK_RETENTION_MS;
}

/** Whole seconds a caller should wait for a running task to end: at least 1, never a fraction. */
export function busyWaitSeconds(deadline: number, now: number): number {
  return Math.max(1, Math.ceil((deadline - now) / 1000));
}

export function isTaskFailure(value: unknown): value is TaskFailure {
  return typeof value === 'string' && (TASK_FAILURES as readonly string[]).includes(value);
}
