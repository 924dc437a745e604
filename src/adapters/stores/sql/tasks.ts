import type { Kysely, Selectable } from 'kysely';
import type { CreateTaskResult, TaskStore } from '../../../app/ports.ts';
import { isLockCommand } from '../../../domain/lock.ts';
import { isTaskFailure, type Task, type TaskFailure, type TaskOutcome } from '../../../domain/task.ts';
import type { Database, TasksTable } from './tables.ts';

function toTask(row: Selectable<TasksTable>): Task {
  const base = {
    id: row.id,
    accountId: row.account_id,
    deviceId: row.device_id,
    command: isLockCommand(row.command) ? row.command : 'sync',
    createdAt: Number(row.created_at),
    deadline: Number(row.deadline),
  };
  if (row.status === 'processing') return { ...base, status: 'processing' };
  const outcome: TaskOutcome =
    row.successful === 1
      ? { successful: true }
      : { successful: false, error: isTaskFailure(row.error) ? row.error : 'INTERNAL_ERROR' };
  return { ...base, status: 'terminated', outcome, endedAt: Number(row.ended_at ?? row.deadline) };
}

export class SqlTaskStore implements TaskStore {
  constructor(private readonly db: Kysely<Database>) {}

  async createProcessing(task: Task & { status: 'processing' }): Promise<CreateTaskResult> {
    // ON CONFLICT DO NOTHING against the partial unique index: the insert is the busy check.
    const result = await this.db
      .insertInto('tasks')
      .values({
        id: task.id,
        account_id: task.accountId,
        device_id: task.deviceId,
        command: task.command,
        status: 'processing',
        successful: null,
        error: null,
        created_at: task.createdAt,
        deadline: task.deadline,
        ended_at: null,
      })
      .onConflict((oc) => oc.doNothing())
      .executeTakeFirst();
    if (Number(result.numInsertedOrUpdatedRows ?? 0) === 1) return { created: true };
    const running = await this.db
      .selectFrom('tasks')
      .selectAll()
      .where('device_id', '=', task.deviceId)
      .where('status', '=', 'processing')
      .executeTakeFirst();
    // The running task may have ended between the insert and this read: report a short wait.
    return { created: false, running: running ? toTask(running) : { ...task, deadline: task.createdAt } };
  }

  async get(id: string): Promise<Task | undefined> {
    const row = await this.db.selectFrom('tasks').selectAll().where('id', '=', id).executeTakeFirst();
    return row && toTask(row);
  }

  async terminate(id: string, outcome: TaskOutcome, at: number): Promise<Task | undefined> {
    const row = await this.db
      .updateTable('tasks')
      .set({
        status: 'terminated',
        successful: outcome.successful ? 1 : 0,
        error: outcome.successful ? null : outcome.error,
        ended_at: at,
      })
      .where('id', '=', id)
      .where('status', '=', 'processing')
      .returningAll()
      .executeTakeFirst();
    return row && toTask(row);
  }

  async terminateOverdue(now: number, error: TaskFailure): Promise<Task[]> {
    const rows = await this.db
      .updateTable('tasks')
      .set({ status: 'terminated', successful: 0, error, ended_at: now })
      .where('status', '=', 'processing')
      .where('deadline', '<=', now)
      .returningAll()
      .execute();
    return rows.map(toTask);
  }

  async terminateProcessingOf(
    deviceIds: readonly string[],
    now: number,
    error: TaskFailure,
  ): Promise<Task[]> {
    if (deviceIds.length === 0) return [];
    const rows = await this.db
      .updateTable('tasks')
      .set({ status: 'terminated', successful: 0, error, ended_at: now })
      .where('status', '=', 'processing')
      .where('device_id', 'in', [...deviceIds])
      .returningAll()
      .execute();
    return rows.map(toTask);
  }

  async terminateAllProcessing(now: number, error: TaskFailure): Promise<Task[]> {
    const rows = await this.db
      .updateTable('tasks')
      .set({ status: 'terminated', successful: 0, error, ended_at: now })
      .where('status', '=', 'processing')
      .returningAll()
      .execute();
    return rows.map(toTask);
  }

  async purgeEndedBefore(cutoff: number): Promise<number> {
    const result = await this.db
      .deleteFrom('tasks')
      .where('status', '=', 'terminated')
      .where('ended_at', '<', cutoff)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
