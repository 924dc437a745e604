import { randomUUID } from 'node:crypto';
import type { Kysely, Selectable, Updateable } from 'kysely';
import type {
  LockPatch,
  LockSettingsWrite,
  LockStatus,
  LockStatusRead,
  LockStore,
  StatusAndEndWritten,
  TaskEnd,
} from '../../../app/ports.ts';
import type { LockEvent } from '../../../domain/event.ts';
import { initialHealth, type Lock, type NewLock, type ReportMark } from '../../../domain/lock.ts';
import { insertEvents, withEvents } from './events.ts';
import { guestSees } from './guest-access.ts';
import { KeptSql } from './kept-sql.ts';
import { statusColumns, toLock, trendColumns } from './lock-rows.ts';
import { LOCK_ROW_STRINGS as shared } from './shared-strings.ts';
import { bool, type Database, type LocksTable } from './tables.ts';
import { endProcessing } from './tasks.ts';

// The statements of every command and device report, compiled once (kept-sql.ts).
const LOCK_ROW = new KeptSql();
const WRITE_STATUS = new KeptSql();
const INSERT_LOCK = new KeptSql();

function statusRead(row: Selectable<LocksTable>): LockStatusRead {
  const mark =
    row.report_ap === null || row.report_seq === null
      ? null
      : {
          apId: shared.of(row.report_ap),
          epoch: shared.of(row.report_epoch ?? ''),
          seq: Number(row.report_seq),
        };
  return { lock: toLock(row), version: Number(row.status_version), mark };
}

export class SqlLockStore implements LockStore {
  constructor(private readonly db: Kysely<Database>) {}

  async insert(newLock: NewLock): Promise<void> {
    const lock: Lock = { ...initialHealth(newLock.battery), ...newLock };
    const row = {
      device_id: lock.deviceId,
      serial: lock.serial,
      nickname: lock.nickname,
      owner_id: lock.ownerId,
      locked: bool(lock.locked),
      battery: lock.battery,
      responsive: bool(lock.responsive),
      integration: bool(lock.integration),
      access_point: bool(lock.accessPoint),
      app_open: bool(lock.appOpen),
      ap_id: lock.accessPointId,
      created_at: lock.createdAt,
      jammed: bool(lock.jammed),
      door: lock.door,
      firmware: lock.firmware,
      last_seen_at: lock.lastSeenAt,
      auto_lock_seconds: lock.autoLockSeconds,
      battery_low: lock.batteryLow,
      battery_critical: lock.batteryCritical,
      time_zone: lock.timeZone,
      battery_state: lock.batteryState,
      offline_since: lock.offlineSince,
      offline_announced: bool(lock.offlineAnnounced),
      ...trendColumns(lock),
    };
    // Every lock an access point pairs is one: 100,000 at once after a broker restart.
    await INSERT_LOCK.run(this.db, Object.values(row), () => this.db.insertInto('locks').values(row));
  }

  async get(deviceId: string): Promise<Lock | undefined> {
    const row = await this.row(deviceId);
    return row && toLock(row);
  }

  async readStatus(deviceId: string): Promise<LockStatusRead | undefined> {
    const row = await this.row(deviceId);
    return row && statusRead(row);
  }

  async writeStatusIf(
    deviceId: string,
    version: number,
    status: LockStatus,
    mark: ReportMark | null,
    events: readonly LockEvent[] = [],
  ): Promise<LockStatusRead | undefined> {
    return withEvents(this.db, events.length > 0, async (db) => {
      const written = await this.writeStatus(db, deviceId, version, status, mark);
      if (written) await insertEvents(db, events);
      return written;
    });
  }

  writeStatusIfAndEnd(
    deviceId: string,
    version: number,
    status: LockStatus,
    mark: ReportMark | null,
    events: readonly LockEvent[],
    end: TaskEnd,
  ): Promise<StatusAndEndWritten> {
    // The lock's row, then the task's, then the log's counter (insertEvents, last): the order every
    // transaction that takes more than one of them keeps, so none waits for another in a cycle.
    return this.db.transaction().execute(async (trx): Promise<StatusAndEndWritten> => {
      const written = await this.writeStatus(trx, deviceId, version, status, mark);
      if (!written) return { written: false };
      const ended = await endProcessing(trx, end.taskId, end.outcome, end.at);
      // One insert for all: the movement's events first, then the end's (their ids rise in that order).
      await insertEvents(trx, ended && end.events ? [...events, ...end.events(ended)] : events);
      return { written: true, status: written, ended };
    });
  }

  private async writeStatus(
    db: Kysely<Database>,
    deviceId: string,
    version: number,
    status: LockStatus,
    mark: ReportMark | null,
  ): Promise<LockStatusRead | undefined> {
    const values = {
      ...statusColumns(status),
      status_version: version + 1,
      report_ap: mark?.apId ?? null,
      report_epoch: mark?.epoch ?? null,
      report_seq: mark?.seq ?? null,
    };
    const result = await WRITE_STATUS.run(db, [...Object.values(values), deviceId, version], () =>
      db
        .updateTable('locks')
        .set(values)
        .where('device_id', '=', deviceId)
        .where('status_version', '=', version)
        // The row as written, for whoever keeps it (the read cache): no read after the write.
        .returningAll(),
    );
    const row = result.rows[0];
    return row && statusRead(row);
  }

