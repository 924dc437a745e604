import type { Kysely, Selectable, Updateable } from 'kysely';
import type { GrantStore } from '../../../app/ports.ts';
import type { LockEvent } from '../../../domain/event.ts';
import type {
  Grant,
  GrantAnswer,
  GrantChange,
  GrantRole,
  GrantState,
  GuestGrant,
  NewGrant,
  OwnerGrant,
} from '../../../domain/grant.ts';
import type { WeeklySchedule } from '../../../domain/schedule.ts';
import { insertEvents, withEvents } from './events.ts';
import { bool, type Database, type GrantsTable } from './tables.ts';

/** The states in which a grant may still give access, and so be edited or revoked (canEditGrant). */
const LIVE_STATES: readonly GrantState[] = ['pending', 'accepted'];

/** Rows are written by this file only, through the domain's types: the text is one of theirs. */
function toGrant(row: Selectable<GrantsTable>): Grant {
  return {
    id: row.id,
    deviceId: row.device_id,
    ownerId: row.owner_id,
    guestId: row.account_id,
    role: row.role as GrantRole,
    state: row.state as GrantState,
    startsAt: row.starts_at === null ? null : Number(row.starts_at),
    endsAt: row.ends_at === null ? null : Number(row.ends_at),
    schedule: row.schedule === null ? null : (JSON.parse(row.schedule) as WeeklySchedule),
    oneTime: row.one_time === 1,
    createdAt: Number(row.created_at),
    respondedAt: row.responded_at === null ? null : Number(row.responded_at),
    usedAt: row.used_at === null ? null : Number(row.used_at),
  };
}

const scheduleText = (schedule: WeeklySchedule | null): string | null =>
  schedule === null ? null : JSON.stringify(schedule);

/** The columns of the terms a change gives; absent ones are left out, so they stay as they are. */
function termColumns(change: GrantChange): Updateable<GrantsTable> {
  return {
    ...(change.role === undefined ? {} : { role: change.role }),
    ...(change.startsAt === undefined ? {} : { starts_at: change.startsAt }),
    ...(change.endsAt === undefined ? {} : { ends_at: change.endsAt }),
    ...(change.schedule === undefined ? {} : { schedule: scheduleText(change.schedule) }),
    ...(change.oneTime === undefined ? {} : { one_time: bool(change.oneTime) }),
  };
}

export class SqlGrantStore implements GrantStore {
  constructor(private readonly db: Kysely<Database>) {}

  invite(grant: NewGrant, events: readonly LockEvent[] = []): Promise<void> {
    return withEvents(this.db, events.length > 0, async (db) => {
      const row = {
        device_id: grant.deviceId,
        account_id: grant.guestId,
        id: grant.id,
        owner_id: grant.ownerId,
        role: grant.role,
        state: 'pending',
        starts_at: grant.startsAt,
        ends_at: grant.endsAt,
        schedule: scheduleText(grant.schedule),
        one_time: bool(grant.oneTime),
        created_at: grant.createdAt,
        responded_at: null,
        used_at: null,
      };
      const { device_id: _d, account_id: _a, ...replaced } = row;
      await db
        .insertInto('grants')
        .values(row)
        .onConflict((oc) => oc.columns(['device_id', 'account_id']).doUpdateSet(replaced))
        .execute();
      await insertEvents(db, events);
    });
  }

  async get(id: string): Promise<Grant | undefined> {
    const row = await this.db.selectFrom('grants').selectAll().where('id', '=', id).executeTakeFirst();
    return row && toGrant(row);
  }

  async getFor(deviceId: string, guestId: string): Promise<Grant | undefined> {
    const row = await this.db
      .selectFrom('grants')
      .selectAll()
      .where('device_id', '=', deviceId)
      .where('account_id', '=', guestId)
      .executeTakeFirst();
    return row && toGrant(row);
  }

