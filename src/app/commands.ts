import { DomainError } from '../domain/errors.ts';
import { commandEndedEvent, commandRequestedEvent, type Origin } from '../domain/event.ts';
import { checkCommandAllowed, type Lock, type LockCommand } from '../domain/lock.ts';
import {
  busyWaitSeconds,
  isExpired,
  TASK_RETENTION_MS,
  type Task,
  type TaskOutcome,
} from '../domain/task.ts';
import type { CommandBudget } from './command-budget.ts';
import type { DeviceReports } from './device-reports.ts';
import type { EventLog } from './event-log.ts';
import type { LockQueries } from './locks.ts';
import { NO_METRICS } from './ports/ops.ts';
import type {
  Cancel,
  Clock,
  DeviceGateway,
  DeviceResult,
  EventBus,
  IdempotencyClaim,
  Logger,
  Metrics,
  RandomSource,
  TaskEndEvents,
  TaskStore,
} from './ports.ts';

export interface CommandPolicy {
  readonly commandTimeoutMs: number;
  readonly lowBatteryThreshold: number;
}

export interface CommandDeps {
  readonly tasks: TaskStore;
  readonly locks: LockQueries;
  readonly reports: DeviceReports;
  readonly gateway: DeviceGateway;
  readonly clock: Clock;
  readonly random: RandomSource;
  readonly events: EventBus;
  readonly logger: Logger;
  readonly policy: CommandPolicy;
  /** Each account's commands per lock, whichever surface sends them; none when absent (unit tests). */
  readonly budget?: CommandBudget;
  /** Counts each task this process ends; none by default. */
  readonly metrics?: Metrics;
  /**
   * Other server processes share the store (PostgreSQL): a task left processing at start-up may be
   * another process's, running. Alone (SQLite), every such task was left by a crash of this one.
   */
  readonly sharedStore?: boolean;
  /** Where a task's request and end are recorded, in the transaction that makes them; none: not recorded (unit tests). */
  readonly eventLog?: EventLog;
  /**
   * Told of an unlock the device carried out, before the task's end is written (a one-time grant is
   * used up by it: OneTimeGrants). Awaited, so whoever sees the task ended sees what this wrote.
   */
  readonly onUnlocked?: (task: Task) => Promise<void>;
}

// How often tasks whose deadline passed with no timer to end them (a killed process's) are looked for.
const SWEEP_INTERVAL_MS = 2000;
// Past the deadline the task's own timer has ended it; this only covers a timer that is gone.
const DEADLINE_GRACE_MS = 1000;

export type EndedTask = Extract<Task, { status: 'terminated' }>;

/** send() with a key the account has already: no task was made, the key's record names one. */
export class IdempotencyKeyTaken extends Error {
  constructor() {
    super('the account has this Idempotency-Key already');
    this.name = 'IdempotencyKeyTaken';
  }
}

/**
 * The one command path. v3 answers with the task id at once; v1 waits for the same task to end.
 * A task ends exactly once: by the device's answer, by the deadline timer, or by recovery at start.
 */
export class Commands {
  private readonly deadlines = new Map<string, Cancel>();
  private cancelSweep: Cancel | undefined;
  private stopListening: Cancel | undefined;

  constructor(private readonly deps: CommandDeps) {}

  /**
   * `origin`: who sends it and how; remembered on the task, so what it causes is attributed to it.
   * `key`: an Idempotency-Key's record, made with the task in one transaction; when the account has
   * the key already nothing is made and IdempotencyKeyTaken is thrown (IdempotentCommands reads it).
   */
  async send(
    accountId: string,
    deviceId: string,
    command: LockCommand,
    origin: Origin,
    key?: IdempotencyClaim,
  ): Promise<Task> {
    const lock = await this.deps.locks.getOwned(accountId, deviceId);
    return this.launch(lock, accountId, command, origin, key);
  }

  /**
   * A guest's command on another account's lock, through a grant the caller checked (GuestCommands).
   * The task is the owner's, as every task of the lock is (its events are in the owner's log, and the
   * owner reads it); the command budget spent is the guest's, per lock, as any account's.
   */
  sendForGuest(
    lock: Lock,
    guestId: string,
    command: LockCommand,
    origin: Origin,
    key?: IdempotencyClaim,
  ): Promise<Task> {
    return this.launch(lock, guestId, command, origin, key);
  }

