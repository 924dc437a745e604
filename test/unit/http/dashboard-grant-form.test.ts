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
    // A refusal of no field of the form is on top.
    const onTop = refusedGrantForm(new DomainError('LOCK_NOT_FOUND'), 'dev-1', {});
    assert.deepEqual([onTop.status, onTop.errors], [404, undefined]);
  });
});
