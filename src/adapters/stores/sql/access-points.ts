import type { Kysely, Selectable } from 'kysely';
import type { AccessPointInfo, AccessPointStore } from '../../../app/ports.ts';
import type { AccessPoint, NewAccessPoint } from '../../../domain/access-point.ts';
import type { LockEvent } from '../../../domain/event.ts';
import { insertEvents, withEvents } from './events.ts';
import { type AccessPointsTable, bool, type Database } from './tables.ts';

function toAccessPoint(row: Selectable<AccessPointsTable>): AccessPoint {
  return {
    id: row.id,
    accountId: row.account_id,
    name: row.name,
    createdAt: Number(row.created_at),
    online: row.online === 1,
    lastSeenAt: row.last_seen_at === null ? null : Number(row.last_seen_at),
    firmware: row.firmware,
    signal: row.signal,
    protocolVersion: row.protocol_version,
  };
}

export class SqlAccessPointStore implements AccessPointStore {
  constructor(private readonly db: Kysely<Database>) {}

  async insert(
    ap: NewAccessPoint & { readonly secretHash: string; readonly brokerHash?: string | null },
  ): Promise<void> {
    await this.db
      .insertInto('access_points')
      .values({
        id: ap.id,
        account_id: ap.accountId,
        name: ap.name,
        secret_hash: ap.secretHash,
        broker_hash: ap.brokerHash ?? null,
        created_at: ap.createdAt,
        online: bool(ap.online),
        last_seen_at: ap.lastSeenAt,
      })
      .execute();
  }

  async get(id: string): Promise<(AccessPoint & { readonly secretHash: string }) | undefined> {
    const row = await this.db.selectFrom('access_points').selectAll().where('id', '=', id).executeTakeFirst();
    return row && { ...toAccessPoint(row), secretHash: row.secret_hash };
  }

  async brokerHashes(): Promise<{ readonly id: string; readonly brokerHash: string | null }[]> {
    const rows = await this.db
      .selectFrom('access_points')
      .select(['id', 'broker_hash'])
      .orderBy('id')
      .execute();
    return rows.map((row) => ({ id: row.id, brokerHash: row.broker_hash }));
  }

  async listForAccount(accountId: string): Promise<AccessPoint[]> {
    const rows = await this.db
      .selectFrom('access_points')
      .selectAll()
      .where('account_id', '=', accountId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map(toAccessPoint);
  }

  async list(): Promise<AccessPoint[]> {
    const rows = await this.db
      .selectFrom('access_points')
      .selectAll()
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map(toAccessPoint);
  }

  async setOnline(
    id: string,
    online: boolean,
    at: number,
    events?: (ap: AccessPoint) => readonly LockEvent[],
    info?: AccessPointInfo,
  ): Promise<void> {
    await withEvents(this.db, events !== undefined, async (db) => {
      // Only a change is an event: the row as it was, then the update that changes it, if any.
      const before = events
        ? await db.selectFrom('access_points').selectAll().where('id', '=', id).executeTakeFirst()
        : undefined;
      await db
        .updateTable('access_points')
        .set({
          online: bool(online),
          last_seen_at: at,
          // A status that names no firmware or signal clears what an earlier one said.
          ...(info && {
            firmware: info.firmware ?? null,
            signal: info.signal ?? null,
            protocol_version: info.protocolVersion,
          }),
        })
        .where('id', '=', id)
        .execute();
      if (events && before && (before.online === 1) !== online)
        await insertEvents(db, events({ ...toAccessPoint(before), online, lastSeenAt: at }));
    });
  }

  async seen(id: string, at: number): Promise<void> {
    await this.db.updateTable('access_points').set({ last_seen_at: at }).where('id', '=', id).execute();
  }

  async countOnline(): Promise<number> {
    const row = await this.db
      .selectFrom('access_points')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('online', '=', 1)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async remove(id: string): Promise<boolean> {
    const result = await this.db.deleteFrom('access_points').where('id', '=', id).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }
}
