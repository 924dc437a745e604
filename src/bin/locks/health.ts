/**
 * `lockcloud locks status ID` and `lockcloud locks set ID ...`: a lock's full picture from
 * /ext/locks/{id} (docs/locks.md) and the owner's settings, through the SDK's `client.locks`.
 */
import { InvalidArgumentError, type Command as Program } from 'commander';
import type { LockAccessPoint, LockHealth, LockSettings } from '../../../sdk/src/index.ts';
import { call, context } from './context.ts';
import { UsageError } from './exit-codes.ts';
import { out, table, yesNo } from './output.ts';

export async function status(id: string, cmd: Program): Promise<void> {
  const ctx = context(cmd);
  const lock = await call(ctx, (signal) => ctx.client.locks.get(id, { signal }));
  // The API's answer as it came, like `list --json` (README.md, "Command-line client").
  out(ctx.json ? JSON.stringify(lock, null, 2) : healthTable(lock));
}

/** The options of `set`, as commander parses them. */
export interface SetOptions {
  nickname?: string;
  autoLock?: number;
  batteryLow?: number;
  batteryCritical?: number;
}

export async function set(id: string, opts: SetOptions, cmd: Program): Promise<void> {
  const settings: LockSettings = {
    nickname: opts.nickname,
    auto_lock_seconds: opts.autoLock,
    battery_low: opts.batteryLow,
    battery_critical: opts.batteryCritical,
  };
  const given = Object.fromEntries(Object.entries(settings).filter(([, v]) => v !== undefined));
  if (Object.keys(given).length === 0)
    throw new UsageError(
      'nothing to change: give --nickname, --auto-lock, --battery-low or --battery-critical',
    );
  const ctx = context(cmd);
  const lock = await call(ctx, (signal) => ctx.client.locks.update(id, given, { signal }));
  out(ctx.json ? JSON.stringify(lock, null, 2) : healthTable(lock));
}

/** `--auto-lock SECONDS|off`: a whole number of seconds, 0 or `off` for none (the range is the server's). */
export function autoLockSeconds(value: string): number {
  if (value === 'off') return 0;
  return wholeNumber('--auto-lock', 'a whole number of seconds, or off')(value);
}

export function wholeNumber(flag: string, what: string) {
  return (value: string): number => {
    const n = Number(value);
    if (value.trim() === '' || !Number.isInteger(n) || n < 0)
      throw new InvalidArgumentError(`${flag} must be ${what}.`);
    return n;
  };
}

const when = (iso: string | null): string => iso ?? 'never';

function accessPointText(ap: LockAccessPoint | null): string {
  if (ap === null) return 'none';
  const signal = ap.signal === null ? '' : `, signal ${ap.signal} dBm`;
  const firmware = ap.firmware === null ? '' : `, firmware ${ap.firmware}`;
  return `${ap.name} (${ap.id}), ${ap.online ? 'online' : 'offline'}, last seen ${when(
    ap.last_seen_at,
  )}${firmware}${signal}, device protocol ${ap.protocol_version}`;
}

/** `, -0.4%/day` once a day of readings gives a trend; nothing before. */
function trendText(perDay: number | null): string {
  if (perDay === null) return '';
  return `, ${perDay > 0 ? '+' : ''}${perDay}%/day`;
}

/** The lock as rows `name  value`: the v3 fields first, its health, then the owner's settings. */
export function healthTable(lock: LockHealth): string {
  const rows: string[][] = [
    ['lock', `${lock.nickname}${lock.serial === undefined ? '' : ` (${lock.serial})`}, ${lock.role}`],
    ['locked', yesNo(lock.locked)],
    ['battery', `${lock.battery}% ${lock.battery_state}${trendText(lock.battery_per_day)}`],
    ['responsive', yesNo(lock.responsive)],
    ['jammed', yesNo(lock.jammed)],
    ['door', lock.door ?? 'no sensor'],
    ['last seen', when(lock.last_seen_at)],
    ['firmware', lock.firmware ?? 'unknown'],
  ];
  // Left out of a guest's answer: they are the owner's.
  if (lock.auto_lock_seconds !== undefined)
    rows.push(['auto-lock', lock.auto_lock_seconds === 0 ? 'off' : `${lock.auto_lock_seconds} s`]);
  if (lock.battery_low !== undefined && lock.battery_critical !== undefined)
    rows.push(['thresholds', `low under ${lock.battery_low}%, critical under ${lock.battery_critical}%`]);
  if (lock.access_point !== undefined) rows.push(['access point', accessPointText(lock.access_point)]);
  return table(rows);
}
