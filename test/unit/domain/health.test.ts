/**
 * A lock's health rules: the battery state with hysteresis (each crossing once, a level hovering at
 * a threshold says nothing more), the offline debounce, and the owner's settings.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DomainError } from '../../../src/domain/errors.ts';
import {
  BATTERY_HYSTERESIS,
  type BatteryState,
  batteryEvent,
  batteryStateAfter,
  batteryTrendAfter,
  checkLockSettings,
  DEFAULT_BATTERY_THRESHOLDS,
  type HealthBookkeeping,
  healthChanged,
  offlineDue,
  type Reach,
  reachAfter,
  withHealth,
} from '../../../src/domain/health.ts';

const thresholds = { low: 20, critical: 10 };

/** The events a series of readings makes, starting from `state`, as batteryStateAfter and batteryEvent do. */
function crossings(levels: readonly number[], state: BatteryState = 'ok', t = thresholds) {
  const events: string[] = [];
  for (const level of levels) {
    const next = batteryStateAfter(state, level, t);
    const event = batteryEvent(state, next);
    if (event) events.push(`${event}@${level}`);
    state = next;
  }
  return { events, state };
}

describe('batteryStateAfter', () => {
  it('falls to low under low, to critical under critical, each once', () => {
    assert.deepEqual(crossings([50, 21, 20, 19, 15, 10, 9, 5, 0]), {
      events: ['lock.battery_low@19', 'lock.battery_critical@9'],
      state: 'critical',
    });
  });

  it('jumps from ok straight to critical with the critical event only', () => {
    assert.deepEqual(crossings([80, 5]), { events: ['lock.battery_critical@5'], state: 'critical' });
    assert.equal(batteryEvent('ok', 'critical'), 'lock.battery_critical');
  });

  it('says nothing more for a level hovering at the low threshold', () => {
    const hover = [19, 20, 19, 21, 19, 22, 18, 24, 19];
    assert.deepEqual(crossings(hover), { events: ['lock.battery_low@19'], state: 'low' });
  });

  it('says nothing more for a level hovering at the critical threshold', () => {
    const hover = [9, 10, 9, 11, 9, 14, 8, 12];
    assert.deepEqual(crossings(hover, 'low'), { events: ['lock.battery_critical@9'], state: 'critical' });
  });

  it('is ok again only at low + hysteresis, from low or critical', () => {
    const back = thresholds.low + BATTERY_HYSTERESIS;
    assert.deepEqual(crossings([15, back - 1, back], 'ok'), {
      events: ['lock.battery_low@15', `lock.battery_ok@${back}`],
      state: 'ok',
    });
    assert.deepEqual(crossings([5, 60]), {
      events: ['lock.battery_critical@5', 'lock.battery_ok@60'],
      state: 'ok',
    });
  });

  it('leaves critical for low silently at critical + hysteresis, so a later fall is a new crossing', () => {
    const up = thresholds.critical + BATTERY_HYSTERESIS;
    assert.equal(batteryStateAfter('critical', up - 1, thresholds), 'critical');
    assert.equal(batteryStateAfter('critical', up, thresholds), 'low');
    assert.equal(batteryEvent('critical', 'low'), null);
    assert.deepEqual(crossings([9, up, 9], 'low'), {
      events: ['lock.battery_critical@9', 'lock.battery_critical@9'],
      state: 'critical',
    });
  });

  it('follows the lock’s own thresholds', () => {
    const own = { low: 50, critical: 30 };
    assert.deepEqual(crossings([60, 49, 29, 40, 56], 'ok', own), {
      events: ['lock.battery_low@49', 'lock.battery_critical@29', 'lock.battery_ok@56'],
      state: 'ok',
    });
  });

  it('lets a full battery be ok under a threshold of 100', () => {
    const top = { low: 100, critical: 99 };
    assert.equal(batteryStateAfter('ok', 99, top), 'low');
    assert.equal(batteryStateAfter('low', 100, top), 'ok');
  });

  it('defaults to low 20, critical 10', () => {
    assert.deepEqual(DEFAULT_BATTERY_THRESHOLDS, { low: 20, critical: 10 });
  });
});

describe('batteryEvent', () => {
  it('is one event per change of state, none for the way up from critical to low', () => {
    const table: [BatteryState, BatteryState, string | null][] = [
      ['ok', 'ok', null],
      ['ok', 'low', 'lock.battery_low'],
      ['ok', 'critical', 'lock.battery_critical'],
      ['low', 'critical', 'lock.battery_critical'],
      ['low', 'ok', 'lock.battery_ok'],
      ['critical', 'ok', 'lock.battery_ok'],
      ['critical', 'low', null],
      ['low', 'low', null],
      ['critical', 'critical', null],
    ];
    for (const [before, after, event] of table)
      assert.equal(batteryEvent(before, after), event, `${before}->${after}`);
  });
});

