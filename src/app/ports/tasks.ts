/**
 * The task store port: commands as tasks, one processing per lock across every process, and the
 * Idempotency-Keys that made them. Re-exported by app/ports.ts.
 */
import type { LockEvent } from '../../domain/event.ts';
import type { Task, TaskFailure, TaskOutcome } from '../../domain/task.ts';

/** The events a task's end is, given the task as ended (command.succeeded or command.failed). */
export type TaskEndEvents = (ended: Task) => readonly LockEvent[];

/** What is written with a new task, in its transaction. */
export interface TaskMadeWith {
  /** The task's events (command.requested), written only if the task is made. */
  readonly events?: readonly LockEvent[];
  /** Its Idempotency-Key's record: nothing is made when the account has the key already. */
  readonly key?: IdempotencyClaim;
}

export type CreateTaskResult =
  /** `task`: as stored, as `get` would read it now. */
  | { readonly created: true; readonly task: Task }
  | { readonly created: false; readonly running: Task }
  /** The account has the key (unexpired) already: nothing was made. */
  | { readonly created: false; readonly keyTaken: true };

export interface TaskStore {
  /**
   * Creates a processing task unless one is already processing on the same lock. Atomic across
   * every process sharing the store: this is what makes "one command at a time" true. With `key`,
   * the key's record is made in the same transaction, and nothing is made when the account has the
   * key already (an expired record of it is replaced): this is what makes "one task per key" true.
   */
  createProcessing(task: Task & { status: 'processing' }, made?: TaskMadeWith): Promise<CreateTaskResult>;
  get(id: string): Promise<Task | undefined>;
  /** The task processing on this lock, if any (a movement it asked for is attributed to it). */
  processingOn(deviceId: string): Promise<Task | undefined>;
  /**
   * Ends a processing task; undefined when it had already ended (a late result or a second timeout).
   * Every `events` of a task ended is written in the transaction that ends it, here and below.
   */
  terminate(id: string, outcome: TaskOutcome, at: number, events?: TaskEndEvents): Promise<Task | undefined>;
  /** Ends every processing task whose deadline is at or before `now`; returns them. */
  terminateOverdue(now: number, error: TaskFailure, events?: TaskEndEvents): Promise<Task[]>;
  /** Ends the processing tasks of these locks (their access point went away); returns those it ended. */
  terminateProcessingOf(
    deviceIds: readonly string[],
    now: number,
    error: TaskFailure,
    events?: TaskEndEvents,
  ): Promise<Task[]>;
  /** Ends every processing task (at start-up of the only process: nobody else can finish them). */
  terminateAllProcessing(now: number, error: TaskFailure, events?: TaskEndEvents): Promise<Task[]>;
  purgeEndedBefore(cutoff: number): Promise<number>;
}

/** One Idempotency-Key of an account (the key itself only as its hash), and the task it made. */
export interface IdempotencyRecord {
  readonly accountId: string;
  readonly keyHash: string;
  /** What the first request asked: another request with the key must ask the same. */
  readonly fingerprint: string;
  readonly taskId: string;
  readonly createdAt: number;
  readonly expiresAt: number;
}

/** The key a task is made under: stored with the task, in one transaction (TaskStore.createProcessing). */
export type IdempotencyClaim = Omit<IdempotencyRecord, 'taskId'>;

export interface IdempotencyKeyStore {
  get(accountId: string, keyHash: string): Promise<IdempotencyRecord | undefined>;
  /** Forgets every record expired at `now`; how many went. */
  purgeExpired(now: number): Promise<number>;
}