  private async launch(
    lock: Lock,
    spender: string,
    command: LockCommand,
    origin: Origin,
    key?: IdempotencyClaim,
  ): Promise<Task> {
    const { clock, policy, tasks } = this.deps;
    const { deviceId } = lock;
    checkCommandAllowed(lock, command, policy);
    // After the refusals that leave the lock alone, before the busy check: a command that would
    // reach the lock or meet a running one spends the budget (docs/rate-limits.md).
    await this.deps.budget?.spend(spender, lock.deviceId);
    const now = clock.now();
    const task: Task & { status: 'processing' } = {
      id: this.deps.random.uuid(),
      accountId: lock.ownerId,
      deviceId,
      command,
      status: 'processing',
      createdAt: now,
      deadline: now + policy.commandTimeoutMs,
      origin,
    };
    const requested = this.deps.eventLog?.stampAll([commandRequestedEvent(task)]) ?? [];
    let created = await tasks.createProcessing(task, { events: requested, key });
    if (!created.created && 'running' in created && created.running.deadline <= now) {
      // The running task is past its deadline and nobody ended it (its timer died with a process):
      // end it now rather than answer busy for a task that can no longer finish.
      await this.finish(created.running.id, { successful: false, error: 'TIMEOUT' });
      created = await tasks.createProcessing(task, { events: requested, key });
    }
    if (!created.created && 'keyTaken' in created) throw new IdempotencyKeyTaken();
    if (!created.created) {
      throw new DomainError('BUSY', 'another command is running on this lock', {
        retryAfterSeconds: busyWaitSeconds(created.running.deadline, now),
      });
    }
    this.dispatch(task, lock);
    return task;
  }

  /**
   * Resolves once the task has ended: v1's synchronous control is a v3 command and this wait. The
   * deadline timer ends every task, so this never waits much past the deadline; should that timer
   * be gone (another process owned it), reading the task after the deadline ends it.
   */
  waitForEnd(task: Task): Promise<EndedTask> {
    return new Promise((resolve, reject) => {
      let done = false;
      const finish = (ended: Task | undefined): void => {
        if (done || ended?.status !== 'terminated') return;
        done = true;
        stopListening();
        cancelFallback();
        resolve(ended);
      };
      const stopListening = this.deps.events.onTaskEnded((ended) => {
        if (ended.id === task.id) finish(ended);
      });
      const cancelFallback = this.deps.clock.at(task.deadline + DEADLINE_GRACE_MS, () => {
        this.result(task.accountId, task.id).then(finish, reject);
      });
      // It may have ended before we listened.
      this.deps.tasks.get(task.id).then(finish, reject);
    });
  }

  /** The task as its account may see it; a task past its deadline is ended here even if no timer fired. */
  result(accountId: string, taskId: string): Promise<Task> {
    return this.readable(taskId, (task) => task.accountId === accountId);
  }

  /**
   * The task for its owner, or for the guest who sent it through a grant (/ext); a task of anyone
   * else is one that does not exist.
   */
  resultForSender(accountId: string, taskId: string): Promise<Task> {
    return this.readable(
      taskId,
      (task) =>
        task.accountId === accountId ||
        (task.origin?.actor.kind === 'grant' && task.origin.actor.accountId === accountId),
    );
  }

  private async readable(taskId: string, mayRead: (task: Task) => boolean): Promise<Task> {
    const task = await this.deps.tasks.get(taskId);
    const now = this.deps.clock.now();
    if (!task || !mayRead(task) || isExpired(task, now)) throw new DomainError('TASK_NOT_FOUND');
    if (task.status === 'processing' && now >= task.deadline) {
      return (await this.finish(task.id, { successful: false, error: 'TIMEOUT' })) ?? this.reread(taskId);
    }
    return task;
  }

  /**
   * At start-up of the only process, tasks left processing by a crash can no longer hear from their
   * device through us: they end as TIMEOUT (no confirmation came) instead of hanging. With other
   * processes on the same store, only tasks past their deadline are ended: the rest may be theirs.
   */
  async recover(): Promise<number> {
    const now = this.deps.clock.now();
    const ended = this.deps.sharedStore
      ? await this.deps.tasks.terminateOverdue(now - DEADLINE_GRACE_MS, 'TIMEOUT', this.endEvents)
      : await this.deps.tasks.terminateAllProcessing(now, 'TIMEOUT', this.endEvents);
    this.announceEnded(ended);
    return ended.length;
  }

  start(): void {
    const { clock, events, tasks, logger } = this.deps;
    // A process killed mid-command takes its deadline timers along: whoever is left ends its tasks.
    this.cancelSweep = clock.every(SWEEP_INTERVAL_MS, () => {
      tasks.terminateOverdue(clock.now() - DEADLINE_GRACE_MS, 'TIMEOUT', this.endEvents).then(
        (ended) => this.announceEnded(ended),
        (error: unknown) => logger.error({ err: error }, 'ending overdue tasks failed'),
      );
    });
    // A task ended by another process (its device answered there) needs no deadline timer here.
    this.stopListening = events.onTaskEnded((task) => {
      this.deadlines.get(task.id)?.();
      this.deadlines.delete(task.id);
    });
  }

  /** Forgets running timers (shutdown, sandbox reset). Tasks in the store are left as they are. */
  stop(): void {
    this.cancelSweep?.();
    this.stopListening?.();
    for (const cancel of this.deadlines.values()) cancel();
    this.deadlines.clear();
  }

  /** Below this battery level lock and unlock are refused (LOW_BATTERY); the dashboard shows it. */
  get lowBatteryThreshold(): number {
    return this.deps.policy.lowBatteryThreshold;
  }

  /** Forgets tasks ended longer ago than results are kept (HourlyPurges). */
  purge(now: number): Promise<number> {
    return this.deps.tasks.purgeEndedBefore(now - TASK_RETENTION_MS);
  }