describe('reachAfter and offlineDue', () => {
  const GRACE = 60_000;
  const inReach: Reach = { responsive: true, offlineSince: null, offlineAnnounced: false };

  it('starts the outage’s clock when the lock is lost, and keeps it while it stays lost', () => {
    const lost = reachAfter(inReach, false, 1_000);
    assert.deepEqual(lost, {
      reach: { responsive: false, offlineSince: 1_000, offlineAnnounced: false },
      online: false,
    });
    assert.deepEqual(reachAfter(lost.reach, false, 5_000).reach, lost.reach);
  });

  it('makes lock.offline due only after the whole grace period, and only once', () => {
    const { reach } = reachAfter(inReach, false, 1_000);
    assert.equal(offlineDue(reach, 1_000 + GRACE - 1, GRACE), false);
    assert.equal(offlineDue(reach, 1_000 + GRACE, GRACE), true);
    assert.equal(offlineDue({ ...reach, offlineAnnounced: true }, 1_000 + 10 * GRACE, GRACE), false);
    assert.equal(offlineDue(inReach, 10 * GRACE, GRACE), false, 'a lock in reach');
  });

  it('forgets a short reconnect: nothing due, no lock.online', () => {
    const lost = reachAfter(inReach, false, 1_000);
    const back = reachAfter(lost.reach, true, 2_000);
    assert.deepEqual(back, { reach: inReach, online: false });
    assert.equal(offlineDue(back.reach, 1_000 + GRACE, GRACE), false);
  });

  it('says lock.online for a lock whose lock.offline was said', () => {
    const announced: Reach = { responsive: false, offlineSince: 1_000, offlineAnnounced: true };
    assert.deepEqual(reachAfter(announced, true, 90_000), { reach: inReach, online: true });
    assert.deepEqual(reachAfter(announced, false, 90_000), { reach: announced, online: false });
  });

  it('starts the clock for a lock stored unresponsive without one', () => {
    const stored: Reach = { responsive: false, offlineSince: null, offlineAnnounced: false };
    assert.equal(offlineDue(stored, 10 * GRACE, GRACE), false);
    assert.deepEqual(reachAfter(stored, false, 7).reach, { ...stored, offlineSince: 7 });
  });
});

describe('checkLockSettings', () => {
  const refused = (field: string) => (error: unknown) => {
    assert.ok(error instanceof DomainError, String(error));
    assert.equal(error.code, 'INVALID_INPUT');
    assert.equal(error.details.field, field, error.message);
    return true;
  };

  it('answers the change, without the fields that were absent', () => {
    assert.deepEqual(checkLockSettings({}, thresholds), {});
    assert.deepEqual(
      checkLockSettings(
        { nickname: 'Front door', autoLockSeconds: 30, batteryLow: 30, batteryCritical: 15 },
        thresholds,
      ),
      { nickname: 'Front door', autoLockSeconds: 30, batteryLow: 30, batteryCritical: 15 },
    );
    assert.deepEqual(checkLockSettings({ autoLockSeconds: 0 }, thresholds), { autoLockSeconds: 0 });
    assert.deepEqual(checkLockSettings({ autoLockSeconds: 3600 }, thresholds), { autoLockSeconds: 3600 });
    assert.deepEqual(checkLockSettings({ batteryLow: 2, batteryCritical: 1 }, thresholds), {
      batteryLow: 2,
      batteryCritical: 1,
    });
    assert.deepEqual(checkLockSettings({ batteryLow: 100, batteryCritical: 99 }, thresholds), {
      batteryLow: 100,
      batteryCritical: 99,
    });
  });

  it('refuses an auto-lock delay that is not a whole number of seconds from 0 to 3600', () => {
    for (const value of [-1, 3601, 1.5, '30', null, true, Number.NaN])
      assert.throws(
        () => checkLockSettings({ autoLockSeconds: value }, thresholds),
        refused('auto_lock_seconds'),
      );
  });

  it('refuses thresholds out of range', () => {
    for (const value of [1, 101, 20.5, '20', null])
      assert.throws(
        () => checkLockSettings({ batteryLow: value }, { low: 50, critical: 0 }),
        refused('battery_low'),
      );
    for (const value of [0, 100, 9.5, '10'])
      assert.throws(
        () => checkLockSettings({ batteryCritical: value }, { low: 100, critical: 1 }),
        refused('battery_critical'),
      );
  });

  it('keeps critical under low, against the stored threshold the request leaves alone', () => {
    assert.throws(() => checkLockSettings({ batteryLow: 10 }, thresholds), refused('battery_low'));
    assert.throws(() => checkLockSettings({ batteryCritical: 20 }, thresholds), refused('battery_critical'));
    assert.throws(
      () => checkLockSettings({ batteryLow: 30, batteryCritical: 30 }, thresholds),
      refused('battery_critical'),
    );
    assert.deepEqual(checkLockSettings({ batteryLow: 11 }, thresholds), { batteryLow: 11 });
    assert.deepEqual(checkLockSettings({ batteryCritical: 19 }, thresholds), { batteryCritical: 19 });
  });

  it('refuses a nickname empty, too long, or with control characters', () => {
    for (const value of ['', 'x'.repeat(129), 'front\ndoor', 'tab\there', 'del\u007f', 'c1\u0085', 42, null])
      assert.throws(() => checkLockSettings({ nickname: value }, thresholds), refused('nickname'));
    assert.deepEqual(checkLockSettings({ nickname: '🔒'.repeat(128) }, thresholds), {
      nickname: '🔒'.repeat(128),
    });
  });

  it('names every wrong field at once', () => {
    assert.throws(
      () => checkLockSettings({ nickname: '', autoLockSeconds: -1 }, thresholds),
      (error: unknown) => {
        assert.ok(error instanceof DomainError);
        assert.deepEqual(Object.keys(error.details.fields ?? {}), ['nickname', 'auto_lock_seconds']);
        return true;
      },
    );
  });
});

