/**
 * The event bus port: notifications between use cases, in one process or shared by every process
 * on one store (docs/deploy.md). Re-exported by app/ports.ts.
 */

import type { Task } from '../../domain/task.ts';
import type { ReadinessCheck } from './ops.ts';
import type { Cancel } from './system.ts';

export interface LockStateChanged {
  readonly deviceId: string;
  readonly ownerId: string;
  readonly locked: boolean;
  readonly at: number;
}

/** Who hears an event: the process where it happened, or every process sharing the store. */
export type EventScope = 'here' | 'everywhere';

/**
 * Notifications between use cases (webhooks and v1's waits listen here). With several processes
 * an event is announced once, by the process where it happened, and heard by every process.
 */
export interface EventBus {
  lockStateChanged(event: LockStateChanged): void;
  taskEnded(task: Task): void;
  /**
   * 'here' hears only the changes this process stored: what must happen once per change (writing
   * the webhook's message) listens so. 'everywhere' (the default) hears every process's.
   */
  onLockStateChanged(listener: (event: LockStateChanged) => void, scope?: EventScope): Cancel;
  /** Tasks ended by any process: a v1 control waits here for a device that answered elsewhere. */
  onTaskEnded(listener: (task: Task) => void, scope?: EventScope): Cancel;
  /** What readiness checks for a shared backend (none for one process's own events). */
  readinessChecks?(): readonly ReadinessCheck[];
}