  /** The lock's row: what every command, report and read of a lock starts from. */
  private async row(deviceId: string): Promise<Selectable<LocksTable> | undefined> {
    const result = await LOCK_ROW.run(this.db, [deviceId], () =>
      this.db.selectFrom('locks').selectAll().where('device_id', '=', deviceId),
    );
    return result.rows[0];
  }

  async listOfflineDue(cutoff: number, limit: number): Promise<Lock[]> {
    const rows = await this.db
      .selectFrom('locks')
      .selectAll()
      .where('responsive', '=', 0)
      .where('offline_announced', '=', 0)
      .where('offline_since', '<=', cutoff)
      .orderBy('offline_since')
      .orderBy('device_id')
      .limit(limit)
      .execute();
    return rows.map(toLock);
  }

  announceOffline(deviceId: string, offlineSince: number, events: readonly LockEvent[]): Promise<boolean> {
    return withEvents(this.db, events.length > 0, async (db) => {
      // The outage itself is the compare-and-set: a report that brought the lock back (or lost it
      // anew) changed it, another process's announcement marked it. The status version moves, so a
      // report read before this writes again, and then sees the outage announced.
      const result = await db
        .updateTable('locks')
        .set((eb) => ({ offline_announced: 1, status_version: eb('status_version', '+', 1) }))
        .where('device_id', '=', deviceId)
        .where('responsive', '=', 0)
        .where('offline_announced', '=', 0)
        .where('offline_since', '=', offlineSince)
        .executeTakeFirst();
      const announced = Number(result.numUpdatedRows) === 1;
      if (announced) await insertEvents(db, events);
      return announced;
    });
  }

  async updateSettingsIf(
    deviceId: string,
    version: number,
    settings: LockSettingsWrite,
    events: readonly LockEvent[],
  ): Promise<boolean> {
    return withEvents(this.db, events.length > 0, async (db) => {
      const result = await db
        .updateTable('locks')
        .set({
          ...(settings.nickname === undefined ? {} : { nickname: settings.nickname }),
          ...(settings.autoLockSeconds === undefined ? {} : { auto_lock_seconds: settings.autoLockSeconds }),
          ...(settings.batteryLow === undefined ? {} : { battery_low: settings.batteryLow }),
          ...(settings.batteryCritical === undefined ? {} : { battery_critical: settings.batteryCritical }),
          ...(settings.batteryState === undefined ? {} : { battery_state: settings.batteryState }),
          ...(settings.timeZone === undefined ? {} : { time_zone: settings.timeZone }),
          status_version: version + 1,
        })
        .where('device_id', '=', deviceId)
        .where('status_version', '=', version)
        .executeTakeFirst();
      const written = Number(result.numUpdatedRows) === 1;
      if (written) await insertEvents(db, events);
      return written;
    });
  }

  async listOwnedBy(accountId: string): Promise<Lock[]> {
    const rows = await this.db
      .selectFrom('locks')
      .selectAll()
      .where('owner_id', '=', accountId)
      .orderBy('created_at')
      .orderBy('device_id')
      .execute();
    return rows.map(toLock);
  }

  async update(deviceId: string, patch: LockPatch): Promise<void> {
    const values: Updateable<LocksTable> = {};
    if (patch.serial !== undefined) values.serial = patch.serial;
    if (patch.nickname !== undefined) values.nickname = patch.nickname;
    if (patch.locked !== undefined) values.locked = bool(patch.locked);
    if (patch.battery !== undefined) values.battery = patch.battery;
    if (patch.responsive !== undefined) values.responsive = bool(patch.responsive);
    if (patch.integration !== undefined) values.integration = bool(patch.integration);
    if (patch.accessPoint !== undefined) values.access_point = bool(patch.accessPoint);
    if (patch.appOpen !== undefined) values.app_open = bool(patch.appOpen);
    if (patch.accessPointId !== undefined) values.ap_id = patch.accessPointId;
    if (patch.autoLockSeconds !== undefined) values.auto_lock_seconds = patch.autoLockSeconds;
    if (patch.batteryLow !== undefined) values.battery_low = patch.batteryLow;
    if (patch.batteryCritical !== undefined) values.battery_critical = patch.batteryCritical;
    if (patch.batteryState !== undefined) values.battery_state = patch.batteryState;
    if (Object.keys(values).length === 0) return;
    const statusWritten =
      values.locked !== undefined ||
      values.battery !== undefined ||
      values.responsive !== undefined ||
      values.app_open !== undefined;
    await this.db
      .updateTable('locks')
      .set(values)
      // A status written outside writeStatusIf still fails the compare-and-set of a concurrent one.
      .$if(statusWritten, (qb) => qb.set((eb) => ({ status_version: eb('status_version', '+', 1) })))
      .where('device_id', '=', deviceId)
      .execute();
  }

