/**
 * RFC 3339 timestamps as the APIs take them (a grant's `starts_at` and `ends_at`, a key's
 * `expires_at`), parsed strictly. Date.parse is not used: it also takes forms no client means (no
 * offset: the server's own zone; '2026-02-30' rolled into March), and an access window must not move
 * with the server's zone nor open on a date nobody wrote.
 */

const RFC3339 =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:[Zz]|([+-])(\d{2}):(\d{2}))$/;

/** The earliest year taken: an access window or an expiry before the epoch is a mistake, not a date. */
export const MIN_RFC3339_YEAR = 1970;

/**
 * The instant (epoch ms) an RFC 3339 date-time names, or null when it is not one: a 'T' between
 * date and time, an offset ('Z' or ±HH:MM; '-00:00' is the instant of 'Z'), a real calendar date
 * from 1970 to 9999. Fractions past milliseconds are cut off. A leap second (:60) is refused: epoch
 * milliseconds have none, and no client sends one for an access window.
 */
export function parseRfc3339(text: string): number | null {
  const m = RFC3339.exec(text);
  if (m === null) return null;
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  const hour = Number(m[4]);
  const minute = Number(m[5]);
  const second = Number(m[6]);
  if (year < MIN_RFC3339_YEAR || month < 1 || month > 12 || day < 1) return null;
  // Day 0 of the next month is this month's last day (years from 1970: Date.UTC takes them as they are).
  if (day > new Date(Date.UTC(year, month, 0)).getUTCDate()) return null;
  if (hour > 23 || minute > 59 || second > 59) return null;
  const ms = m[7] === undefined ? 0 : Number(m[7].slice(0, 3).padEnd(3, '0'));
  let offsetMinutes = 0;
  if (m[8] !== undefined) {
    const offsetHour = Number(m[9]);
    const offsetMinute = Number(m[10]);
    if (offsetHour > 23 || offsetMinute > 59) return null;
    offsetMinutes = (m[8] === '-' ? -1 : 1) * (offsetHour * 60 + offsetMinute);
  }
  return Date.UTC(year, month - 1, day, hour, minute, second, ms) - offsetMinutes * 60_000;
}
