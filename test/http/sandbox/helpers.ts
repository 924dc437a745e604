/** Small readers shared by the sandbox tests: what a v3 client would see, and the raw store. */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StoreSnapshot } from '../../../src/app/ports.ts';
import { OWNER_KEY, sendCommand, type TestServer } from '../../support/server.ts';

export type Json = Record<string, unknown>;

export async function json(res: Response): Promise<Json> {
  return (await res.json()) as Json;
}

/** GET /public/lock/{id}: the status a v3 client reads. */
export async function lockStatus(t: TestServer, deviceId: string, key = OWNER_KEY): Promise<Json> {
  const res = await t.request(`/public/lock/${deviceId}`, { key });
  assert.equal(res.status, 200, `GET /public/lock/${deviceId} answered ${res.status}`);
  return json(res);
}

/** Sends a command that must be accepted; returns its task id. */
export async function acceptedTask(
  t: TestServer,
  deviceId: string,
  command: string,
  key = OWNER_KEY,
): Promise<string> {
  const res = await sendCommand(t, deviceId, command, key);
  const body = await json(res);
  assert.equal(res.status, 200, `command ${command} refused: ${JSON.stringify(body)}`);
  assert.equal(typeof body.task_id, 'string');
  return body.task_id as string;
}

export async function taskResult(t: TestServer, taskId: string, key = OWNER_KEY): Promise<Response> {
  return t.request(`/public/action-result?task_id=${encodeURIComponent(taskId)}`, { key });
}

export async function simClock(t: TestServer): Promise<number> {
  const res = await t.request('/_sim/clock');
  assert.equal(res.status, 200);
  return (await json(res)).epoch_ms as number;
}

export function freshDataDir(): string {
  return mkdtempSync(join(tmpdir(), 'lockcloud-sandbox-test-'));
}

/** Events the device link writes as access points and locks come and go (its own traffic). */
const LINK_EVENT = /^(access_point|lock)\.(online|offline)$/;

/**
 * What the store holds, less when each access point and lock was last heard from (and the battery
 * reading its trend is measured from was made), which device report each
 * lock applied last (and its status write count), and when the link's own events happened (their
 * ids hold the time, their log positions): those record the device link's own traffic (every start and reconnect), not
 * data the seed or the sandbox set. Which link events there are is still compared.
 */
export async function snapshotOf(t: TestServer): Promise<StoreSnapshot> {
  const snapshot = await t.server.store.snapshot();
  const events = (snapshot.events ?? []).map((row) =>
    LINK_EVENT.test(String(row.type)) ? { ...row, id: 'LINK', occurred_at: 'LINK', seq: 'LINK' } : row,
  );
  const order = (row: Record<string, unknown>) => `${row.id} ${row.type} ${row.device_id} ${row.data}`;
  return {
    ...snapshot,
    events: events.sort((a, b) => (order(a) < order(b) ? -1 : order(a) > order(b) ? 1 : 0)),
    access_points: (snapshot.access_points ?? []).map(({ last_seen_at: _seen, ...row }) => row),
    locks: (snapshot.locks ?? []).map(
      ({
        status_version: _v,
        report_ap: _ap,
        report_epoch: _epoch,
        report_seq: _seq,
        last_seen_at: _seen,
        battery_ref_at: _readAt,
        ...row
      }) => row,
    ),
  };
}

/**
 * A snapshot with the simulated access points' MQTT secrets replaced by a marker: the seed does not
 * name them, so each data directory draws its own.
 */
export function withoutDeviceSecrets(snapshot: StoreSnapshot): StoreSnapshot {
  return {
    ...snapshot,
    access_points: (snapshot.access_points ?? []).map((row) => ({
      ...row,
      secret_hash: 'HASHED',
      broker_hash: 'HASHED',
    })),
    sim_access_points: (snapshot.sim_access_points ?? []).map((row) => ({ ...row, sealed_secret: 'SEALED' })),
  };
}

/** A snapshot with every password hash replaced by a marker of whether there was one (they are salted). */
export function withoutPasswordHashes(snapshot: StoreSnapshot): StoreSnapshot {
  const out: Record<string, Record<string, unknown>[]> = {};
  for (const [table, rows] of Object.entries(snapshot)) {
    out[table] = rows.map((row) =>
      'password_hash' in row
        ? { ...row, password_hash: row.password_hash === null ? null : 'HASHED' }
        : { ...row },
    );
  }
  return out;
}