  async listVisibleTo(accountId: string): Promise<Lock[]> {
    const rows = await this.db
      .selectFrom('locks')
      .selectAll()
      .where((eb) =>
        eb.or([
          eb('owner_id', '=', accountId),
          eb(
            'device_id',
            'in',
            eb.selectFrom('grants').select('grants.device_id').where(guestSees(accountId)),
          ),
        ]),
      )
      .orderBy('created_at')
      .orderBy('device_id')
      .execute();
    return rows.map(toLock);
  }

  async listByAccessPoint(apId: string): Promise<Lock[]> {
    const rows = await this.db
      .selectFrom('locks')
      .selectAll()
      .where('ap_id', '=', apId)
      .orderBy('created_at')
      .orderBy('device_id')
      .execute();
    return rows.map(toLock);
  }

  async isSharedWith(deviceId: string, accountId: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('grants')
      .select('device_id')
      .where('device_id', '=', deviceId)
      .where(guestSees(accountId))
      .executeTakeFirst();
    return row !== undefined;
  }

  async countByOwner(): Promise<Map<string, number>> {
    const rows = await this.db
      .selectFrom('locks')
      .select((eb) => ['owner_id', eb.fn.countAll<number>().as('n')])
      .groupBy('owner_id')
      .execute();
    return new Map(rows.map((row) => [row.owner_id, Number(row.n)]));
  }

  async share(
    deviceId: string,
    accountId: string,
    events: readonly LockEvent[] = [],
    made: { readonly id: string; readonly at: number } = { id: randomUUID(), at: Date.now() },
  ): Promise<void> {
    await withEvents(this.db, events.length > 0, async (db) => {
      // A share is what a guest could have before grants: an accepted view grant at any time. One
      // made anew (no row, or one pending, declined, revoked or used) takes a new id, as an
      // invitation does; an accepted grant, whatever its terms, is left as it is: already shared.
      const result = await db
        .insertInto('grants')
        .columns(['device_id', 'account_id', 'id', 'owner_id', 'role', 'state', 'one_time', 'created_at'])
        .expression((eb) =>
          eb
            .selectFrom('locks')
            .select([
              'locks.device_id',
              eb.val(accountId).as('account_id'),
              eb.val(made.id).as('id'),
              'locks.owner_id',
              eb.val('view').as('role'),
              eb.val('accepted').as('state'),
              eb.val(0).as('one_time'),
              eb.val(made.at).as('created_at'),
            ])
            .where('locks.device_id', '=', deviceId),
        )
        .onConflict((oc) =>
          oc
            .columns(['device_id', 'account_id'])
            .doUpdateSet((eb) => ({
              id: eb.ref('excluded.id'),
              owner_id: eb.ref('excluded.owner_id'),
              role: 'view',
              state: 'accepted',
              starts_at: null,
              ends_at: null,
              schedule: null,
              one_time: 0,
              created_at: eb.ref('excluded.created_at'),
              responded_at: null,
              used_at: null,
            }))
            .where('grants.state', '<>', 'accepted'),
        )
        .executeTakeFirst();
      if (Number(result.numInsertedOrUpdatedRows ?? 0) === 1) await insertEvents(db, events);
    });
  }

  async sharesOf(deviceId: string): Promise<{ accountId: string; email: string }[]> {
    const rows = await this.db
      .selectFrom('grants as g')
      .innerJoin('accounts as a', 'a.id', 'g.account_id')
      .select(['a.id', 'a.email'])
      .where('g.device_id', '=', deviceId)
      .where('g.state', '=', 'accepted')
      .orderBy('a.email')
      .execute();
    return rows.map((row) => ({ accountId: row.id, email: row.email }));
  }

  async unshare(deviceId: string, accountId: string, events: readonly LockEvent[] = []): Promise<boolean> {
    return withEvents(this.db, events.length > 0, async (db) => {
      // The row goes whatever its state: the guest keeps no trace of the lock.
      const result = await db
        .deleteFrom('grants')
        .where('device_id', '=', deviceId)
        .where('account_id', '=', accountId)
        .executeTakeFirst();
      const removed = Number(result.numDeletedRows) === 1;
      if (removed) await insertEvents(db, events);
      return removed;
    });
  }

  async releaseAccount(accountId: string): Promise<string[]> {
    return this.db.transaction().execute(async (trx) => {
      const owned = await trx
        .selectFrom('locks')
        .select('device_id')
        .where('owner_id', '=', accountId)
        .execute();
      const ids = owned.map((row) => row.device_id);
      // Grants first: the foreign keys need not be enforced for this to leave no dangling row. Those
      // to the account, those it gave (owner_id: of a lock it owns, or owned when it granted).
      await trx
        .deleteFrom('grants')
        .where((eb) => eb.or([eb('account_id', '=', accountId), eb('owner_id', '=', accountId)]))
        .execute();
      if (ids.length > 0) {
        await trx.deleteFrom('grants').where('device_id', 'in', ids).execute();
        await trx.deleteFrom('locks').where('device_id', 'in', ids).execute();
      }
      return ids;
    });
  }
}
