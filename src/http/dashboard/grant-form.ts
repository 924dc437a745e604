/**
 * The dashboard's grant forms (issue 23): the owner's invitation and edit, read into the API's
 * GrantInput for the Grants use case, and their refusals kept by field for the page after the
 * redirect. The window's inputs are `datetime-local` on the wall clock of the lock's time zone (the
 * zone a schedule is read in too, so one lock has one clock); the schedule is rows of weekdays and
 * a time of day from and to, one row per entry: a grant's entries and one empty row to add another
 * (saving a filled empty row adds a new one), up to the API's 28. Empty rows are left out.
 */
import { DomainError, isDomainError } from '../../domain/errors.ts';
import type { GrantInput, GrantTerms } from '../../domain/grant.ts';
import { MAX_SCHEDULE_ENTRIES, type ScheduleEntry, WEEKDAYS } from '../../domain/schedule.ts';
import { refusalOf } from './errors.ts';
import type { Refused } from './flash.ts';

/** The fields a grant form shows an error next to. */
export const GRANT_FIELDS = ['email', 'role', 'starts_at', 'ends_at', 'schedule', 'one_time'] as const;
export type GrantField = (typeof GRANT_FIELDS)[number];

/** What the form sent (refilled after a refusal), by input name. */
export type GrantFormValues = Readonly<Record<string, string>>;

export interface GrantFormRefusal {
  readonly errors: Readonly<Partial<Record<GrantField, string>>>;
  readonly values: GrantFormValues;
}

/** A grant form's errors and values in a flash: under this prefix, the form's key, ':' and the name. */
const PREFIX = 'grant:';

/** A schedule row's inputs are named `day_mon`, `schedule_start`, `schedule_end`, then `_1`, `_2`, …. */
export const rowSuffix = (row: number): string => (row === 0 ? '' : `_${row}`);

/** How many schedule rows the form showed (`schedule_rows`): 1 to the API's most entries. */
export function scheduleRowsOf(body: Readonly<Record<string, string | undefined>>): number {
  const n = Number(body.schedule_rows ?? '1');
  return Number.isInteger(n) && n >= 1 ? Math.min(n, MAX_SCHEDULE_ENTRIES) : 1;
}

/** The rows with anything in them (a day ticked or a time given), each with its row number. */
function filledRows(
  body: Readonly<Record<string, string | undefined>>,
): { row: number; entry: ScheduleEntry }[] {
  const filled: { row: number; entry: ScheduleEntry }[] = [];
  for (let row = 0; row < scheduleRowsOf(body); row++) {
    const sfx = rowSuffix(row);
    const days = WEEKDAYS.filter((d) => body[`day_${d}${sfx}`] !== undefined);
    const start = body[`schedule_start${sfx}`]?.trim() ?? '';
    const end = body[`schedule_end${sfx}`]?.trim() ?? '';
    if (days.length > 0 || start !== '' || end !== '') filled.push({ row, entry: { days, start, end } });
  }
  return filled;
}

/** The inputs a form refills: never the CSRF token. */
function refilled(body: Readonly<Record<string, string | undefined>>): string[] {
  const names = ['email', 'role', 'starts_at', 'ends_at', 'one_time', 'schedule_rows'];
  for (let row = 0; row < scheduleRowsOf(body); row++) {
    const sfx = rowSuffix(row);
    names.push(`schedule_start${sfx}`, `schedule_end${sfx}`, ...WEEKDAYS.map((d) => `day_${d}${sfx}`));
  }
  return names;
}

const LOCAL = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?$/;

const formatters = new Map<string, Intl.DateTimeFormat>();
function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (f === undefined) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(timeZone, f);
  }
  return f;
}

/** The wall clock of `timeZone` at `instantMs`, read as if it were UTC (epoch ms). */
function wallOf(instantMs: number, timeZone: string): number {
  const n: Record<string, number> = {};
  for (const part of formatterFor(timeZone).formatToParts(instantMs)) n[part.type] = Number(part.value);
  return Date.UTC(n.year ?? 1970, (n.month ?? 1) - 1, n.day ?? 1, n.hour ?? 0, n.minute ?? 0, n.second ?? 0);
}

/**
 * The instant a `datetime-local` value names on the wall clock of `timeZone`; null for no such
 * value. A time that the zone skips (spring forward) is read with the offset before the change.
 */
export function instantOfWallClock(text: string, timeZone: string): number | null {
  const m = LOCAL.exec(text);
  if (!m) return null;
  const [, y, mo, d, h, mi, s] = m;
  const wall = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s ?? 0));
  // Date.UTC rolls 2026-02-30 over to March: such a date is no date.
  if (new Date(wall).toISOString().slice(0, 16) !== `${y}-${mo}-${d}T${h}:${mi}`) return null;
  const guess = wall - (wallOf(wall, timeZone) - wall);
  return wall - (wallOf(guess, timeZone) - guess);
}

/** An instant as a `datetime-local` value on the wall clock of `timeZone` ('YYYY-MM-DDTHH:MM'). */
export function wallClockOf(instantMs: number, timeZone: string): string {
  return new Date(wallOf(instantMs, timeZone)).toISOString().slice(0, 16);
}

const instantField = (
  name: 'starts_at' | 'ends_at',
  value: string | undefined,
  timeZone: string,
): string | null | undefined => {
  if (value === undefined) return undefined;
  if (value.trim() === '') return null;
  const at = instantOfWallClock(value.trim(), timeZone);
  if (at === null)
    throw new DomainError('INVALID_INPUT', `${name}: enter a date and a time (2026-05-01 08:00)`, {
      field: name,
    });
  return new Date(at).toISOString();
};

