/**
 * A grant's weekly schedule: checking it, reading a zone's wall clock with Intl, entries past
 * midnight, and both daylight-saving changes in Europe/Berlin and America/New_York (2026).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DomainError } from '../../../src/domain/errors.ts';
import {
  canonicalTimeZone,
  checkScheduleInput,
  clockMinutes,
  isValidTimeZone,
  localTime,
  MAX_SCHEDULE_ENTRIES,
  scheduleAllows,
  type WeeklySchedule,
} from '../../../src/domain/schedule.ts';

const refused = (field: string) => (error: unknown) => {
  assert.ok(error instanceof DomainError);
  assert.equal(error.code, 'INVALID_INPUT');
  assert.equal(error.details.field, field);
  return true;
};

const utc = (iso: string): number => Date.parse(iso);
const MINUTE = 60_000;

/** The stretches (UTC, [from, to)) in which `schedule` is open, scanning minute by minute. */
function openStretches(schedule: WeeklySchedule, zone: string, fromIso: string, toIso: string): string[] {
  const stretches: string[] = [];
  let openedAt: number | null = null;
  const end = utc(toIso);
  for (let at = utc(fromIso); at <= end; at += MINUTE) {
    const open = at < end && scheduleAllows(schedule, localTime(at, zone));
    if (open && openedAt === null) openedAt = at;
    if (!open && openedAt !== null) {
      stretches.push(`${new Date(openedAt).toISOString()}/${new Date(at).toISOString()}`);
      openedAt = null;
    }
  }
  return stretches;
}

describe('localTime', () => {
  it('reads the weekday and minute of the day on the zone wall clock', () => {
    assert.deepEqual(localTime(utc('2026-03-29T00:59:00Z'), 'Europe/Berlin'), {
      weekday: 'sun',
      minuteOfDay: 119,
    });
    assert.deepEqual(localTime(utc('2026-03-29T01:00:00Z'), 'Europe/Berlin'), {
      weekday: 'sun',
      minuteOfDay: 180,
    });
    assert.deepEqual(localTime(utc('2026-03-28T23:00:00Z'), 'Europe/Berlin'), {
      weekday: 'sun',
      minuteOfDay: 0,
    });
    assert.deepEqual(localTime(utc('2026-03-28T22:59:00Z'), 'Europe/Berlin'), {
      weekday: 'sat',
      minuteOfDay: 1439,
    });
    assert.deepEqual(localTime(utc('2026-11-01T05:30:00Z'), 'America/New_York'), {
      weekday: 'sun',
      minuteOfDay: 90,
    });
    assert.deepEqual(localTime(utc('2026-11-01T06:30:00Z'), 'America/New_York'), {
      weekday: 'sun',
      minuteOfDay: 90,
    });
    assert.deepEqual(localTime(utc('2026-05-04T00:00:00Z'), 'UTC'), { weekday: 'mon', minuteOfDay: 0 });
  });

  it('drops seconds, so a schedule turns at the minute', () => {
    assert.deepEqual(localTime(utc('2026-05-04T08:59:59.999Z'), 'UTC'), { weekday: 'mon', minuteOfDay: 539 });
    assert.deepEqual(localTime(utc('2026-05-04T09:00:00Z'), 'UTC'), { weekday: 'mon', minuteOfDay: 540 });
  });

  it('throws for a zone Intl does not know', () => {
    assert.throws(() => localTime(0, 'Mars/Olympus_Mons'), RangeError);
  });
});

describe('time zones', () => {
  it('takes IANA names and answers the spelling Intl keeps', () => {
    assert.equal(canonicalTimeZone('Europe/Berlin'), 'Europe/Berlin');
    assert.equal(canonicalTimeZone('europe/berlin'), 'Europe/Berlin');
    assert.equal(canonicalTimeZone('UTC'), 'UTC');
    assert.equal(canonicalTimeZone('America/New_York'), 'America/New_York');
    assert.equal(isValidTimeZone('Etc/GMT+1'), true);
    assert.equal(isValidTimeZone('America/Argentina/Buenos_Aires'), true);
  });

  it('refuses what is no IANA zone: unknown names, offsets, empty, padded', () => {
    for (const name of ['Mars/Olympus_Mons', '+01:00', '-05:00', '', ' UTC', 'UTC\n', 'Europe/Berlin/x', '1'])
      assert.equal(isValidTimeZone(name), false, JSON.stringify(name));
    assert.equal(canonicalTimeZone('Foo/Bar'), null);
  });
});

