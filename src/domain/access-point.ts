import type { Lock } from './lock.ts';

/** A Wi-Fi access point registered to an account: the device that speaks for its locks. */
export interface AccessPoint {
  readonly id: string;
  readonly accountId: string;
  readonly name: string;
  readonly createdAt: number;
  /** Its MQTT session is up (last will not published). */
  readonly online: boolean;
  readonly lastSeenAt: number | null;
  /** What its latest status said (device protocol 2 adds the signal and the versions). */
  readonly firmware: string | null;
  /** Wi-Fi signal strength in dBm. */
  readonly signal: number | null;
  /** The payload version the cloud and it both speak (docs/device-protocol.md); 1 until it says more. */
  readonly protocolVersion: number;
}

/** An access point as it is registered: it has said nothing yet. */
export type NewAccessPoint = Omit<AccessPoint, 'firmware' | 'signal' | 'protocolVersion'>;

/** A lock as an access point announces it: paired over Bluetooth, with what the lock says of itself. */
export interface AnnouncedLock {
  readonly deviceId: string;
  readonly serial: string;
  readonly nickname: string;
}

/** Device secrets carry 192 random bits, like API keys; `lcd_` tells them apart in a leak scan. */
export const DEVICE_SECRET_PREFIX = 'lcd_';

export function formatDeviceSecret(randomBase64Url: string): string {
  return `${DEVICE_SECRET_PREFIX}${randomBase64Url}`;
}

export type PairingStep =
  /** A lock the cloud has never seen joins the access point's account. */
  | { readonly kind: 'add'; readonly lock: AnnouncedLock }
  /** A lock of the same account now answers through this access point (moved, or paired again). */
  | { readonly kind: 'pair'; readonly deviceId: string }
  /** A lock this access point listed before and no longer does. */
  | { readonly kind: 'unpair'; readonly deviceId: string }
  /** A lock owned by another account: never taken over. */
  | { readonly kind: 'conflict'; readonly deviceId: string; readonly ownerId: string };

/**
 * What one `locks` announcement changes. `known` holds the stored locks among the announced ones;
 * `pairedHere` the stored locks currently paired with this access point. A lock already paired here
 * yields nothing, so a repeated announcement (a reconnect, a retained message) changes nothing.
 */
export function planPairing(
  apId: string,
  accountId: string,
  announced: readonly AnnouncedLock[],
  known: ReadonlyMap<string, Lock>,
  pairedHere: readonly Lock[],
): PairingStep[] {
  const steps: PairingStep[] = [];
  const listed = new Set<string>();
  for (const entry of announced) {
    if (listed.has(entry.deviceId)) continue;
    listed.add(entry.deviceId);
    const lock = known.get(entry.deviceId);
    if (!lock) steps.push({ kind: 'add', lock: entry });
    else if (lock.ownerId !== accountId)
      steps.push({ kind: 'conflict', deviceId: entry.deviceId, ownerId: lock.ownerId });
    else if (lock.accessPointId !== apId || !lock.accessPoint)
      steps.push({ kind: 'pair', deviceId: entry.deviceId });
  }
  for (const lock of pairedHere) {
    if (!listed.has(lock.deviceId) && lock.accessPoint)
      steps.push({ kind: 'unpair', deviceId: lock.deviceId });
  }
  return steps;
}
