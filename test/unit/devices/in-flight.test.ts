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

  it('gives up waiting after the timeout (a message the broker refused never comes back)', async () => {
    const flight = new InFlight();
    flight.track('a');
    flight.begin('a');
    const started = Date.now();
    // Its timer does not hold the process open (a server has its listener for that); this test does.
    const keepAlive = setTimeout(() => undefined, 1000);
    await flight.idle(30);
    clearTimeout(keepAlive);
    assert.ok(Date.now() - started >= 25);
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