describe('checkScheduleInput', () => {
  it('answers the entries with days Monday first; null is no schedule', () => {
    assert.equal(checkScheduleInput(null), null);
    assert.deepEqual(checkScheduleInput([{ days: ['sun', 'mon', 'wed'], start: '08:00', end: '24:00' }]), [
      { days: ['mon', 'wed', 'sun'], start: '08:00', end: '24:00' },
    ]);
    assert.deepEqual(checkScheduleInput([{ days: ['fri'], start: '22:00', end: '06:00' }]), [
      { days: ['fri'], start: '22:00', end: '06:00' },
    ]);
  });

  it('takes up to MAX_SCHEDULE_ENTRIES entries, not an empty list', () => {
    const entry = { days: ['mon'], start: '00:00', end: '01:00' };
    assert.equal(checkScheduleInput(Array(MAX_SCHEDULE_ENTRIES).fill(entry))?.length, MAX_SCHEDULE_ENTRIES);
    assert.throws(() => checkScheduleInput(Array(MAX_SCHEDULE_ENTRIES + 1).fill(entry)), refused('schedule'));
    for (const value of [[], {}, 'mon 08:00-09:00', 1])
      assert.throws(() => checkScheduleInput(value), refused('schedule'));
  });

  it('names the entry and its part that is wrong', () => {
    const ok = { days: ['mon'], start: '08:00', end: '09:00' };
    const cases: [unknown, string][] = [
      ['x', 'schedule[1]'],
      [null, 'schedule[1]'],
      [[ok], 'schedule[1]'],
      [{ ...ok, days: [] }, 'schedule[1].days'],
      [{ ...ok, days: 'mon' }, 'schedule[1].days'],
      [{ ...ok, days: undefined }, 'schedule[1].days'],
      [{ ...ok, days: ['mon', 'mon'] }, 'schedule[1].days'],
      [{ ...ok, days: ['Mon'] }, 'schedule[1].days'],
      [{ ...ok, days: ['monday'] }, 'schedule[1].days'],
      [{ ...ok, days: [1] }, 'schedule[1].days'],
      [{ ...ok, start: '8:00' }, 'schedule[1].start'],
      [{ ...ok, start: '24:00' }, 'schedule[1].start'],
      [{ ...ok, start: '12:60' }, 'schedule[1].start'],
      [{ ...ok, start: '08:00:00' }, 'schedule[1].start'],
      [{ ...ok, start: 480 }, 'schedule[1].start'],
      [{ ...ok, start: undefined }, 'schedule[1].start'],
      [{ ...ok, end: '24:01' }, 'schedule[1].end'],
      [{ ...ok, end: '25:00' }, 'schedule[1].end'],
      [{ ...ok, end: ' 09:00' }, 'schedule[1].end'],
      [{ ...ok, end: '08:00' }, 'schedule[1].end'],
      [{ ...ok, start: '00:00', end: '00:00' }, 'schedule[1].end'],
      [{ ...ok, from: '08:00' }, 'schedule[1].from'],
    ];
    for (const [entry, field] of cases)
      assert.throws(() => checkScheduleInput([ok, entry]), refused(field), JSON.stringify(entry));
  });
});

describe('clockMinutes', () => {
  it('counts minutes since midnight', () => {
    assert.deepEqual(
      ['00:00', '00:01', '08:30', '23:59', '24:00'].map(clockMinutes),
      [0, 1, 510, 1439, 1440],
    );
  });
});

describe('scheduleAllows', () => {
  const at = (weekday: 'mon' | 'tue' | 'fri' | 'sat' | 'sun', clock: string) => ({
    weekday,
    minuteOfDay: clockMinutes(clock),
  });

  it('is open from the start minute, closed from the end minute, on the days given', () => {
    const schedule = checkScheduleInput([{ days: ['mon', 'tue'], start: '08:00', end: '09:00' }]) ?? [];
    assert.equal(scheduleAllows(schedule, at('mon', '07:59')), false);
    assert.equal(scheduleAllows(schedule, at('mon', '08:00')), true);
    assert.equal(scheduleAllows(schedule, at('tue', '08:59')), true);
    assert.equal(scheduleAllows(schedule, at('tue', '09:00')), false);
    assert.equal(scheduleAllows(schedule, at('fri', '08:30')), false);
  });

  it('runs an entry whose end is not after its start into the next day', () => {
    const schedule = checkScheduleInput([{ days: ['fri', 'sun'], start: '22:00', end: '06:00' }]) ?? [];
    assert.equal(scheduleAllows(schedule, at('fri', '21:59')), false);
    assert.equal(scheduleAllows(schedule, at('fri', '22:00')), true);
    assert.equal(scheduleAllows(schedule, at('sat', '05:59')), true);
    assert.equal(scheduleAllows(schedule, at('sat', '06:00')), false);
    assert.equal(scheduleAllows(schedule, at('sat', '23:00')), false);
    // Sunday night runs into Monday: the week wraps.
    assert.equal(scheduleAllows(schedule, at('mon', '00:00')), true);
    assert.equal(scheduleAllows(schedule, at('mon', '06:00')), false);
    assert.equal(scheduleAllows(schedule, at('sun', '03:00')), false);
  });

  it('reads an end of 00:00 after a later start as midnight, and 00:00-24:00 as the whole day', () => {
    const toMidnight = checkScheduleInput([{ days: ['fri'], start: '22:00', end: '00:00' }]) ?? [];
    assert.equal(scheduleAllows(toMidnight, at('fri', '23:59')), true);
    assert.equal(scheduleAllows(toMidnight, at('sat', '00:00')), false);
    const wholeDay = checkScheduleInput([{ days: ['sat'], start: '00:00', end: '24:00' }]) ?? [];
    assert.equal(scheduleAllows(wholeDay, at('sat', '00:00')), true);
    assert.equal(scheduleAllows(wholeDay, at('sat', '23:59')), true);
    assert.equal(scheduleAllows(wholeDay, at('sun', '00:00')), false);
    assert.equal(scheduleAllows(wholeDay, at('fri', '23:59')), false);
  });

  it('is open when any entry is', () => {
    const schedule =
      checkScheduleInput([
        { days: ['mon'], start: '08:00', end: '09:00' },
        { days: ['mon'], start: '17:00', end: '18:00' },
      ]) ?? [];
    assert.equal(scheduleAllows(schedule, at('mon', '08:30')), true);
    assert.equal(scheduleAllows(schedule, at('mon', '12:00')), false);
    assert.equal(scheduleAllows(schedule, at('mon', '17:30')), true);
  });
});

