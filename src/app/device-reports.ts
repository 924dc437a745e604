import { type RunningCommand, statusEvents } from '../domain/event.ts';
import { healthChanged, withHealth } from '../domain/health.ts';
import { applyReport, isFreshReport, type Lock, type LockReport, type ReportMark } from '../domain/lock.ts';
import type { Task } from '../domain/task.ts';
import type { EventLog } from './event-log.ts';
import { KeyedQueue } from './keyed-queue.ts';
import type { OfflineSweeper } from './offline-sweeper.ts';
import type {
  Clock,
  DeviceGateway,
  EventBus,
  LockStatusRead,
  LockStore,
  Logger,
  StatusAndEndWritten,
  TaskEnd,
  TaskStore,
} from './ports.ts';

/** What recording a report's events needs: the log, the running commands, the offline sweeper. */
export interface ReportEvents {
  readonly log: EventLog;
  readonly tasks: Pick<TaskStore, 'processingOn'>;
  /** Told of each lock a report this process wrote lost: its lock.offline may come due. */
  readonly offline?: Pick<OfflineSweeper, 'lost'>;
}

/** The command whose acknowledgement brought the report, and how its task ends. */
interface Answering {
  readonly task: Task;
  readonly end: Omit<TaskEnd, 'taskId' | 'at'>;
}

/** Whether the access point is the one the lock is paired with now. */
const speaksFor = (lock: Lock, apId: string): boolean => lock.accessPoint && lock.accessPointId === apId;

/** A status write with no task to end, in the shape of one that ends a task. */
const statusOnly = (status: LockStatusRead | undefined): StatusAndEndWritten =>
  status ? { written: true, status, ended: undefined } : { written: false };

// Each retry follows a write by another process; a lock's reports come at human pace, so a handful
// of conflicts in a row means something is wrong, not busy.
const MAX_WRITE_ATTEMPTS = 8;

/**
 * Device reports are the truth about a lock: they replace the stored status, and a change of state
 * is announced. Several processes may apply reports of the same lock (the broker hands each message
 * to one of them), so each write is a compare-and-set on the lock's status version: a change is
 * announced by the one process whose write made it, and a report older than the one applied last
 * (by any process) changes nothing.
 */
export class DeviceReports {
  // In one process the reports of a lock queue up rather than race each other's compare-and-set.
  private readonly queue = new KeyedQueue();

  constructor(
    private readonly locks: LockStore,
    private readonly events: EventBus,
    private readonly clock: Clock,
    private readonly logger?: Logger,
    /** None: changes are not recorded in the event log (unit tests of other things). */
    private readonly recording?: ReportEvents,
    /** Where a lock's auto-lock setting goes when its device runs another (none: not sent). */
    private readonly devices?: Pick<DeviceGateway, 'configure'>,
  ) {}

  /**
   * Applies a report; `mark` is where it sits in its access point's count (absent: the cloud's own
   * conclusion). A marked report of a lock not paired with the mark's access point is dropped.
   */
  async apply(deviceId: string, report: LockReport, mark?: ReportMark): Promise<void> {
    await this.applyFor(deviceId, report, mark, undefined);
  }

  /**
   * Applies the report that came with a command's acknowledgement, by the process that sent the
   * command, and ends its task with it: the task is in hand, so a movement is attributed to it
   * without reading which command runs on the lock, and the status, its events, the task's end and
   * its event are committed in one transaction (LockStore.writeStatusIfAndEnd). `mark`: the
   * report's place in its access point's count, which also names the access point that answered.
   *
   * Answers the task as this call ended it (undefined: it had ended already) when the report was
   * written; undefined when it was not (stale, a lock not paired with that access point, or every
   * compare-and-set lost), and then the caller ends the task on its own.
   */
  async applyAnswer(
    task: Task,
    report: LockReport,
    mark: ReportMark | undefined,
    end: Omit<TaskEnd, 'taskId' | 'at'>,
  ): Promise<{ readonly ended: Task | undefined } | undefined> {
    const written = await this.applyFor(task.deviceId, report, mark, { task, end });
    return written?.written ? { ended: written.ended } : undefined;
  }

