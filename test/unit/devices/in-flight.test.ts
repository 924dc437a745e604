import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { InFlight } from '../../../src/adapters/devices/in-flight.ts';

const settled = async (p: Promise<void>): Promise<boolean> => {
  let done = false;
  void p.then(() => {
    done = true;
  });
  await new Promise((r) => setImmediate(r));
  return done;
};

describe('InFlight', () => {
  it('is idle until a tracked access point has a message out, and again once it is handled', async () => {
    const flight = new InFlight();
    assert.ok(await settled(flight.idle(10_000)));
    flight.track('a');
    flight.begin('a');
    flight.begin('a');
    const idle = flight.idle(10_000);
    flight.end('a');
    assert.ok(!(await settled(idle)));
    flight.end('a');
    assert.ok(await settled(idle));
  });

  it('ignores access points it does not track, and never counts below zero', async () => {
    const flight = new InFlight();
    flight.begin('other');
    assert.ok(await settled(flight.idle(10_000)));
    flight.track('a');
    flight.end('a'); // a redelivered message handled twice
    flight.begin('a');
    assert.ok(!(await settled(flight.idle(10_000))));
  });

  it('gives up waiting after the timeout (a message the broker refused never comes back)', async (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] });
    const flight = new InFlight();
    flight.track('a');
    flight.begin('a');
    const idle = flight.idle(5000);
    t.mock.timers.tick(4999);
    assert.ok(!(await settled(idle)));
    t.mock.timers.tick(1);
    assert.ok(await settled(idle));
  });

  it('forgets what an idle gave up on: one lost message costs one wait, not every wait after', async (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] });
    const lost: [number, string[]][] = [];
    const flight = new InFlight((count, apIds) => lost.push([count, apIds]));
    flight.track('a');
    flight.track('b');
    flight.begin('a');
    flight.begin('a');
    const first = flight.idle(5000);
    flight.begin('b'); // sent while the idle waits: it has not had the whole timeout yet
    t.mock.timers.tick(5000);
    assert.ok(await settled(first));
    assert.deepEqual(lost, [[2, ['a']]]);
    // b's message is still waited for, and only it.
    const second = flight.idle(5000);
    assert.ok(!(await settled(second)));
    flight.end('b');
    assert.ok(await settled(second));
    // Nothing is out any more: the next idle does not wait at all.
    assert.ok(await settled(flight.idle(5000)));
    // A message given up on that arrives after all changes nothing.
    flight.end('a');
    flight.begin('a');
    assert.ok(!(await settled(flight.idle(5000))));
  });

  it('forgets an untracked access point’s messages', async () => {
    const flight = new InFlight();
    flight.track('a');
    flight.begin('a');
    const idle = flight.idle(10_000);
    flight.untrack('a');
    assert.ok(await settled(idle));
  });
});
