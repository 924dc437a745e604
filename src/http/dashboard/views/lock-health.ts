/**
 * A lock's health on its card (issue 22, docs/locks.md): the door, a jam, when it was last heard
 * from, the battery's state against the lock's own thresholds and its trend, the firmware; for the
 * owner the access point and the auto-lock setting. The words here are the ones assets/locks.js
 * writes when the event stream says the lock changed, so the page reads the same before and after.
 */
import { AUTO_LOCK_PROTOCOL } from '../../../app/lock-details.ts';
import type { AccessPoint } from '../../../domain/access-point.ts';
import type { BatteryState, Lock } from '../../../domain/lock.ts';
import { type Html, html, when } from '../html.ts';

/**
 * "just now", "4 min ago", "3 h ago", "2 days ago": how long ago, against the server's clock (the
 * sandbox clock may run ahead of the browser's, so the page is given `now` with the lock).
 */
export function ago(at: number, now: number): string {
  const seconds = Math.max(0, Math.round((now - at) / 1000));
  if (seconds < 45) return 'just now';
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.round(minutes / 60);
  if (hours < 36) return `${hours} h ago`;
  const days = Math.round(hours / 24);
  return `${days} day${days === 1 ? '' : 's'} ago`;
}

const BATTERY_WORDS: Readonly<Record<BatteryState, string>> = {
  ok: '',
  low: ' · low',
  critical: ' · critical',
};
const BATTERY_CLASS: Readonly<Record<BatteryState, string>> = {
  ok: '',
  low: 'pill-warn',
  critical: 'pill-danger',
};

/** The battery's pill: its level and, when not ok, its state against the lock's own thresholds. */
export function batteryPill(lock: Lock): Html {
  const title = `Low under ${lock.batteryLow} %, critical under ${lock.batteryCritical} %`;
  return html`<li class="pill ${BATTERY_CLASS[lock.batteryState]}" data-field="battery" data-state="${lock.batteryState}" title="${title}">Battery ${lock.battery}%${BATTERY_WORDS[lock.batteryState]}</li>`;
}

/** A jam is the one thing on the card that needs someone at the door: its own pill, shown only then. */
export function jammedPill(lock: Lock): Html {
  return html`<li class="pill pill-danger" data-field="jammed" title="The bolt is blocked: free it by hand"${lock.jammed ? '' : html` hidden`}>Jammed</li>`;
}

/** The door sensor's reading, first on the health line; nothing for a lock without one. */
export function doorState(lock: Lock): Html {
  const open = lock.door === 'open';
  return html`<span class="door${open ? ' door-open' : ''}" data-field="door"${lock.door === null ? html` hidden` : ''}>${
    open ? 'Door open' : 'Door closed'
  }</span>`;
}

/** "falling, −0.4 %/day"; a change under 0.05 points a day is steady. Also in locks.js. */
export function trendWords(perDay: number | null): string {
  if (perDay === null) return 'not known yet';
  const rounded = Math.round(perDay * 10) / 10;
  if (rounded === 0) return 'steady';
  const size = Math.abs(rounded).toFixed(1);
  return rounded < 0 ? `falling, \u2212${size} %/day` : `rising, +${size} %/day`;
}

/** When the lock was last heard from: relative, the exact time in its title and datetime. */
export function lastSeen(lock: Lock, now: number): Html {
  if (lock.lastSeenAt === null) return html`<time data-field="last-seen">never</time>`;
  const at = new Date(lock.lastSeenAt).toISOString();
  return html`<time data-field="last-seen" datetime="${at}" title="${when(lock.lastSeenAt)}">${ago(lock.lastSeenAt, now)}</time>`;
}

/**
 * The card's health line, beside its command buttons (so a card grows no taller): the door, last
 * seen, firmware, the battery's trend once it is known. Guests see it too.
 */
export function healthLine(lock: Lock, now: number): Html {
  const trend = lock.batteryPerDay;
  return html`<p class="lock-health muted" data-field="health">${doorState(lock)}<span>Last seen ${lastSeen(lock, now)}</span><span>Firmware <span data-field="firmware">${
    lock.firmware ?? 'not reported'
  }</span></span><span data-field="trend-part"${trend === null ? html` hidden` : ''}>Battery <span data-field="trend">${trendWords(trend)}</span></span></p>`;
}

/** "off" or "after 30 s". */
export const autoLockWords = (seconds: number): string => (seconds === 0 ? 'off' : `after ${seconds} s`);

/** Wi-Fi signal as people read it: dBm, and a word. */
export function signalWords(dbm: number | null): string {
  if (dbm === null) return 'signal not reported';
  const word = dbm >= -60 ? 'good' : dbm >= -75 ? 'fair' : 'weak';
  return `signal \u2212${Math.abs(dbm)} dBm (${word})`;
}

/** The owner's line about the access point the lock is paired with. */
export function accessPointLine(ap: AccessPoint | null): Html {
  if (ap === null)
    return html`<p class="lock-ap muted" data-field="access-point">No access point: the lock is not paired with one.</p>`;
  return html`<p class="lock-ap muted" data-field="access-point">Access point <strong>${ap.name}</strong>: <span data-field="ap-online">${
    ap.online ? 'online' : 'offline'
  }</span> · <span data-field="ap-signal">${signalWords(ap.signal)}</span> · firmware <span data-field="ap-firmware">${
    ap.firmware ?? 'not reported'
  }</span> · device protocol <span data-field="ap-protocol">${ap.protocolVersion}</span></p>`;
}

/**
 * Why the lock cannot run auto-lock, or null when it can: the device carries it out, so one whose
 * access point speaks no protocol with it is not offered it (LockDetails.change refuses it too).
 */
export function autoLockUnavailable(lock: Lock, ap: AccessPoint | null): string | null {
  if (!lock.accessPoint || ap === null) return 'the lock is not paired with an access point.';
  if (ap.protocolVersion < AUTO_LOCK_PROTOCOL)
    return `its access point ${ap.name} speaks device protocol ${ap.protocolVersion}, which has no auto-lock (it needs ${AUTO_LOCK_PROTOCOL} or later: a firmware update of the access point).`;
  return null;
}