describe('withHealth', () => {
  const lock: HealthBookkeeping & { locked: boolean } = {
    locked: true,
    responsive: true,
    offlineSince: null,
    offlineAnnounced: false,
    battery: 50,
    batteryState: 'ok',
    batteryLow: 20,
    batteryCritical: 10,
    // Measured from a reading at 0 ms: within the day the tests below stay, the trend does not move.
    batteryPerDay: null,
    batteryRef: { level: 50, at: 0 },
  };

  it('brings the battery state and the outage along, and says the bookkeeping changed', () => {
    const after = withHealth(lock, { ...lock, battery: 15, responsive: false }, 7_000);
    assert.deepEqual(after, {
      ...lock,
      battery: 15,
      batteryState: 'low',
      responsive: false,
      offlineSince: 7_000,
    });
    assert.equal(healthChanged(lock, after), true);
    const same = withHealth(after, { ...after, locked: false }, 9_000);
    assert.deepEqual(same, { ...after, locked: false }, 'still lost since 7 s, still low');
    assert.equal(healthChanged(after, same), false);
  });

  it('reads the battery against the thresholds `after` holds (the owner may just have changed them)', () => {
    assert.equal(withHealth(lock, { ...lock, batteryLow: 60, batteryCritical: 30 }, 0).batteryState, 'low');
  });
});

describe('batteryTrendAfter', () => {
  const DAY = 86_400_000;
  const none = { batteryPerDay: null, batteryRef: null };

  it('takes the first reading as the reference, and measures from it once a day has passed', () => {
    const first = batteryTrendAfter(none, 80, 1_000);
    assert.deepEqual(first, { batteryPerDay: null, batteryRef: { level: 80, at: 1_000 } });
    assert.deepEqual(batteryTrendAfter(first, 79, 1_000 + DAY - 1), first, 'within the day: unchanged');
    const day = batteryTrendAfter(first, 78, 1_000 + DAY);
    assert.deepEqual(day, { batteryPerDay: -2, batteryRef: { level: 78, at: 1_000 + DAY } });
  });

  it('is points per day over however long it was, to one decimal; a new battery is a rise', () => {
    const ref = { batteryPerDay: null, batteryRef: { level: 90, at: 0 } };
    assert.equal(batteryTrendAfter(ref, 89, 3 * DAY).batteryPerDay, -0.3);
    assert.equal(batteryTrendAfter(ref, 90, 2 * DAY).batteryPerDay, 0);
    assert.equal(batteryTrendAfter(ref, 100, DAY).batteryPerDay, 10);
  });

  it('a reference from the future (a clock set back) starts again rather than measuring backwards', () => {
    const ahead = { batteryPerDay: -1, batteryRef: { level: 50, at: 10 * DAY } };
    assert.deepEqual(batteryTrendAfter(ahead, 49, DAY), {
      batteryPerDay: -1,
      batteryRef: { level: 49, at: DAY },
    });
  });
});