  /**
   * A device's answer that reached no waiting dispatch (it came after a restart, or to another
   * process): it ends the task if that task is still running and is for this lock.
   */
  async deviceResult(taskId: string, deviceId: string, result: DeviceResult): Promise<void> {
    const task = await this.deps.tasks.get(taskId);
    if (task?.deviceId !== deviceId) {
      this.deps.logger.warn({ taskId, deviceId }, 'a device answered a task that is not its own: dropped');
      return;
    }
    await this.onDeviceResult(task, result);
  }

  /**
   * The locks' access point went away: their running commands can no longer be answered, whichever
   * process sent them (the one that hears the access point's last will may not be the sender).
   */
  async failRunningOn(deviceIds: readonly string[]): Promise<void> {
    const ended = await this.deps.tasks.terminateProcessingOf(
      deviceIds,
      this.deps.clock.now(),
      'DEVICE_UNREACHABLE',
      this.endEvents,
    );
    this.announceEnded(ended);
  }

  private dispatch(task: Task & { status: 'processing' }, lock: Lock): void {
    const { clock, gateway, logger } = this.deps;
    // With the database away at the deadline the task cannot be ended now: the overdue sweep ends it
    // once the database is back. Unhandled, that failure ended the whole process (a crash with every
    // command in flight) at the first deadline that fell in a database restart.
    const timeout = (): void => {
      this.finish(task.id, { successful: false, error: 'TIMEOUT' }).catch((error: unknown) =>
        logger.warn({ err: error, taskId: task.id }, 'ending a task at its deadline failed: the sweep will'),
      );
    };
    this.deadlines.set(task.id, clock.at(task.deadline, timeout));
    gateway
      .execute({
        taskId: task.id,
        deviceId: task.deviceId,
        accessPointId: lock.accessPointId,
        responsive: lock.responsive,
        command: task.command,
        deadline: task.deadline,
      })
      .then(
        (result) => this.onDeviceResult(task, result),
        (error: unknown) => {
          logger.error({ err: error, taskId: task.id }, 'device gateway failed');
          return this.finish(task.id, { successful: false, error: 'INTERNAL_ERROR' });
        },
      )
      .catch((error: unknown) => logger.error({ err: error, taskId: task.id }, 'ending a task failed'));
  }

  private async onDeviceResult(task: Task, result: DeviceResult): Promise<void> {
    const outcome: TaskOutcome = result.ok
      ? { successful: true }
      : { successful: false, error: result.error };
    if (result.ok && task.command === 'unlock' && this.deps.onUnlocked) {
      // Before the end is written: a one-time grant is used up by the time anyone sees the unlock
      // succeed, and while the task runs the lock refuses a second command (BUSY). A failure here
      // must not keep the task from ending: it is logged, and the grant stays accepted.
      await this.deps
        .onUnlocked(task)
        .catch((error: unknown) =>
          this.deps.logger.error({ err: error, taskId: task.id }, 'ending a one-time grant failed'),
        );
    }
    if (result.report) {
      // The device is the truth about the lock even when its answer comes after the deadline. The
      // report and the task's end are written in one transaction; when the report is not written
      // (stale, or it lost every race) the task ends on its own below, after the status it left.
      const answered = await this.deps.reports.applyAnswer(task, result.report, result.mark, {
        outcome,
        ...(this.endEvents === undefined ? {} : { events: this.endEvents }),
      });
      if (answered) {
        this.afterEnd(task.id, answered.ended);
        return;
      }
    }
    await this.finish(task.id, outcome);
  }

  private async finish(taskId: string, outcome: TaskOutcome): Promise<Task | undefined> {
    const ended = await this.deps.tasks.terminate(taskId, outcome, this.deps.clock.now(), this.endEvents);
    this.afterEnd(taskId, ended);
    return ended;
  }

  /** The task's end was written (`ended`: by this call; undefined: it had ended already). */
  private afterEnd(taskId: string, ended: Task | undefined): void {
    this.deadlines.get(taskId)?.();
    this.deadlines.delete(taskId);
    if (ended) {
      this.countEnded(ended);
      this.deps.events.taskEnded(ended);
    }
  }

  /** command.succeeded or command.failed, written by the store in the transaction that ends the task. */
  private get endEvents(): TaskEndEvents | undefined {
    const log = this.deps.eventLog;
    if (!log) return undefined;
    return (ended) =>
      ended.status === 'terminated' ? log.stampAll([commandEndedEvent(ended, ended.outcome)]) : [];
  }

  private announceEnded(ended: readonly Task[]): void {
    for (const task of ended) {
      this.countEnded(task);
      this.deps.events.taskEnded(task);
    }
  }

  /** Only for a task the store says this call ended: each task counts once, in one process. */
  private countEnded(task: Task): void {
    if (task.status !== 'terminated') return;
    const { outcome } = task;
    (this.deps.metrics ?? NO_METRICS).commandEnded(
      task.command,
      outcome.successful ? 'success' : outcome.error,
    );
  }

  private async reread(taskId: string): Promise<Task> {
    const task = await this.deps.tasks.get(taskId);
    if (!task) throw new DomainError('TASK_NOT_FOUND');
    return task;
  }
}