  private applyFor(
    deviceId: string,
    report: LockReport,
    mark: ReportMark | undefined,
    answering: Answering | undefined,
  ): Promise<StatusAndEndWritten | undefined> {
    return this.queue.run(deviceId, async () => {
      for (let attempt = 0; attempt < MAX_WRITE_ATTEMPTS; attempt++) {
        const seen = await this.locks.readStatus(deviceId);
        if (mark && !(seen && speaksFor(seen.lock, mark.apId))) {
          // An access point speaks only for the locks paired with it: checked on the read the
          // compare-and-set is made against, so the lock is not read twice.
          this.logger?.warn(
            { apId: mark.apId, deviceId },
            'device message dropped: state of a lock not paired with this access point',
          );
          return undefined;
        }
        if (!seen) return undefined; // a device the cloud does not know (yet); nothing to update
        if (mark && !isFreshReport(seen.mark, mark)) return undefined;
        const applied = applyReport(seen.lock, report);
        const { stateChanged } = applied;
        // The battery state and the outage's bookkeeping, which the report does not say itself.
        const health = withHealth(seen.lock, applied.lock, this.clock.now());
        const changed = applied.changed || healthChanged(seen.lock, health);
        // A report from the device is the lock heard from; the cloud's own conclusions are not.
        const next = mark ? { ...health, lastSeenAt: this.clock.now() } : health;
        // A fresh report that changes nothing still moves the mark, so an older one cannot follow it.
        if (!changed && !mark) return undefined;
        const events = changed
          ? await this.eventsOf(seen.lock, next, report, stateChanged, answering?.task)
          : [];
        const written: StatusAndEndWritten = answering
          ? await this.locks.writeStatusIfAndEnd(deviceId, seen.version, next, mark ?? seen.mark, events, {
              ...answering.end,
              taskId: answering.task.id,
              at: this.clock.now(),
            })
          : statusOnly(
              await this.locks.writeStatusIf(deviceId, seen.version, next, mark ?? seen.mark, events),
            );
        if (!written.written) continue;
        if (next.offlineSince !== null && seen.lock.offlineSince === null)
          this.recording?.offline?.lost(next.offlineSince);
        // Desired against reported: a device running another auto-lock delay than the owner's setting
        // (it restarted, missed a message, is new) is sent the setting again. Only a protocol 2
        // report says the delay, and only an access point speaking 2 sends one.
        if (mark && report.autoLockSeconds !== undefined && report.autoLockSeconds !== next.autoLockSeconds)
          this.devices?.configure(mark.apId, deviceId, { autoLockSeconds: next.autoLockSeconds });
        if (stateChanged) {
          this.events.lockStateChanged({
            deviceId,
            ownerId: seen.lock.ownerId,
            locked: next.locked,
            at: this.clock.now(),
          });
        }
        return written;
      }
      this.logger?.warn({ deviceId }, 'a lock report lost every compare-and-set race: dropped');
      return undefined;
    });
  }

  /**
   * The change's events, written with it. A movement is attributed to the command running on the
   * lock when it is the movement that command asks for (its acknowledgement carries the new state
   * before the task ends); any other was made at the lock.
   */
  private async eventsOf(
    before: Lock,
    after: Lock,
    report: LockReport,
    moved: boolean,
    answering: Task | undefined,
  ) {
    const recording = this.recording;
    if (!recording) return [];
    let running: RunningCommand | undefined;
    if (moved) {
      // The acknowledged command is the one running: its task ends only after this write.
      const task = answering ?? (await recording.tasks.processingOn(before.deviceId));
      if (task?.origin) running = { taskId: task.id, command: task.command, origin: task.origin };
    }
    const drafts = statusEvents(
      before.ownerId,
      before.deviceId,
      {
        before,
        after,
        cause: report.cause,
        // The delay the device ran: what it reports, or else what it was set to.
        autoLockSeconds: report.autoLockSeconds ?? before.autoLockSeconds,
      },
      running,
    );
    return recording.log.stampAll(drafts);
  }
}
