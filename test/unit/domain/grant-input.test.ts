/**
 * Grants: checking the owner's terms, new and edited, naming every field the API names when it is
 * wrong. What a grant then allows: grant.test.ts; the schedule's own rules: schedule.test.ts.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DomainError } from '../../../src/domain/errors.ts';
import { checkGrantChange, checkGrantInput, type GrantTerms } from '../../../src/domain/grant.ts';

const refused = (field: string) => (error: unknown) => {
  assert.ok(error instanceof DomainError);
  assert.equal(error.code, 'INVALID_INPUT');
  assert.equal(error.details.field, field);
  assert.ok(error.message.startsWith(`${field}: `), error.message);
  return true;
};

const NOW = Date.parse('2026-05-01T12:00:00Z');
const T = (iso: string) => Date.parse(iso);

describe('checkGrantInput', () => {
  it('needs only a role; the rest defaults to no window, no schedule, not one-time', () => {
    assert.deepEqual(checkGrantInput({ role: 'operate' }, NOW), {
      role: 'operate',
      startsAt: null,
      endsAt: null,
      schedule: null,
      oneTime: false,
    });
    assert.deepEqual(
      checkGrantInput({ role: 'view', starts_at: null, ends_at: null, schedule: null, one_time: false }, NOW),
      { role: 'view', startsAt: null, endsAt: null, schedule: null, oneTime: false },
    );
  });

  it('answers instants for RFC 3339 times in any offset, and the schedule Monday first', () => {
    const terms = checkGrantInput(
      {
        role: 'operate',
        starts_at: '2026-05-01T10:00:00+02:00',
        ends_at: '2026-05-08T08:00:00.250Z',
        schedule: [{ days: ['sat', 'mon'], start: '08:00', end: '09:30' }],
        one_time: true,
      },
      NOW,
    );
    assert.deepEqual(terms, {
      role: 'operate',
      startsAt: T('2026-05-01T08:00:00Z'),
      endsAt: T('2026-05-08T08:00:00.250Z'),
      schedule: [{ days: ['mon', 'sat'], start: '08:00', end: '09:30' }],
      oneTime: true,
    });
  });

  it('takes a window that started already', () => {
    assert.equal(
      checkGrantInput({ role: 'view', starts_at: '2020-01-01T00:00:00Z' }, NOW).startsAt,
      T('2020-01-01'),
    );
  });

  it('refuses a missing or unknown role', () => {
    for (const role of [undefined, null, '', 'Operate', 'admin', 'owner', 1, ['view']])
      assert.throws(() => checkGrantInput({ role }, NOW), refused('role'), JSON.stringify(role));
  });

  it('refuses times that are no RFC 3339 date-time with an offset', () => {
    const bad = [
      '2026-06-01',
      '2026-06-01T08:00:00',
      '2026-06-01 08:00:00Z',
      '2026-02-30T08:00:00Z',
      'tomorrow',
      '',
      1780000000000,
    ];
    for (const value of bad) {
      assert.throws(
        () => checkGrantInput({ role: 'view', starts_at: value }, NOW),
        refused('starts_at'),
        String(value),
      );
      assert.throws(
        () => checkGrantInput({ role: 'view', ends_at: value }, NOW),
        refused('ends_at'),
        String(value),
      );
    }
  });

  it('refuses an ends_at not after starts_at', () => {
    for (const ends of ['2026-06-01T08:00:00Z', '2026-06-01T10:00:00+02:00', '2026-06-01T07:59:59.999Z'])
      assert.throws(
        () => checkGrantInput({ role: 'view', starts_at: '2026-06-01T08:00:00Z', ends_at: ends }, NOW),
        refused('ends_at'),
        ends,
      );
    assert.equal(
      checkGrantInput(
        { role: 'view', starts_at: '2026-06-01T08:00:00Z', ends_at: '2026-06-01T08:00:00.001Z' },
        NOW,
      ).endsAt,
      T('2026-06-01T08:00:00.001Z'),
    );
  });

  it('refuses an ends_at that is not in the future', () => {
    assert.throws(
      () => checkGrantInput({ role: 'view', ends_at: '2026-05-01T12:00:00Z' }, NOW),
      refused('ends_at'),
    );
    assert.throws(
      () => checkGrantInput({ role: 'view', ends_at: '2026-04-01T00:00:00Z' }, NOW),
      refused('ends_at'),
    );
    assert.equal(checkGrantInput({ role: 'view', ends_at: '2026-05-01T12:00:00.001Z' }, NOW).endsAt, NOW + 1);
  });

  it('names the schedule part that is wrong', () => {
    assert.throws(() => checkGrantInput({ role: 'view', schedule: [] }, NOW), refused('schedule'));
    assert.throws(
      () => checkGrantInput({ role: 'view', schedule: [{ days: [], start: '08:00', end: '09:00' }] }, NOW),
      refused('schedule[0].days'),
    );
    assert.throws(
      () => checkGrantInput({ role: 'view', schedule: [{ days: ['mon'], start: '8am', end: '09:00' }] }, NOW),
      refused('schedule[0].start'),
    );
  });

  it('refuses a one_time that is no boolean, and a one-time view grant', () => {
    for (const value of ['true', 1, null])
      assert.throws(() => checkGrantInput({ role: 'operate', one_time: value }, NOW), refused('one_time'));
    assert.throws(() => checkGrantInput({ role: 'view', one_time: true }, NOW), refused('one_time'));
  });

  it('names every wrong field at once', () => {
    assert.throws(
      () => checkGrantInput({ role: 'guest', starts_at: 'now', schedule: 'weekdays', one_time: 'no' }, NOW),
      (error: unknown) => {
        assert.ok(error instanceof DomainError);
        assert.equal(error.details.field, 'role');
        assert.deepEqual(Object.keys(error.details.fields ?? {}), [
          'role',
          'starts_at',
          'schedule',
          'one_time',
        ]);
        return true;
      },
    );
  });
});

describe('checkGrantChange', () => {
  const current: GrantTerms = {
    role: 'operate',
    startsAt: T('2026-06-01T00:00:00Z'),
    endsAt: T('2026-06-30T00:00:00Z'),
    schedule: null,
    oneTime: false,
  };

  it('answers only the fields given; null clears', () => {
    assert.deepEqual(checkGrantChange({}, current, NOW), {});
    assert.deepEqual(checkGrantChange({ ends_at: null, schedule: null }, current, NOW), {
      endsAt: null,
      schedule: null,
    });
    assert.deepEqual(checkGrantChange({ role: 'view', starts_at: '2026-06-02T00:00:00Z' }, current, NOW), {
      role: 'view',
      startsAt: T('2026-06-02T00:00:00Z'),
    });
  });

  it('checks the window it leads to, naming the field the request changed', () => {
    assert.throws(
      () => checkGrantChange({ starts_at: '2026-06-30T00:00:00Z' }, current, NOW),
      refused('starts_at'),
    );
    assert.throws(
      () => checkGrantChange({ ends_at: '2026-06-01T00:00:00Z' }, current, NOW),
      refused('ends_at'),
    );
    assert.throws(
      () =>
        checkGrantChange(
          { starts_at: '2026-07-02T00:00:00Z', ends_at: '2026-07-01T00:00:00Z' },
          current,
          NOW,
        ),
      refused('ends_at'),
    );
    assert.deepEqual(checkGrantChange({ starts_at: '2026-07-01T00:00:00Z', ends_at: null }, current, NOW), {
      startsAt: T('2026-07-01T00:00:00Z'),
      endsAt: null,
    });
  });

  it('keeps one-time grants operate grants, naming the field changed', () => {
    assert.throws(
      () => checkGrantChange({ role: 'view' }, { ...current, oneTime: true }, NOW),
      refused('role'),
    );
    assert.throws(
      () => checkGrantChange({ one_time: true }, { ...current, role: 'view' }, NOW),
      refused('one_time'),
    );
    assert.deepEqual(
      checkGrantChange({ role: 'view', one_time: false }, { ...current, oneTime: true }, NOW),
      {
        role: 'view',
        oneTime: false,
      },
    );
  });

  it('refuses a wrong field as a new grant does', () => {
    assert.throws(() => checkGrantChange({ role: 'root' }, current, NOW), refused('role'));
    assert.throws(
      () => checkGrantChange({ ends_at: '2026-04-30T00:00:00Z' }, current, NOW),
      refused('ends_at'),
    );
  });
});
