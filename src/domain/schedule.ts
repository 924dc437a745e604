/**
 * A grant's weekly schedule (issue 23): weekdays and times of day on the wall clock of the lock's
 * IANA time zone, and reading that clock at an instant with Intl (no time-zone library). Pure: the
 * instant is passed in; the only state is a cache of Intl formatters, one per zone, because making
 * one costs far more than using it and the schedule is checked on a command's path.
 *
 * Rules the API does not spell out, decided here:
 * - An entry is open from `start` (included) to `end` (excluded), both 'HH:MM'. `end` may be
 *   '24:00' (to midnight); `start` may not.
 * - An entry whose `end` is not after its `start` runs past midnight: `days` are the days it starts
 *   on, so { days: ['fri'], start: '22:00', end: '06:00' } is Friday 22:00 to Saturday 06:00. An
 *   `end` equal to `start` is refused: it could mean no time or the whole day ('00:00' to '24:00' says
 *   the whole day).
 * - Daylight saving: the schedule is read on the local wall clock, minute by minute, as a person at
 *   the door reads it. 08:00–09:00 is 08:00–09:00 local on both sides of a change. In the hour that
 *   is skipped in spring (02:00–02:59 in Europe/Berlin on 2026-03-29) the clock never shows those
 *   minutes: an entry inside it does not open that night, one reaching past it opens at 03:00. The
 *   hour that is repeated in autumn is open both times it is shown, so 02:00–03:00 lasts two real
 *   hours that night. Both err towards what the clock on the wall says, never towards a guessed shift.
 */
import { DomainError } from './errors.ts';

export type Weekday = 'mon' | 'tue' | 'wed' | 'thu' | 'fri' | 'sat' | 'sun';
/** Monday first (ISO 8601): the order a checked entry's days are kept in. */
export const WEEKDAYS: readonly Weekday[] = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'];

export interface ScheduleEntry {
  /** The days the entry starts on; at least one, each once, Monday first. */
  readonly days: readonly Weekday[];
  /** 'HH:MM' from '00:00' to '23:59'. */
  readonly start: string;
  /** 'HH:MM' from '00:00' to '24:00'; not after `start`: the next day's (see above). */
  readonly end: string;
}

/** Open whenever any entry is open. An empty list is never stored: no schedule is null. */
export type WeeklySchedule = readonly ScheduleEntry[];

/** Four entries for each day of the week: more is no schedule a person keeps. */
export const MAX_SCHEDULE_ENTRIES = 28;

/** The wall clock of a zone at an instant: the weekday and the minute since its midnight (0–1439). */
export interface LocalTime {
  readonly weekday: Weekday;
  readonly minuteOfDay: number;
}

const CLOCK = /^(?:[01]\d|2[0-3]):[0-5]\d$/;

/** A schedule entry's start: 'HH:MM' from 00:00 to 23:59. */
export const isStartClock = (value: string): boolean => CLOCK.test(value);

/** A schedule entry's end: also '24:00', the end of the day. */
export const isEndClock = (value: string): boolean => value === '24:00' || CLOCK.test(value);
const ENTRY_FIELDS = new Set(['days', 'start', 'end']);

const invalid = (field: string, message: string): DomainError =>
  new DomainError('INVALID_INPUT', `${field}: ${message}`, { field });

/**
 * The minutes since midnight an 'HH:MM' of a checked schedule says ('24:00': 1440). Digit arithmetic
 * rather than a parse: it runs for every entry on every check and allocates nothing.
 */
export function clockMinutes(clock: string): number {
  const digit = (i: number) => clock.charCodeAt(i) - 48;
  return (digit(0) * 10 + digit(1)) * 60 + digit(3) * 10 + digit(4);
}

const daysOf = (value: unknown, field: string): Weekday[] => {
  if (!Array.isArray(value) || value.length === 0)
    throw invalid(field, 'must be a non-empty list of weekdays (mon, tue, wed, thu, fri, sat, sun)');
  const seen = new Set<Weekday>();
  for (const day of value) {
    if (!WEEKDAYS.includes(day as Weekday))
      throw invalid(
        field,
        `${JSON.stringify(day)?.slice(0, 20)} is no weekday (mon, tue, wed, thu, fri, sat, sun)`,
      );
    if (seen.has(day as Weekday)) throw invalid(field, `"${day}" is given twice`);
    seen.add(day as Weekday);
  }
  return WEEKDAYS.filter((day) => seen.has(day));
};

