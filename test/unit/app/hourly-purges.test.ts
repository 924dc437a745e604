/** The one hourly loop that forgets what has expired (src/app/hourly-purges.ts). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HourlyPurges, type Purge } from '../../../src/app/hourly-purges.ts';
import { ManualClock } from '../../support/manual-clock.ts';

const HOUR = 60 * 60 * 1000;
const settle = () => new Promise((resolve) => setImmediate(resolve));

function recorder() {
  const warnings: { obj: object; msg?: string }[] = [];
  return {
    warnings,
    logger: { info() {}, warn: (obj: object, msg?: string) => warnings.push({ obj, msg }), error() {} },
  };
}

/** A purge that records the instants it ran at; `fail` makes it reject as a database away would. */
function purge(what: string, fail = false): Purge & { runs: number[] } {
  const runs: number[] = [];
  return {
    what,
    runs,
    async run(now) {
      runs.push(now);
      if (fail) throw new Error('connect ECONNREFUSED');
      return 1;
    },
  };
}

describe('HourlyPurges', () => {
  it('runs every purge once an hour, at the clock time of the round, and nothing before the first hour', async () => {
    const clock = new ManualClock(0);
    const tasks = purge('ended tasks');
    const tokens = purge('expired v1 tokens');
    const purges = new HourlyPurges(clock, recorder().logger, [tasks, tokens]);
    purges.start();
    clock.advance(HOUR - 1);
    await settle();
    assert.deepEqual(tasks.runs, []);
    clock.advance(1);
    await settle();
    clock.advance(HOUR);
    await settle();
    purges.stop();
    assert.deepEqual(tasks.runs, [HOUR, 2 * HOUR]);
    assert.deepEqual(tokens.runs, [HOUR, 2 * HOUR]);
  });

  it('a failing purge is logged with what it purges; the others still run, and it runs again next hour', async () => {
    const clock = new ManualClock(0);
    const { warnings, logger } = recorder();
    const sessions = purge('expired dashboard sessions', true);
    const codes = purge('expired one-time codes');
    const purges = new HourlyPurges(clock, logger, [sessions, codes]);
    purges.start();
    clock.advance(HOUR);
    await settle();
    clock.advance(HOUR);
    await settle();
    purges.stop();
    assert.equal(sessions.runs.length, 2);
    assert.equal(codes.runs.length, 2);
    assert.equal(warnings.length, 2);
    assert.deepEqual(
      warnings.map((w) => (w.obj as { purge: string }).purge),
      ['expired dashboard sessions', 'expired dashboard sessions'],
    );
  });

  it('the next round is armed only once this one is done: a slow store never has two rounds at once', async () => {
    const clock = new ManualClock(0);
    let release: () => void = () => undefined;
    let running = 0;
    let most = 0;
    const slow: Purge = {
      what: 'slow',
      run: () =>
        new Promise<number>((resolve) => {
          running++;
          most = Math.max(most, running);
          release = () => {
            running--;
            resolve(0);
          };
        }),
    };
    const purges = new HourlyPurges(clock, recorder().logger, [slow]);
    purges.start();
    clock.advance(HOUR);
    clock.advance(5 * HOUR); // the store is still busy with the first round
    await settle();
    assert.equal(running, 1);
    release();
    await settle();
    clock.advance(HOUR);
    await settle();
    release();
    await settle();
    purges.stop();
    assert.equal(most, 1);
  });

  it('stop ends the loop, also when it comes while a round is running; start again begins a new hour', async () => {
    const clock = new ManualClock(0);
    const tasks = purge('ended tasks');
    const purges = new HourlyPurges(clock, recorder().logger, [tasks]);
    purges.start();
    clock.advance(HOUR);
    purges.stop(); // the round has started; it must not arm another
    await settle();
    clock.advance(10 * HOUR);
    await settle();
    assert.deepEqual(tasks.runs, [HOUR]);
    purges.start();
    purges.start(); // twice: still one loop
    clock.advance(HOUR);
    await settle();
    purges.stop();
    assert.deepEqual(tasks.runs, [HOUR, 12 * HOUR]);
  });
});
