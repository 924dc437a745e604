import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { seedLockDefaults, simDeviceOf } from '../app/seed/load.ts';
import { parseSeed } from '../app/seed/validate.ts';
import { SIM_HEALTH, type SimDeviceState } from '../domain/sim-device.ts';
import type { FleetMember } from './fleet.ts';

export class DevicesFileError extends Error {
  override name = 'DevicesFileError';
}

/** What a simulated lock starts as when only its count is given. */
export interface LockTemplate {
  readonly latencyMs: number;
  readonly battery: number;
}

function read(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw new DevicesFileError(`cannot read ${path}: ${(error as Error).message}`);
  }
}

/** A stable UUID-shaped id from a name, so a rerun announces the same locks. */
function derivedId(name: string): string {
  const hex = createHash('sha256').update(name).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/**
 * The access points of `lockcloud admin register-ap --json` ([{id, username, password}]) with `count`
 * locks dealt out among them in turn.
 */
export function fromCredentials(path: string, count: number, template: LockTemplate): FleetMember[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(read(path));
  } catch (error) {
    if (error instanceof DevicesFileError) throw error;
    throw new DevicesFileError(`${path}: not valid JSON`);
  }
  if (!Array.isArray(parsed) || parsed.length === 0)
    throw new DevicesFileError(`${path}: expected a non-empty array of {id, username, password}`);
  const members = parsed.map((entry: unknown, i) => {
    const e = entry as { id?: unknown; password?: unknown };
    if (typeof e.id !== 'string' || typeof e.password !== 'string')
      throw new DevicesFileError(`${path}[${i}]: needs "id" and "password" strings`);
    return { id: e.id.toLowerCase(), secret: e.password, locks: [] as SimDeviceState[] };
  });
  for (let n = 0; n < count; n++) {
    const member = members[n % members.length];
    if (!member) continue;
    const deviceId = derivedId(`${member.id}:${n}`);
    member.locks.push({
      deviceId,
      apId: member.id,
      serial: `SIM${deviceId.replace(/-/g, '').slice(0, 7).toUpperCase()}`,
      nickname: `Simulated lock ${n + 1}`,
      locked: true,
      battery: template.battery,
      responsive: true,
      accessPoint: true,
      appOpen: false,
      latencyMs: template.latencyMs,
      failNext: null,
      ...SIM_HEALTH,
    });
  }
  return members;
}

/** The access points and locks of a seed file (README.md); each access point must name its secret. */
export function fromSeed(path: string): FleetMember[] {
  const seed = parseSeed(read(path));
  const members = new Map<string, FleetMember & { locks: SimDeviceState[] }>();
  for (const ap of seed.access_points ?? []) {
    if (ap.secret === undefined)
      throw new DevicesFileError(
        `${path}: access point ${ap.id} has no "secret": a separate simulator needs it`,
      );
    members.set(ap.id.toLowerCase(), { id: ap.id.toLowerCase(), secret: ap.secret, locks: [] });
  }
  for (const entry of seed.locks ?? []) {
    const apId = entry.access_point_id?.toLowerCase();
    const member = apId === undefined ? undefined : members.get(apId);
    // Locks without an access point of the file run in the server's own simulator, not here.
    if (!member || apId === undefined) continue;
    member.locks.push(simDeviceOf(seedLockDefaults(entry), apId));
  }
  return [...members.values()];
}
