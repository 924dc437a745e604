import { type Kysely, type Selectable, sql } from 'kysely';
import type { CreateTaskResult, TaskEndEvents, TaskMadeWith, TaskStore } from '../../../app/ports.ts';
import { LOCK_METHODS, type LockMethod, type Origin } from '../../../domain/event.ts';
import { isLockCommand } from '../../../domain/lock.ts';
import { isTaskFailure, type Task, type TaskFailure, type TaskOutcome } from '../../../domain/task.ts';
import { actorFromJson, actorJson, insertEvents, withEvents } from './events.ts';
import { KeptSql } from './kept-sql.ts';
import type { Database, TasksTable } from './tables.ts';

function toOrigin(row: Selectable<TasksTable>): Origin | undefined {
  const actor = actorFromJson(row.origin_actor);
  const method = row.origin_method;
  if (!actor || method === null || !(LOCK_METHODS as readonly string[]).includes(method)) return undefined;
  return { actor, method: method as LockMethod };
}

function toTask(row: Selectable<TasksTable>): Task {
  // Parsed once: every poll of a task's result reads it.
  const origin = toOrigin(row);
  const base = {
    id: row.id,
    accountId: row.account_id,
    deviceId: row.device_id,
    command: isLockCommand(row.command) ? row.command : 'sync',
    createdAt: Number(row.created_at),
    deadline: Number(row.deadline),
    ...(origin === undefined ? {} : { origin }),
  };
  if (row.status === 'processing') return { ...base, status: 'processing' };
  const outcome: TaskOutcome =
    row.successful === 1
      ? { successful: true }
      : { successful: false, error: isTaskFailure(row.error) ? row.error : 'INTERNAL_ERROR' };
  return { ...base, status: 'terminated', outcome, endedAt: Number(row.ended_at ?? row.deadline) };
}

// The statements of every command and every poll of its result, compiled once (kept-sql.ts).
const END_PROCESSING = new KeptSql();
const INSERT_TASK = new KeptSql();
const TASK_ROW = new KeptSql();
// A command's Idempotency-Key, claimed in the task's transaction.
const CLAIM_KEY = new KeptSql();

/**
 * Ends the task if it is still processing, with `db` (a transaction of a change it goes with);
 * undefined when it had ended already. The `status = 'processing'` condition is what makes a task
 * end once: on PostgreSQL a second transaction ending it waits for the first and then matches nothing.
 */
export async function endProcessing(
  db: Kysely<Database>,
  id: string,
  outcome: TaskOutcome,
  at: number,
): Promise<Task | undefined> {
  const values = {
    status: 'terminated',
    successful: outcome.successful ? 1 : 0,
    error: outcome.successful ? null : outcome.error,
    ended_at: at,
  } as const;
  const result = await END_PROCESSING.run(db, [...Object.values(values), id, 'processing'], () =>
    db
      .updateTable('tasks')
      .set(values)
      .where('id', '=', id)
      .where('status', '=', 'processing')
      .returningAll(),
  );
  const row = result.rows[0];
  return row && toTask(row);
}

/** Thrown inside the transaction to roll the key's record back: the lock was busy. */
class LockBusy extends Error {}

export class SqlTaskStore implements TaskStore {
  constructor(private readonly db: Kysely<Database>) {}

  async createProcessing(
    task: Task & { status: 'processing' },
    { events = [], key }: TaskMadeWith = {},
  ): Promise<CreateTaskResult> {
    if (key === undefined) {
      const created = await withEvents(this.db, events.length > 0, async (db) => {
        const inserted = await this.insert(db, task);
        if (inserted) await insertEvents(db, events);
        return inserted;
      });
      return created ? { created: true, task: created } : this.busy(task);
    }
    try {
      return await this.db.transaction().execute(async (trx) => {
        // The primary key decides which request with the key is first; on PostgreSQL a second
        // transaction inserting the same key waits here for the first to commit or roll back. A
        // record past its 24 h, not yet purged, is as good as gone: it is written over.
        const record = {
          fingerprint: key.fingerprint,
          task_id: task.id,
          created_at: key.createdAt,
          expires_at: key.expiresAt,
        };
        const row = { account_id: key.accountId, key_hash: key.keyHash, ...record };
        const params = [...Object.values(row), ...Object.values(record), key.createdAt];
        const claimed = await CLAIM_KEY.run(trx, params, () =>
          trx
            .insertInto('idempotency_keys')
            .values(row)
            .onConflict((oc) =>
              oc
                .columns(['account_id', 'key_hash'])
                .doUpdateSet(record)
                .where('idempotency_keys.expires_at', '<=', key.createdAt),
            ),
        );
        if (Number(claimed.numAffectedRows ?? 0) !== 1) return { created: false, keyTaken: true } as const;
        const inserted = await this.insert(trx, task);
        if (!inserted) throw new LockBusy();
        await insertEvents(trx, events);
        return { created: true, task: inserted } as const;
      });
    } catch (error) {
      if (error instanceof LockBusy) return this.busy(task);
      throw error;
    }
  }

  /**
   * ON CONFLICT DO NOTHING against the partial unique index: the insert is the busy check. The task
   * as stored when inserted (for whoever keeps it: the read cache), undefined when the lock was busy.
   */
  private async insert(
    db: Kysely<Database>,
    task: Task & { status: 'processing' },
  ): Promise<Task | undefined> {
    const row = {
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
    } as const;
    const result = await INSERT_TASK.run(db, Object.values(row), () =>
      db
        .insertInto('tasks')
        .values(row)
        .onConflict((oc) => oc.doNothing())
        .returningAll(),
    );
    const stored = result.rows[0];
    return stored && toTask(stored);
  }

  private async busy(task: Task & { status: 'processing' }): Promise<CreateTaskResult> {
    const running = await this.processingOn(task.deviceId);
    // The running task may have ended between the insert and this read: report a short wait.
    return { created: false, running: running ?? { ...task, deadline: task.createdAt } };
  }

  async processingOn(deviceId: string): Promise<Task | undefined> {
    const row = await this.db
      .selectFrom('tasks')
      .selectAll()
      .where('device_id', '=', deviceId)
      // Literal, not bound: a bound value that a partial index's condition depends on makes SQLite
      // prepare the statement again on every run (9 µs against 1.4 µs; test/stores/sqlite.test.ts).
      .where(sql<boolean>`status = 'processing'`)
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
    const result = await TASK_ROW.run(this.db, [id], () =>
      this.db.selectFrom('tasks').selectAll().where('id', '=', id),
    );
    const row = result.rows[0];
    return row && toTask(row);
  }

  async terminate(
    id: string,
    outcome: TaskOutcome,
    at: number,
    events?: TaskEndEvents,
  ): Promise<Task | undefined> {
    return withEvents(this.db, events !== undefined, async (db) => {
      const ended = await endProcessing(db, id, outcome, at);
      if (ended && events) await insertEvents(db, events(ended));
      return ended;
    });
  }

  terminateOverdue(now: number, error: TaskFailure, events?: TaskEndEvents): Promise<Task[]> {
    return this.ending(events, (db) =>
      db
        .updateTable('tasks')
        .set({ status: 'terminated', successful: 0, error, ended_at: now })
        // Literal: the partial index of the tasks still processing (024) is proven to apply.
        .where(sql<boolean>`status = 'processing'`)
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
        // Literal, as in processingOn: bound, it is prepared again on every run.
        .where(sql<boolean>`status = 'processing'`)
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
        .where(sql<boolean>`status = 'processing'`)
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
