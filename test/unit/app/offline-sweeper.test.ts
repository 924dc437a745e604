/**
 * The offline debounce through the clock (never sleeping): a lock out of reach is logged
 * lock.offline only once the grace period has passed, a short reconnect not at all, lock.online
 * only after an announced lock.offline, and two processes over one store announce an outage once.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { openSqliteStore } from '../../../src/adapters/stores/sqlite/open.ts';
import { cryptoRandom } from '../../../src/adapters/system/crypto.ts';
import { LocalEventBus } from '../../../src/adapters/system/event-bus.ts';
import { DeviceReports } from '../../../src/app/device-reports.ts';
import { EventLog } from '../../../src/app/event-log.ts';
import { OFFLINE_SWEEP_MS, OfflineSweeper } from '../../../src/app/offline-sweeper.ts';
import type { Store } from '../../../src/app/ports.ts';
import { silentLogger } from '../../support/devices.ts';
import { aLock, anAccount } from '../../support/fixtures.ts';
import { ManualClock } from '../../support/manual-clock.ts';

const LOCK = '00000000-0000-4000-8000-0000000000c1';
const GRACE = 60_000;

/** One server process over the store: its clock, log, sweeper and reports. */
function processOver(store: Store, clock: ManualClock) {
  const log = new EventLog(store.events, clock, cryptoRandom);
  const sweeper = new OfflineSweeper(store.locks, log, clock, silentLogger, GRACE);
  const bus = new LocalEventBus((error) => {
    throw error;
  });
  const reports = new DeviceReports(store.locks, bus, clock, silentLogger, {
    log,
    tasks: store.tasks,
    offline: sweeper,
  });
  return { sweeper, reports };
}

describe('OfflineSweeper', () => {
  let dir: string;
  let stores: Store[];
  let clock: ManualClock;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'lockcloud-offline-'));
    stores = [await openSqliteStore(dir), await openSqliteStore(dir)];
    clock = new ManualClock(1_767_225_600_000);
    const [a] = stores;
    await a?.accounts.insert(anAccount('acc-1', { email: 'one@example.com' }));
    await a?.locks.insert(aLock(LOCK, 'acc-1', { accessPointId: 'ap-1' }));
  });

  afterEach(async () => {
    for (const store of stores) await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const reachEvents = async () =>
    (await stores[0]?.events.list({ readerId: 'acc-1', limit: 100, order: 'oldest-first' }))
      ?.filter((e) => e.type === 'lock.offline' || e.type === 'lock.online')
      .map((e) => [e.type, e.occurredAt]);

  it('writes lock.offline when the grace period ends, once, and lock.online when the lock is back', async () => {
    const { sweeper, reports } = processOver(stores[0] as Store, clock);
    sweeper.start();
    try {
      const lostAt = clock.now();
      await reports.apply(LOCK, { responsive: false });
      clock.advance(GRACE - 1);
      await sweeper.settled();
      assert.deepEqual(await reachEvents(), [], 'not before the grace period ends');
      clock.advance(1);
      await sweeper.settled();
      assert.deepEqual(await reachEvents(), [['lock.offline', lostAt + GRACE]]);
      clock.advance(10 * OFFLINE_SWEEP_MS);
      await sweeper.settled();
      await reports.apply(LOCK, { responsive: false });
      assert.equal((await reachEvents())?.length, 1, 'announced once');
      await reports.apply(LOCK, { responsive: true });
      assert.deepEqual(
        (await reachEvents())?.map(([type]) => type),
        ['lock.offline', 'lock.online'],
      );
      const lock = await stores[0]?.locks.get(LOCK);
      assert.deepEqual(lock && [lock.offlineSince, lock.offlineAnnounced], [null, false]);
    } finally {
      sweeper.stop();
    }
  });

  it('says nothing of a short reconnect', async () => {
    const { sweeper, reports } = processOver(stores[0] as Store, clock);
    sweeper.start();
    try {
      await reports.apply(LOCK, { responsive: false });
      clock.advance(GRACE / 2);
      await reports.apply(LOCK, { responsive: true });
      clock.advance(2 * GRACE);
      await sweeper.settled();
      assert.deepEqual(await reachEvents(), []);
    } finally {
      sweeper.stop();
    }
  });

  it('counts the grace period from the first report that lost the lock', async () => {
    const { sweeper, reports } = processOver(stores[0] as Store, clock);
    sweeper.start();
    try {
      const lostAt = clock.now();
      await reports.apply(LOCK, { responsive: false });
      clock.advance(GRACE / 2);
      await reports.apply(LOCK, { responsive: false, battery: 80 });
      clock.advance(GRACE / 2);
      await sweeper.settled();
      assert.deepEqual(await reachEvents(), [['lock.offline', lostAt + GRACE]]);
    } finally {
      sweeper.stop();
    }
  });

  it('announces an outage another process saw begin, on its own round', async () => {
    const [a, b] = stores.map((store) => processOver(store, clock));
    b?.sweeper.start();
    try {
      // Process a (not sweeping: stopped, or gone) lost the lock.
      await a?.reports.apply(LOCK, { responsive: false });
      clock.advance(GRACE - 1);
      await b?.sweeper.settled();
      assert.deepEqual(await reachEvents(), []);
      // b had no timer for the outage: its next round finds it.
      clock.advance(OFFLINE_SWEEP_MS);
      await b?.sweeper.settled();
      assert.deepEqual(
        (await reachEvents())?.map(([type]) => type),
        ['lock.offline'],
      );
    } finally {
      b?.sweeper.stop();
    }
  });

  it('announces at start the outages an earlier run left unannounced', async () => {
    const { sweeper, reports } = processOver(stores[0] as Store, clock);
    await reports.apply(LOCK, { responsive: false });
    clock.advance(5 * GRACE);
    sweeper.start();
    try {
      await sweeper.settled();
      assert.deepEqual(
        (await reachEvents())?.map(([type]) => type),
        ['lock.offline'],
      );
    } finally {
      sweeper.stop();
    }
  });

  it('announces an outage once when two processes sweep', async () => {
    // In turn: SQLite's two connections share this thread (at once: test/stores, on PostgreSQL).
    const [a, b] = stores.map((store) => processOver(store, clock));
    await a?.reports.apply(LOCK, { responsive: false });
    clock.advance(GRACE);
    await a?.sweeper.round();
    await b?.sweeper.round();
    assert.deepEqual(
      (await reachEvents())?.map(([type]) => type),
      ['lock.offline'],
    );
  });

  it('arms nothing once stopped', async () => {
    const { sweeper, reports } = processOver(stores[0] as Store, clock);
    sweeper.start();
    await reports.apply(LOCK, { responsive: false });
    sweeper.stop();
    clock.advance(10 * GRACE);
    await sweeper.settled();
    assert.deepEqual(await reachEvents(), []);
  });
});