  async listForLock(deviceId: string): Promise<OwnerGrant[]> {
    const rows = await this.db
      .selectFrom('grants as g')
      .innerJoin('accounts as a', 'a.id', 'g.account_id')
      .selectAll('g')
      .select('a.email as guest_email')
      .where('g.device_id', '=', deviceId)
      .orderBy('a.email')
      .execute();
    return rows.map((row) => ({ ...toGrant(row), guestEmail: row.guest_email }));
  }

  async listForGuest(guestId: string, states?: readonly GrantState[]): Promise<GuestGrant[]> {
    if (states?.length === 0) return [];
    const rows = await this.db
      .selectFrom('grants as g')
      .innerJoin('locks as l', 'l.device_id', 'g.device_id')
      .innerJoin('accounts as o', 'o.id', 'g.owner_id')
      .selectAll('g')
      .select(['l.nickname as lock_nickname', 'l.time_zone as lock_time_zone', 'o.email as owner_email'])
      .where('g.account_id', '=', guestId)
      .$if(states !== undefined, (qb) => qb.where('g.state', 'in', [...(states ?? [])]))
      .orderBy('g.created_at')
      .orderBy('g.id')
      .execute();
    return rows.map((row) => ({
      ...toGrant(row),
      lockNickname: row.lock_nickname,
      ownerEmail: row.owner_email,
      lockTimeZone: row.lock_time_zone,
    }));
  }

  updateStateIf(
    id: string,
    from: GrantState,
    to: GrantAnswer,
    at: number,
    events: readonly LockEvent[] = [],
  ): Promise<boolean> {
    return this.writeIf(events, (db) =>
      db
        .updateTable('grants')
        .set({ state: to, responded_at: at })
        .where('id', '=', id)
        .where('state', '=', from)
        .executeTakeFirst(),
    );
  }

  async updateTermsIf(id: string, change: GrantChange, events: readonly LockEvent[] = []): Promise<boolean> {
    const columns = termColumns(change);
    if (Object.keys(columns).length === 0) {
      // Nothing to write, so no events; whether the grant could be edited is still the answer.
      const grant = await this.get(id);
      return grant !== undefined && LIVE_STATES.includes(grant.state);
    }
    // The state is the compare-and-set: a revoke or a decline that came first wins. Two edits racing
    // each write their own fields; if together they break a rule between fields, the table's CHECKs
    // (migration 017) refuse the second rather than store a grant the domain would not make.
    return this.writeIf(events, (db) =>
      db
        .updateTable('grants')
        .set(columns)
        .where('id', '=', id)
        .where('state', 'in', [...LIVE_STATES])
        .executeTakeFirst(),
    );
  }

  revoke(id: string, at: number, events: readonly LockEvent[] = []): Promise<boolean> {
    return this.writeIf(events, (db) =>
      db
        .updateTable('grants')
        .set({ state: 'revoked', responded_at: at })
        .where('id', '=', id)
        .where('state', 'in', [...LIVE_STATES])
        .executeTakeFirst(),
    );
  }

  markUsedIf(id: string, at: number, events: readonly LockEvent[] = []): Promise<boolean> {
    // One statement compares and sets: of two unlocks racing, the second finds the grant used.
    return this.writeIf(events, (db) =>
      db
        .updateTable('grants')
        .set({ state: 'used', used_at: at })
        .where('id', '=', id)
        .where('state', '=', 'accepted')
        .where('one_time', '=', 1)
        .executeTakeFirst(),
    );
  }

  /** Runs a one-row update and writes `events` with it, in one transaction, only if it changed the row. */
  private writeIf(
    events: readonly LockEvent[],
    update: (db: Kysely<Database>) => Promise<{ numUpdatedRows: bigint }>,
  ): Promise<boolean> {
    return withEvents(this.db, events.length > 0, async (db) => {
      const written = Number((await update(db)).numUpdatedRows) === 1;
      if (written) await insertEvents(db, events);
      return written;
    });
  }
}