describe('daylight saving: the wall clock of the lock zone', () => {
  const sunday = (start: string, end: string) => checkScheduleInput([{ days: ['sun'], start, end }]) ?? [];

  it('Europe/Berlin, spring forward (2026-03-29): 08:00-09:00 stays 08:00-09:00 local', () => {
    const stretches = openStretches(
      sunday('08:00', '09:00'),
      'Europe/Berlin',
      '2026-03-22T00:00:00Z',
      '2026-03-30T00:00:00Z',
    );
    assert.deepEqual(stretches, [
      '2026-03-22T07:00:00.000Z/2026-03-22T08:00:00.000Z', // CET, UTC+1
      '2026-03-29T06:00:00.000Z/2026-03-29T07:00:00.000Z', // CEST, UTC+2
    ]);
  });

  it('Europe/Berlin, spring forward: the skipped hour never shows, so an entry in it stays shut', () => {
    const day = ['2026-03-28T22:00:00Z', '2026-03-29T22:00:00Z'] as const;
    assert.deepEqual(openStretches(sunday('02:15', '02:45'), 'Europe/Berlin', ...day), []);
    // One reaching past it opens when the clock jumps to 03:00: one real hour, not an hour and a half.
    assert.deepEqual(openStretches(sunday('02:30', '04:00'), 'Europe/Berlin', ...day), [
      '2026-03-29T01:00:00.000Z/2026-03-29T02:00:00.000Z',
    ]);
    // An overnight entry over the change lasts seven real hours instead of eight.
    const saturdayNight = checkScheduleInput([{ days: ['sat'], start: '22:00', end: '06:00' }]) ?? [];
    assert.deepEqual(
      openStretches(saturdayNight, 'Europe/Berlin', '2026-03-28T12:00:00Z', '2026-03-29T12:00:00Z'),
      ['2026-03-28T21:00:00.000Z/2026-03-29T04:00:00.000Z'],
    );
  });

  it('Europe/Berlin, fall back (2026-10-25): the repeated hour is open both times', () => {
    const day = ['2026-10-24T22:00:00Z', '2026-10-25T23:00:00Z'] as const;
    assert.deepEqual(openStretches(sunday('02:00', '03:00'), 'Europe/Berlin', ...day), [
      '2026-10-25T00:00:00.000Z/2026-10-25T02:00:00.000Z',
    ]);
    assert.deepEqual(openStretches(sunday('08:00', '09:00'), 'Europe/Berlin', ...day), [
      '2026-10-25T07:00:00.000Z/2026-10-25T08:00:00.000Z', // CET again
    ]);
    assert.deepEqual(openStretches(sunday('03:00', '04:00'), 'Europe/Berlin', ...day), [
      '2026-10-25T02:00:00.000Z/2026-10-25T03:00:00.000Z',
    ]);
  });

  it('America/New_York, spring forward (2026-03-08)', () => {
    const day = ['2026-03-08T05:00:00Z', '2026-03-09T04:00:00Z'] as const;
    assert.deepEqual(openStretches(sunday('02:00', '03:00'), 'America/New_York', ...day), []);
    assert.deepEqual(openStretches(sunday('01:30', '03:30'), 'America/New_York', ...day), [
      '2026-03-08T06:30:00.000Z/2026-03-08T07:30:00.000Z',
    ]);
    assert.deepEqual(openStretches(sunday('08:00', '09:00'), 'America/New_York', ...day), [
      '2026-03-08T12:00:00.000Z/2026-03-08T13:00:00.000Z', // EDT, UTC-4
    ]);
  });

  it('America/New_York, fall back (2026-11-01)', () => {
    const day = ['2026-11-01T04:00:00Z', '2026-11-02T05:00:00Z'] as const;
    assert.deepEqual(openStretches(sunday('01:00', '02:00'), 'America/New_York', ...day), [
      '2026-11-01T05:00:00.000Z/2026-11-01T07:00:00.000Z',
    ]);
    assert.deepEqual(openStretches(sunday('08:00', '09:00'), 'America/New_York', ...day), [
      '2026-11-01T13:00:00.000Z/2026-11-01T14:00:00.000Z', // EST, UTC-5
    ]);
  });
});
