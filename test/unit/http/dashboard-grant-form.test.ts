/**
 * The dashboard's grant forms (src/http/dashboard/grant-form.ts): a window's `datetime-local` read on
 * the lock's wall clock, across Europe/Berlin's changes; the form as the API's body; a refusal's
 * errors kept by field for the page after the redirect.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DomainError } from '../../../src/domain/errors.ts';
import {
  grantFormsOf,
  grantInputOf,
  instantOfWallClock,
  refusedGrantForm,
  wallClockOf,
} from '../../../src/http/dashboard/grant-form.ts';

const at = (iso: string) => Date.parse(iso);

describe('dashboard grant form: the lock’s wall clock', () => {
  it('reads a datetime-local in the lock’s zone, in winter and in summer', () => {
    assert.equal(instantOfWallClock('2027-01-15T08:00', 'Europe/Berlin'), at('2027-01-15T07:00:00Z'));
    assert.equal(instantOfWallClock('2027-07-15T08:00', 'Europe/Berlin'), at('2027-07-15T06:00:00Z'));
    assert.equal(instantOfWallClock('2027-07-15T08:00:30', 'UTC'), at('2027-07-15T08:00:30Z'));
    assert.equal(instantOfWallClock('2027-07-15T08:00', 'America/New_York'), at('2027-07-15T12:00:00Z'));
  });

  it('on the change days: the skipped hour with the offset before it, the repeated hour as its second', () => {
    // 2027-03-28 02:00 does not exist in Berlin (clocks go 02:00 → 03:00).
    assert.equal(instantOfWallClock('2027-03-28T01:30', 'Europe/Berlin'), at('2027-03-28T00:30:00Z'));
    assert.equal(instantOfWallClock('2027-03-28T03:30', 'Europe/Berlin'), at('2027-03-28T01:30:00Z'));
    // The skipped 02:30 with the offset before the change (+1): 03:30 summer time.
    assert.equal(instantOfWallClock('2027-03-28T02:30', 'Europe/Berlin'), at('2027-03-28T01:30:00Z'));
    // 2027-10-31 02:30 happens twice in Berlin: read once, as its second (winter, +1).
    assert.equal(instantOfWallClock('2027-10-31T02:30', 'Europe/Berlin'), at('2027-10-31T01:30:00Z'));
  });

  it('no such date or shape is null; an instant reads back as the form shows it', () => {
    for (const text of ['2027-02-30T08:00', '2027-13-01T08:00', '2027-01-01 08:00', '08:00', ''])
      assert.equal(instantOfWallClock(text, 'UTC'), null, text);
    const instant = at('2027-07-15T06:00:00Z');
    assert.equal(wallClockOf(instant, 'Europe/Berlin'), '2027-07-15T08:00');
    assert.equal(instantOfWallClock(wallClockOf(instant, 'Europe/Berlin'), 'Europe/Berlin'), instant);
  });
});

describe('dashboard grant form: the body', () => {
  it('an invitation: window in UTC, one schedule entry, one-time from its checkbox', () => {
    assert.deepEqual(
      grantInputOf(
        {
          role: 'operate',
          starts_at: '2027-07-15T08:00',
          ends_at: '',
          schedule_form: '1',
          day_mon: 'on',
          day_fri: 'on',
          schedule_start: '08:00',
          schedule_end: '18:00',
          one_time: 'on',
        },
        'Europe/Berlin',
      ),
      {
        role: 'operate',
        starts_at: '2027-07-15T06:00:00.000Z',
        ends_at: null,
        schedule: [{ days: ['mon', 'fri'], start: '08:00', end: '18:00' }],
        one_time: true,
      },
    );
    // No days and no times: no schedule; without the schedule's fields, the schedule is left alone.
    assert.equal(grantInputOf({ role: 'view', schedule_form: '1' }, 'UTC').schedule, null);
    assert.equal('schedule' in grantInputOf({ role: 'view' }, 'UTC'), false);
  });

  it('several schedule rows: each filled row an entry, in order; empty rows left out', () => {
    const body = {
      role: 'operate',
      schedule_form: '1',
      schedule_rows: '3',
      day_mon: 'on',
      day_tue: 'on',
      schedule_start: '08:00',
      schedule_end: '12:00',
      day_sat_2: 'on',
      schedule_start_2: '22:00',
      schedule_end_2: '24:00',
      // Past the rows the form showed: not read.
      day_sun_3: 'on',
      schedule_start_3: '01:00',
      schedule_end_3: '02:00',
    };
    assert.deepEqual(grantInputOf(body, 'UTC').schedule, [
      { days: ['mon', 'tue'], start: '08:00', end: '12:00' },
      { days: ['sat'], start: '22:00', end: '24:00' },
    ]);
    // Every row emptied: no schedule. A row count that is no number is one row.
    assert.equal(grantInputOf({ schedule_form: '1', schedule_rows: '3' }, 'UTC').schedule, null);
    assert.deepEqual(grantInputOf({ ...body, schedule_rows: 'x' }, 'UTC').schedule, [
      { days: ['mon', 'tue'], start: '08:00', end: '12:00' },
    ]);
    // At most the API's 28 rows are read, whatever the form claims.
    const many: Record<string, string> = { schedule_form: '1', schedule_rows: '1000' };
    for (let row = 0; row < 40; row++) {
      const sfx = row === 0 ? '' : `_${row}`;
      Object.assign(many, {
        [`day_mon${sfx}`]: 'on',
        [`schedule_start${sfx}`]: '08:00',
        [`schedule_end${sfx}`]: '09:00',
      });
    }
    assert.equal((grantInputOf(many, 'UTC').schedule as unknown[]).length, 28);
  });

  it('an edit leaves out the window bounds it did not change; a bad date names its field', () => {
    const current = {
      role: 'operate' as const,
      startsAt: at('2027-07-15T06:00:00Z'),
      endsAt: null,
      schedule: null,
      oneTime: false,
    };
    const input = grantInputOf(
      { role: 'view', starts_at: '2027-07-15T08:00', ends_at: '' },
      'Europe/Berlin',
      current,
    );
    assert.deepEqual(input, { role: 'view', one_time: false });
    assert.throws(
      () => grantInputOf({ role: 'view', ends_at: 'tomorrow' }, 'UTC'),
      (e: unknown) => e instanceof DomainError && e.details.field === 'ends_at',
    );
  });

  it("a refusal: each error next to its field under the form's key, the form refilled", () => {
    const refused = refusedGrantForm(
      new DomainError('INVALID_INPUT', 'schedule[0].days: must be a non-empty list of weekdays', {
        field: 'schedule[0].days',
      }),
      'dev-1',
      { email: 'a@example.com', role: 'view', schedule_start: '08:00', _csrf: 'secret' },
    );
    assert.equal(refused.status, 400);
    const forms = grantFormsOf(refused.errors ?? {}, refused.values ?? {});
    assert.deepEqual(forms['dev-1']?.errors, { schedule: 'Tick at least one day.' });
    assert.equal(forms['dev-1']?.values.email, 'a@example.com');
    assert.equal(forms['dev-1']?.values._csrf, undefined, 'never the CSRF token');
    // With several rows filled, the API's entry is said as the form's row (an empty row between).
    const second = refusedGrantForm(
      new DomainError('INVALID_INPUT', 'schedule[1].start: must be a time of day HH:MM from 00:00 to 23:59', {
        field: 'schedule[1].start',
      }),
      'dev-1',
      {
        schedule_rows: '3',
        day_mon: 'on',
        schedule_start: '08:00',
        schedule_end: '12:00',
        day_sat_2: 'on',
        schedule_end_2: '14:00',
      },
    );
    const refilled = grantFormsOf(second.errors ?? {}, second.values ?? {})['dev-1'];
    assert.deepEqual(refilled?.errors, { schedule: 'Time 3: Enter both times of day: from and to.' });
    assert.deepEqual(
      [refilled?.values.schedule_rows, refilled?.values.day_sat_2, refilled?.values.schedule_end_2],
      ['3', 'on', '14:00'],
      'every row refilled',
    );
    // A refusal of no field of the form is on top.
    const onTop = refusedGrantForm(new DomainError('LOCK_NOT_FOUND'), 'dev-1', {});
    assert.deepEqual([onTop.status, onTop.errors], [404, undefined]);
  });
});