/**
 * A grant form as the API's body. `edit`: the terms the grant has now; the window's bounds it did
 * not change are left out (an edit of a grant whose end is past must not fail on it), and the
 * schedule only when the form showed its fields (`schedule_form`).
 */
export function grantInputOf(
  body: Readonly<Record<string, string | undefined>>,
  timeZone: string,
  current?: GrantTerms,
): GrantInput {
  const startsAt = instantField('starts_at', body.starts_at, timeZone);
  const endsAt = instantField('ends_at', body.ends_at, timeZone);
  const same = (given: string | null, now: number | null | undefined) =>
    current !== undefined && (given === null ? null : Date.parse(given)) === now;
  const filled = body.schedule_form === undefined ? undefined : filledRows(body);
  const schedule = filled === undefined ? undefined : filled.length === 0 ? null : filled.map((f) => f.entry);
  return {
    role: body.role,
    ...(startsAt === undefined || same(startsAt, current?.startsAt) ? {} : { starts_at: startsAt }),
    ...(endsAt === undefined || same(endsAt, current?.endsAt) ? {} : { ends_at: endsAt }),
    ...(schedule === undefined ? {} : { schedule }),
    one_time: body.one_time !== undefined,
  };
}

/** A refusal's message as it reads next to its field, whose label names it. */
export function grantMessage(field: GrantField, message: string): string {
  const text = message.replace(/^[a-z_]+(\[\d+\](\.[a-z]+)?)?: /i, '');
  const rules: [RegExp, string][] = [
    [/ends_at must be after starts_at/i, 'The end must be after the start.'],
    [/^must be in the future/i, 'The end must be in the future.'],
    [/non-empty list of weekdays/i, 'Tick at least one day.'],
    [/^must be a time of day/i, 'Enter both times of day: from and to.'],
    [/^must differ from start/i, 'From and to must differ (00:00 to 24:00 is the whole day).'],
    [/^must be "view" or "operate"/i, 'Choose view or operate.'],
  ];
  const rule = rules.find(([re]) => re.test(text));
  if (rule) return rule[1];
  if (field === 'one_time' && /one-time/.test(text)) return 'Only an operate grant can be one-time.';
  return text.charAt(0).toUpperCase() + text.slice(1);
}

const fieldOf = (name: string): GrantField | undefined => {
  const base = name.startsWith('schedule') ? 'schedule' : name;
  return GRANT_FIELDS.find((f) => f === base);
};

/**
 * A grant form's refusal for the flash: each error next to its field (the form keyed by `key`: the
 * lock's device id for an invitation, the grant's id for an edit) with the values to refill, or the
 * message on top when it names no field of the form.
 */
export function refusedGrantForm(
  error: unknown,
  key: string,
  body: Readonly<Record<string, string | undefined>>,
): Refused {
  if (!isDomainError(error)) throw error;
  const r = refusalOf(error);
  const named = r.fields ?? (r.field === undefined ? {} : { [r.field]: r.message });
  const errors: Record<string, string> = {};
  // The API names an entry by its place among the filled rows: said as the row's number, when
  // there are several.
  const filled = filledRows(body);
  for (const [name, text] of Object.entries(named)) {
    const field = fieldOf(name);
    if (field === undefined) continue;
    const entry = /^schedule\[(\d+)\]/.exec(name)?.[1];
    const row = entry === undefined ? undefined : filled[Number(entry)]?.row;
    const which = row === undefined || filled.length < 2 ? '' : `Time ${row + 1}: `;
    errors[`${PREFIX}${key}:${field}`] ??= which + grantMessage(field, text);
  }
  const wait = r.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: r.retryAfterSeconds };
  if (Object.keys(errors).length === 0)
    return { status: r.status, ...wait, notice: { kind: 'error', text: r.message } };
  const values: Record<string, string> = { [`${PREFIX}${key}:_sent`]: '1' };
  for (const name of refilled(body)) {
    const v = body[name];
    if (v !== undefined) values[`${PREFIX}${key}:${name}`] = v;
  }
  return { status: r.status, ...wait, notice: { kind: 'error', text: 'Check the form.' }, errors, values };
}

/** The grant forms' refusals, by form key, out of a flash's errors and values. */
export function grantFormsOf(
  errors: Readonly<Record<string, string>>,
  values: Readonly<Record<string, string>>,
): Readonly<Record<string, GrantFormRefusal>> {
  const out: Record<string, { errors: Partial<Record<GrantField, string>>; values: Record<string, string> }> =
    {};
  const split = (name: string) => {
    const rest = name.slice(PREFIX.length);
    const at = rest.lastIndexOf(':');
    return [rest.slice(0, at), rest.slice(at + 1)] as const;
  };
  for (const [name, text] of Object.entries(errors)) {
    if (!name.startsWith(PREFIX)) continue;
    const [key, f] = split(name);
    const field = fieldOf(f);
    if (field === undefined) continue;
    out[key] ??= { errors: {}, values: {} };
    out[key].errors[field] = text;
  }
  for (const [name, text] of Object.entries(values)) {
    if (!name.startsWith(PREFIX)) continue;
    const [key, input] = split(name);
    out[key] ??= { errors: {}, values: {} };
    out[key].values[input] = text;
  }
  return out;
}
