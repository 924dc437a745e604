import type { Kysely, Selectable } from 'kysely';
import type { CreateTaskResult, TaskEndEvents, TaskStore } from '../../../app/ports.ts';
import { LOCK_METHODS, type LockEvent, type LockMethod, type Origin } from '../../../domain/event.ts';
import { isLockCommand } from '../../../domain/lock.ts';
import { isTaskFailure, type Task, type TaskFailure, type TaskOutcome } from '../../../domain/task.ts';
import { actorFromJson, actorJson, insertEvents, withEvents } from './events.ts';
import type { Database, TasksTable } from './tables.ts';

function toOrigin(row: Selectable<TasksTable>): Origin | undefined {
  const actor = actorFromJson(row.origin_actor);
  const method = row.origin_method;
  if (!actor || method === null || !(LOCK_METHODS as readonly string[]).includes(method)) return undefined;
  return { actor, method: method as LockMethod };
}

function toTask(row: Selectable<TasksTable>): Task {
  const base = {
    id: row.id,
    accountId: row.account_id,
    deviceId: row.device_id,
    command: isLockCommand(row.command) ? row.command : 'sync',
    createdAt: Number(row.created_at),
    deadline: Number(row.deadline),
    ...(toOrigin(row) === undefined ? {} : { origin: toOrigin(row) }),
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

  async createProcessing(
    task: Task & { status: 'processing' },
    events: readonly LockEvent[] = [],
  ): Promise<CreateTaskResult> {
    const created = await withEvents(this.db, events.length > 0, async (db) => {
      const inserted = await this.insertProcessing(db, task);
      if (inserted) await insertEvents(db, events);
      return inserted;
    });
    if (created) return { created: true };
    const running = await this.db
      .selectFrom('tasks')
      .selectAll()
      .where('device_id', '=', task.deviceId)
      .where('status', '=', 'processing')
      .executeTakeFirst();
    // The running task may have ended between the insert and this read: report a short wait.
    return { created: false, running: running ? toTask(running) : { ...task, deadline: task.createdAt } };
  }

  private async insertProcessing(
    db: Kysely<Database>,
    task: Task & { status: 'processing' },
  ): Promise<boolean> {
    // ON CONFLICT DO NOTHING against the partial unique index: the insert is the busy check.
    const result = await db
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
        origin_actor: task.origin ? actorJson(task.origin.actor) : null,
        origin_method: task.origin?.method ?? null,
      })
      .onConflict((oc) => oc.doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
  }

  async processingOn(deviceId: string): Promise<Task | undefined> {
    const row = await this.db
      .selectFrom('tasks')
      .selectAll()
      .where('device_id', '=', deviceId)
      .where('status', '=', 'processing')
      .executeTakeFirst();
    return row && toTask(row);
  }

  /** Runs an update that ends tasks, and writes the events of those it ended in its transaction. */
  private async ending(
    events: TaskEndEvents | undefined,
    update: (db: Kysely<Database>) => Promise<Selectable<TasksTable>[]>,
  ): Promise<Task[]> {
    return withEvents(this.db, events !== undefined, async (db) => {
      const ended = (await update(db)).map(toTask);
      if (events) await insertEvents(db, ended.flatMap(events));
      return ended;
    });
  }

  async get(id: string): Promise<Task | undefined> {
    const row = await this.db.selectFrom('tasks').selectAll().where('id', '=', id).executeTakeFirst();
    return row && toTask(row);
  }

  async terminate(
    id: string,
    outcome: TaskOutcome,
    at: number,
    events?: TaskEndEvents,
  ): Promise<Task | undefined> {
    const [ended] = await this.ending(events, (db) =>
      db
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
        .execute(),
    );
    return ended;
  }

  terminateOverdue(now: number, error: TaskFailure, events?: TaskEndEvents): Promise<Task[]> {
    return this.ending(events, (db) =>
      db
        .updateTable('tasks')
        .set({ status: 'terminated', successful: 0, error, ended_at: now })
        .where('status', '=', 'processing')
        .where('deadline', '<=', now)
        .returningAll()
        .execute(),
    );
  }

  async terminateProcessingOf(
    deviceIds: readonly string[],
    now: number,
    error: TaskFailure,
    events?: TaskEndEvents,
  ): Promise<Task[]> {
    if (deviceIds.length === 0) return [];
    return this.ending(events, (db) =>
      db
        .updateTable('tasks')
        .set({ status: 'terminated', successful: 0, error, ended_at: now })
        .where('status', '=', 'processing')
        .where('device_id', 'in', [...deviceIds])
        .returningAll()
        .execute(),
    );
  }

  terminateAllProcessing(now: number, error: TaskFailure, events?: TaskEndEvents): Promise<Task[]> {
    return this.ending(events, (db) =>
      db
        .updateTable('tasks')
        .set({ status: 'terminated', successful: 0, error, ended_at: now })
        .where('status', '=', 'processing')
        .returningAll()
        .execute(),
    );
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
