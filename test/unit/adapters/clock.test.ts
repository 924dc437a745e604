import assert from 'node:assert/strict';
import { describe, it, mock } from 'node:test';
import { AdjustableClock } from '../../../src/adapters/system/clock.ts';
import { eventually } from '../../support/eventually.ts';

const HOUR = 60 * 60 * 1000;
const DAY = 24 * HOUR;

/** Runs `body` with node's mock setTimeout and Date: real time passes only when told (`mock.timers.tick`). */
async function onMockTime(body: () => Promise<void>): Promise<void> {
  mock.timers.enable({ apis: ['setTimeout', 'Date'], now: Date.now() });
  try {
    await body();
  } finally {
    mock.timers.reset();
  }
}

/** Timers that keep the process alive (an unref'd timer is not among them). */
const refTimers = (): number => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;

describe('AdjustableClock', () => {
  it('reads the wall clock until it is moved', async () => {
    const clock = new AdjustableClock();
    const before = Date.now();
    const now = clock.now();
    assert.ok(now >= before && now <= Date.now());
  });

  it('advance moves now() forward and returns the new time', async () => {
    const clock = new AdjustableClock();
    const start = clock.now();
    const moved = await clock.advance(DAY);
    assert.ok(moved - start >= DAY && moved - start < DAY + 1000);
    assert.ok(clock.now() >= moved);
  });

  it('fires a timer at once, in the advance call, when the clock is moved past it', async () => {
    const clock = new AdjustableClock();
    const fired: string[] = [];
    clock.at(clock.now() + HOUR, () => fired.push('hour'));
    await clock.advance(HOUR - 60_000);
    assert.deepEqual(fired, [], 'not yet due');
    await clock.advance(60_000);
    assert.deepEqual(fired, ['hour']);
  });

  it('fires due timers in the order of their time, not of their creation', async () => {
    const clock = new AdjustableClock();
    const now = clock.now();
    const fired: number[] = [];
    for (const offset of [30, 10, 20, 40]) clock.at(now + offset * 60_000, () => fired.push(offset));
    await clock.advance(35 * 60_000);
    assert.deepEqual(fired, [10, 20, 30]);
    await clock.advance(5 * 60_000);
    assert.deepEqual(fired, [10, 20, 30, 40]);
  });

  it('fires each timer once, however often the clock moves', () =>
    onMockTime(async () => {
      const clock = new AdjustableClock();
      let count = 0;
      clock.at(clock.now() + 1000, () => count++);
      await clock.advance(2000);
      await clock.advance(2000);
      // Its own real-time timer, had it been left armed, is long due.
      mock.timers.tick(HOUR);
      assert.equal(count, 1);
    }));

  it('fires a timer that is already due on its own, without any advance', async () => {
    const clock = new AdjustableClock();
    let fired = false;
    clock.at(clock.now() - 1000, () => {
      fired = true;
    });
    assert.equal(fired, false, 'never inside at() itself');
    await eventually('the timer to fire on its own', () => fired);
  });

  it('fires a near timer in real time', async () => {
    const clock = new AdjustableClock();
    let fired = false;
    clock.at(clock.now() + 2, () => {
      fired = true;
    });
    await eventually('the timer to fire in real time', () => fired);
  });

  it('cancel stops a timer from firing, also when the clock moves past it later', () =>
    onMockTime(async () => {
      const clock = new AdjustableClock();
      const fired: string[] = [];
      const cancelFar = clock.at(clock.now() + HOUR, () => fired.push('far'));
      const cancelNear = clock.at(clock.now() + 1, () => fired.push('near'));
      clock.at(clock.now() + HOUR, () => fired.push('kept'));
      cancelFar();
      cancelNear();
      cancelNear(); // twice is harmless
      mock.timers.tick(10); // the near one's real time passes
      assert.deepEqual(fired, []);
      await clock.advance(2 * HOUR);
      assert.deepEqual(fired, ['kept']);
    }));

  it('cancel after firing is harmless', async () => {
    const clock = new AdjustableClock();
    let count = 0;
    const cancel = clock.at(clock.now() + 1000, () => count++);
    await clock.advance(1000);
    cancel();
    assert.equal(count, 1);
  });

  it('handles waits longer than setTimeout can (over 24.8 days)', async () => {
    const clock = new AdjustableClock();
    let fired = false;
    clock.at(clock.now() + 30 * DAY, () => {
      fired = true;
    });
    // An overflowing setTimeout fires after 1 ms; node fires timers in the order they are due, so it
    // would have fired before this one.
    await new Promise((resolve) => setTimeout(resolve, 2));
    assert.equal(fired, false, 'an overflowing setTimeout would fire at once');
    await clock.advance(30 * DAY);
    assert.equal(fired, true);
  });

  it('reset puts the clock back on the wall clock and re-arms pending timers for their own time', () =>
    onMockTime(async () => {
      const clock = new AdjustableClock();
      await clock.advance(DAY);
      const fired: string[] = [];
      // Due in 1 ms on the moved clock; after reset it is a day away and must wait for it.
      clock.at(clock.now() + 1, () => fired.push('moved-soon'));
      clock.at(clock.now() - DAY + 2, () => fired.push('wall-soon'));
      clock.reset();
      const now = clock.now();
      assert.ok(Math.abs(now - Date.now()) < 50, 'back on the wall clock');
      mock.timers.tick(20);
      assert.deepEqual(fired, ['wall-soon']);
      await clock.advance(DAY);
      assert.deepEqual(fired, ['wall-soon', 'moved-soon']);
    }));

  it('timers set during a firing run on the moved clock', async () => {
    const clock = new AdjustableClock();
    const fired: string[] = [];
    clock.at(clock.now() + 1000, () => {
      fired.push('first');
      clock.at(clock.now() + 1000, () => fired.push('second'));
    });
    await clock.advance(1000);
    assert.deepEqual(fired, ['first']);
    await clock.advance(1000);
    assert.deepEqual(fired, ['first', 'second']);
  });

  it('a timer that re-arms itself hourly fires once for a ten-year move, not once per hour (found by the fuzzer)', async () => {
    const clock = new AdjustableClock();
    let runs = 0;
    const schedule = (): void => {
      clock.at(clock.now() + HOUR, () => {
        runs++;
        // As the purges do: the next round is armed once this one's store work is done.
        void Promise.resolve().then(schedule);
      });
    };
    schedule();
    await clock.advance(10 * 365 * DAY);
    assert.equal(runs, 1, 'one run on the way; the next is an hour after the move');
    await clock.advance(HOUR);
    assert.equal(runs, 2);
  });

  it('does not keep the process alive with pending timers', () => {
    const clock = new AdjustableClock();
    const before = refTimers();
    const kept = setTimeout(() => undefined, DAY);
    assert.equal(refTimers(), before + 1, 'a plain timer is counted (the check can fail)');
    clearTimeout(kept);
    const cancel = clock.at(clock.now() + DAY, () => undefined);
    clock.at(clock.now() + 30 * DAY, () => undefined);
    assert.equal(refTimers(), before, "the clock's timers hold nothing open");
    cancel();
  });
});
