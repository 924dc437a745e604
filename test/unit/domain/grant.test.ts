/**
 * Grants: what a grant lets a guest do at an instant (window edges, schedule in the lock's zone,
 * role, state), and its states, including a one-time grant used up by its first unlock. Checking
 * the owner's terms: grant-input.test.ts; the schedule's own rules: schedule.test.ts.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  canEditGrant,
  GRANT_STATES,
  type GrantRules,
  grantAllows,
  grantStateAfter,
  grantStateAfterUnlock,
} from '../../../src/domain/grant.ts';

const NOW = Date.parse('2026-05-01T12:00:00Z');
const T = (iso: string) => Date.parse(iso);

const accepted: GrantRules = {
  role: 'operate',
  state: 'accepted',
  startsAt: null,
  endsAt: null,
  schedule: null,
  oneTime: false,
};

describe('grantAllows', () => {
  const both = (grant: GrantRules, at: number, zone = 'UTC') => [
    grantAllows(grant, 'read', at, zone),
    grantAllows(grant, 'operate', at, zone),
  ];
  const ok = { ok: true };
  const no = (reason: string) => ({ ok: false, reason });

  it('gives nothing through a grant not accepted, revoked or used', () => {
    assert.deepEqual(both({ ...accepted, state: 'pending' }, NOW), [no('not_accepted'), no('not_accepted')]);
    assert.deepEqual(both({ ...accepted, state: 'declined' }, NOW), [no('not_accepted'), no('not_accepted')]);
    assert.deepEqual(both({ ...accepted, state: 'revoked' }, NOW), [no('revoked'), no('revoked')]);
    assert.deepEqual(both({ ...accepted, state: 'used' }, NOW), [no('used'), no('used')]);
    assert.deepEqual(both(accepted, NOW), [ok, ok]);
  });

  it('operates from starts_at (included) to ends_at (excluded); reads until ends_at', () => {
    const grant = { ...accepted, startsAt: T('2026-06-01T08:00:00Z'), endsAt: T('2026-06-01T18:00:00Z') };
    assert.deepEqual(both(grant, T('2026-06-01T07:59:59.999Z')), [ok, no('not_yet')]);
    assert.deepEqual(both(grant, T('2026-06-01T08:00:00Z')), [ok, ok]);
    assert.deepEqual(both(grant, T('2026-06-01T17:59:59.999Z')), [ok, ok]);
    assert.deepEqual(both(grant, T('2026-06-01T18:00:00Z')), [no('expired'), no('expired')]);
  });

  it('lets a view grant read, never operate; an ended one does neither', () => {
    const view = { ...accepted, role: 'view' as const, endsAt: T('2026-06-01T00:00:00Z') };
    assert.deepEqual(both(view, NOW), [ok, no('view_only')]);
    assert.deepEqual(both(view, T('2026-06-01T00:00:00Z')), [no('expired'), no('expired')]);
    assert.deepEqual(both({ ...view, startsAt: T('2026-05-20T00:00:00Z') }, NOW), [ok, no('view_only')]);
  });

  it('operates only inside the schedule, read on the lock zone wall clock, from the start to the end minute', () => {
    // Mondays 08:00-09:00 in Berlin: CEST (UTC+2) in May.
    const grant = { ...accepted, schedule: [{ days: ['mon' as const], start: '08:00', end: '09:00' }] };
    const berlin = (iso: string) => both(grant, T(iso), 'Europe/Berlin');
    assert.deepEqual(berlin('2026-05-04T05:59:59.999Z'), [ok, no('outside_schedule')]);
    assert.deepEqual(berlin('2026-05-04T06:00:00Z'), [ok, ok]);
    assert.deepEqual(berlin('2026-05-04T06:59:59.999Z'), [ok, ok]);
    assert.deepEqual(berlin('2026-05-04T07:00:00Z'), [ok, no('outside_schedule')]);
    assert.deepEqual(berlin('2026-05-05T06:30:00Z'), [ok, no('outside_schedule')]);
    // The same instant in another zone is another wall-clock time.
    assert.deepEqual(both(grant, T('2026-05-04T06:30:00Z'), 'UTC'), [ok, no('outside_schedule')]);
    assert.deepEqual(both(grant, T('2026-05-04T08:30:00Z'), 'UTC'), [ok, ok]);
  });

  it('operates in the Berlin window on both sides of the spring change', () => {
    const grant = { ...accepted, schedule: [{ days: ['sun' as const], start: '08:00', end: '09:00' }] };
    assert.deepEqual(grantAllows(grant, 'operate', T('2026-03-22T07:30:00Z'), 'Europe/Berlin'), ok);
    assert.deepEqual(grantAllows(grant, 'operate', T('2026-03-29T06:30:00Z'), 'Europe/Berlin'), ok);
    assert.deepEqual(
      grantAllows(grant, 'operate', T('2026-03-29T07:30:00Z'), 'Europe/Berlin'),
      no('outside_schedule'),
    );
  });

  it('checks the state, the end, the role, the start, then the schedule', () => {
    const outside = [{ days: ['tue' as const], start: '00:00', end: '01:00' }];
    const late = { ...accepted, role: 'view' as const, endsAt: NOW, schedule: outside };
    assert.deepEqual(grantAllows({ ...late, state: 'revoked' }, 'operate', NOW, 'UTC'), no('revoked'));
    assert.deepEqual(grantAllows(late, 'operate', NOW, 'UTC'), no('expired'));
    assert.deepEqual(grantAllows({ ...late, endsAt: null }, 'operate', NOW, 'UTC'), no('view_only'));
    const early = { ...accepted, startsAt: NOW + 1, schedule: outside };
    assert.deepEqual(grantAllows(early, 'operate', NOW, 'UTC'), no('not_yet'));
    assert.deepEqual(grantAllows({ ...early, startsAt: NOW }, 'operate', NOW, 'UTC'), no('outside_schedule'));
  });

  it('reads the zone only for a schedule, and answers the same frozen decisions', () => {
    assert.deepEqual(grantAllows(accepted, 'operate', NOW, 'Not/A_Zone'), ok);
    const withSchedule = {
      ...accepted,
      schedule: [{ days: ['mon' as const], start: '08:00', end: '09:00' }],
    };
    assert.throws(() => grantAllows(withSchedule, 'operate', NOW, 'Not/A_Zone'), RangeError);
    assert.equal(grantAllows(accepted, 'read', NOW, 'UTC'), grantAllows(accepted, 'operate', NOW + 1, 'UTC'));
    assert.ok(Object.isFrozen(grantAllows({ ...accepted, state: 'used' }, 'read', NOW, 'UTC')));
  });
});

describe('grant states', () => {
  it('moves by accept, decline and revoke as the table says', () => {
    const table = Object.fromEntries(
      GRANT_STATES.map((state) => [
        state,
        [
          grantStateAfter(state, 'accept'),
          grantStateAfter(state, 'decline'),
          grantStateAfter(state, 'revoke'),
        ],
      ]),
    );
    assert.deepEqual(table, {
      pending: ['accepted', 'declined', 'revoked'],
      accepted: [null, 'declined', 'revoked'],
      declined: [null, null, null],
      revoked: [null, null, null],
      used: [null, null, null],
    });
    assert.deepEqual(GRANT_STATES.filter(canEditGrant), ['pending', 'accepted']);
  });

  it('uses up a one-time grant with its first unlock; a second one is refused', () => {
    const once: GrantRules = { ...accepted, oneTime: true };
    assert.deepEqual(grantAllows(once, 'operate', NOW, 'UTC'), { ok: true });
    const after = { ...once, state: grantStateAfterUnlock(once) };
    assert.equal(after.state, 'used');
    assert.deepEqual(grantAllows(after, 'operate', NOW, 'UTC'), { ok: false, reason: 'used' });
    assert.deepEqual(grantAllows(after, 'read', NOW, 'UTC'), { ok: false, reason: 'used' });
    assert.equal(grantStateAfterUnlock(after), 'used');
  });

  it('leaves every other grant as it is after an unlock', () => {
    assert.equal(grantStateAfterUnlock(accepted), 'accepted');
    for (const state of GRANT_STATES.filter((s) => s !== 'accepted'))
      assert.equal(grantStateAfterUnlock({ state, oneTime: true }), state);
  });
});
