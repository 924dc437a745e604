import type { Kysely } from 'kysely';
import type { SimDeviceStore } from '../../../app/ports.ts';
import type { SimAccessPoint, SimDeviceState } from '../../../domain/sim-device.ts';
import { isTaskFailure } from '../../../domain/task.ts';
import { bool, type Database } from './tables.ts';

export class SqlSimDeviceStore implements SimDeviceStore {
  constructor(private readonly db: Kysely<Database>) {}

  async list(): Promise<SimDeviceState[]> {
    const rows = await this.db.selectFrom('sim_devices').selectAll().orderBy('device_id').execute();
    // Rows from before the device link have no access point: they are not run by any simulated one.
    return rows.flatMap((row) =>
      row.ap_id === null
        ? []
        : [
            {
              deviceId: row.device_id,
              apId: row.ap_id,
              serial: row.serial ?? row.device_id.replace(/-/g, '').slice(-10).toUpperCase(),
              nickname: row.nickname ?? 'Lock',
              locked: row.locked === 1,
              battery: row.battery,
              responsive: row.responsive === 1,
              accessPoint: row.access_point === 1,
              appOpen: row.app_open === 1,
              latencyMs: row.latency_ms,
              failNext: isTaskFailure(row.fail_next) ? row.fail_next : null,
              jammed: row.jammed === 1,
              door: row.door === 'open' || row.door === 'closed' ? row.door : null,
              firmware: row.firmware,
              autoLockSeconds: row.auto_lock_seconds,
            },
          ],
    );
  }

  async save(s: SimDeviceState): Promise<void> {
    const values = {
      ap_id: s.apId,
      serial: s.serial,
      nickname: s.nickname,
      locked: bool(s.locked),
      battery: s.battery,
      responsive: bool(s.responsive),
      access_point: bool(s.accessPoint),
      app_open: bool(s.appOpen),
      latency_ms: s.latencyMs,
      fail_next: s.failNext,
      jammed: bool(s.jammed),
      door: s.door,
      firmware: s.firmware,
      auto_lock_seconds: s.autoLockSeconds,
    };
    await this.db
      .insertInto('sim_devices')
      .values({ device_id: s.deviceId, ...values })
      .onConflict((oc) => oc.column('device_id').doUpdateSet(values))
      .execute();
  }

  async listAccessPoints(): Promise<SimAccessPoint[]> {
    const rows = await this.db.selectFrom('sim_access_points').selectAll().orderBy('id').execute();
    return rows.map((row) => ({ id: row.id, sealedSecret: row.sealed_secret }));
  }

  async saveAccessPoint(ap: SimAccessPoint): Promise<void> {
    await this.db
      .insertInto('sim_access_points')
      .values({ id: ap.id, sealed_secret: ap.sealedSecret })
      .onConflict((oc) => oc.column('id').doUpdateSet({ sealed_secret: ap.sealedSecret }))
      .execute();
  }
}
