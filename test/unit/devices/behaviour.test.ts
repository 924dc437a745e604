import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it, mock } from 'node:test';
import { SIM_HEALTH, type SimDeviceState } from '../../../src/domain/sim-device.ts';
import { runBehaviour, seededRandom } from '../../../src/simulator/behaviour.ts';
import type { Fleet } from '../../../src/simulator/fleet.ts';

/** An access point as the behaviour sees it, recording what was done to it. */
function fakeAccessPoint(id: string) {
  const lock: { -readonly [K in keyof SimDeviceState]: SimDeviceState[K] } = {
    deviceId: `${id}-lock`,
    apId: id,
    serial: 'S',
    nickname: 'N',
    locked: true,
    battery: 100,
    responsive: true,
    accessPoint: true,
    appOpen: false,
    latencyMs: 0,
    failNext: null,
    ...SIM_HEALTH,
  };
  const ap = {
    id,
    turns: 0,
    kills: 0,
    starts: 0,
    lockIds: () => [lock.deviceId],
    lock: () => lock,
    async changeLock(_deviceId: string, change: { locked?: boolean }) {
      ap.turns++;
      lock.locked = change.locked ?? lock.locked;
      return lock;
    },
    kill() {
      ap.kills++;
    },
    async start() {
      ap.starts++;
    },
  };
  return ap;
}

const fleetOf = (aps: ReturnType<typeof fakeAccessPoint>[]) =>
  ({ accessPoints: () => aps }) as unknown as Fleet;
/** One second of the behaviour's real time, on node's mock timers: its interval fires once. */
const tick = (): void => mock.timers.tick(1000);

describe('simulator behaviour', () => {
  beforeEach(() => mock.timers.enable({ apis: ['setInterval', 'setTimeout'] }));
  afterEach(() => mock.timers.reset());

  it('turns locks by hand at the given rate, and not at all at rate 0', async () => {
    const busy = fakeAccessPoint('a');
    const idle = fakeAccessPoint('b');
    const stopBusy = runBehaviour(
      fleetOf([busy]),
      { turnsPerHour: 3600, offlinePerHour: 0, offlineSeconds: 1 },
      () => 0,
    );
    const stopIdle = runBehaviour(
      fleetOf([idle]),
      { turnsPerHour: 0, offlinePerHour: 0, offlineSeconds: 1 },
      () => 0,
    );
    tick();
    stopBusy();
    stopIdle();
    assert.equal(busy.turns, 1, 'a chance of 1 a second: one turn in the first second');
    assert.equal(busy.lock().locked, false);
    assert.equal(idle.turns, 0);
  });

  it('takes an access point off power, and brings it back after the given seconds', async () => {
    const ap = fakeAccessPoint('a');
    const stop = runBehaviour(
      fleetOf([ap]),
      { turnsPerHour: 3600, offlinePerHour: 3600, offlineSeconds: 1 },
      () => 0,
    );
    tick();
    assert.equal(ap.kills, 1);
    assert.equal(ap.turns, 0, 'a lock of an access point off power is not turned');
    tick();
    stop();
    assert.equal(ap.starts, 1);
  });

  it('repeats itself for the same seed', () => {
    const a = seededRandom(7);
    const b = seededRandom(7);
    const draws = Array.from({ length: 5 }, () => a());
    assert.deepEqual(
      draws,
      Array.from({ length: 5 }, () => b()),
    );
    assert.ok(draws.every((x) => x >= 0 && x < 1));
    assert.notDeepEqual(draws, Array.from({ length: 5 }, seededRandom(8)));
  });
});