const entryOf = (value: unknown, field: string): ScheduleEntry => {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw invalid(field, 'must be an object with days, start and end');
  const entry = value as Record<string, unknown>;
  for (const key of Object.keys(entry))
    if (!ENTRY_FIELDS.has(key)) throw invalid(`${field}.${key}`, 'unknown field');
  const days = daysOf(entry.days, `${field}.days`);
  const { start, end } = entry;
  if (typeof start !== 'string' || !isStartClock(start))
    throw invalid(`${field}.start`, 'must be a time of day HH:MM from 00:00 to 23:59');
  if (typeof end !== 'string' || !isEndClock(end))
    throw invalid(`${field}.end`, 'must be a time of day HH:MM from 00:00 to 24:00');
  if (clockMinutes(end) === clockMinutes(start))
    throw invalid(`${field}.end`, 'must differ from start (00:00 to 24:00 is the whole day)');
  return { days, start, end };
};

/**
 * Checks a schedule as the API spells it (`schedule`: a list of { days, start, end }); null is no
 * schedule. Throws INVALID_INPUT naming the wrong part as `schedule[2].start`, so a form can point
 * at it; answers the schedule with each entry's days Monday first.
 */
export function checkScheduleInput(value: unknown): WeeklySchedule | null {
  if (value === null) return null;
  if (!Array.isArray(value) || value.length === 0 || value.length > MAX_SCHEDULE_ENTRIES)
    throw invalid('schedule', `must be a list of 1 to ${MAX_SCHEDULE_ENTRIES} entries, or null for none`);
  return value.map((entry, i) => entryOf(entry, `schedule[${i}]`));
}

/** Whether a schedule is open at a local time (see the file's header for the rules). */
export function scheduleAllows(schedule: WeeklySchedule, at: LocalTime): boolean {
  const minute = at.minuteOfDay;
  const today = at.weekday;
  const yesterday = WEEKDAYS[(WEEKDAYS.indexOf(today) + 6) % 7] as Weekday;
  for (const entry of schedule) {
    const start = clockMinutes(entry.start);
    const end = clockMinutes(entry.end);
    if (start < end) {
      if (minute >= start && minute < end && entry.days.includes(today)) return true;
    } else if (
      (minute >= start && entry.days.includes(today)) ||
      (minute < end && entry.days.includes(yesterday))
    ) {
      return true;
    }
  }
  return false;
}

// Formatters by zone. Bounded, so that zones nobody validated cannot grow it without end; cleared
// whole when full, which a real deployment (a few hundred zones at most) never reaches.
const MAX_FORMATTERS = 1000;
const formatters = new Map<string, Intl.DateTimeFormat>();

const formatterFor = (timeZone: string): Intl.DateTimeFormat => {
  let formatter = formatters.get(timeZone);
  if (formatter === undefined) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      weekday: 'short',
      hour: '2-digit',
      minute: '2-digit',
      // h23, not hour12: false, which some ICU versions answer with '24' at midnight.
      hourCycle: 'h23',
    });
    if (formatters.size >= MAX_FORMATTERS) formatters.clear();
    formatters.set(timeZone, formatter);
  }
  return formatter;
};

// An IANA name starts with a letter; Intl in newer Node also takes offsets ('+01:00'), which know no
// daylight saving and are no lock's zone.
const ZONE_NAME = /^[A-Za-z][A-Za-z0-9_+\-/]{0,63}$/;

/**
 * The IANA zone `name` stands for, spelt as Intl spells it ('europe/berlin': 'Europe/Berlin'), or
 * null when it is none. A store keeps this spelling, so the formatter cache has one entry a zone.
 */
export function canonicalTimeZone(name: string): string | null {
  if (!ZONE_NAME.test(name)) return null;
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}

/** Whether `name` is an IANA time zone Intl knows (as canonicalTimeZone, which also spells it). */
export function isValidTimeZone(name: string): boolean {
  return canonicalTimeZone(name) !== null;
}

const WEEKDAY_BY_SHORT: Readonly<Record<string, Weekday>> = {
  Mon: 'mon',
  Tue: 'tue',
  Wed: 'wed',
  Thu: 'thu',
  Fri: 'fri',
  Sat: 'sat',
  Sun: 'sun',
};

/**
 * The wall clock of `timeZone` at `instantMs`: weekday and minute of the day (seconds dropped, so a
 * schedule turns at the minute). Throws RangeError for a zone Intl does not know: a stored zone was
 * checked with isValidTimeZone, so that is a bug to see, not a guest to refuse quietly.
 */
export function localTime(instantMs: number, timeZone: string): LocalTime {
  let weekday: Weekday | undefined;
  let hour = 0;
  let minute = 0;
  for (const part of formatterFor(timeZone).formatToParts(instantMs)) {
    if (part.type === 'weekday') weekday = WEEKDAY_BY_SHORT[part.value];
    else if (part.type === 'hour') hour = Number(part.value);
    else if (part.type === 'minute') minute = Number(part.value);
  }
  if (weekday === undefined) throw new RangeError(`no weekday for ${instantMs} in ${timeZone}`);
  return { weekday, minuteOfDay: hour * 60 + minute };
}
