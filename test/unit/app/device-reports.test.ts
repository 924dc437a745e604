/**
 * DeviceReports as several server processes use it: two instances (two processes) over one store
 * file apply reports of the same lock at once. Each change is announced once, and a report older
 * than one applied, by either, changes nothing.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { openSqliteStore } from '../../../src/adapters/stores/sqlite/open.ts';
import { LocalEventBus } from '../../../src/adapters/system/event-bus.ts';
import { DeviceReports } from '../../../src/app/device-reports.ts';
import type { LockStateChanged, Store } from '../../../src/app/ports.ts';
import { aLock, anAccount } from '../../support/fixtures.ts';

const LOCK = '00000000-0000-4000-8000-0000000000b1';
const clock = { now: () => 1_000, at: () => () => undefined, every: () => () => undefined };

describe('DeviceReports in two processes over one store', () => {
  let dir: string;
  let stores: Store[];
  let announced: LockStateChanged[];
  let reports: DeviceReports[];

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'lockcloud-reports-'));
    // Two connections to one file: each "process" has its own, as on PostgreSQL.
    stores = [await openSqliteStore(dir), await openSqliteStore(dir)];
    const [a] = stores;
    await a?.accounts.insert(anAccount('acc-1', { email: 'one@example.com' }));
    await a?.locks.insert(aLock(LOCK, 'acc-1', { accessPointId: 'ap-1' }));
    announced = [];
    reports = stores.map((store) => {
      const events = new LocalEventBus((error) => {
        throw error;
      });
      events.onLockStateChanged((event) => announced.push(event));
      return new DeviceReports(store.locks, events, clock);
    });
  });

  afterEach(async () => {
    for (const store of stores) await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('announces one change once, when both processes apply the same report', async () => {
    const [a, b] = reports;
    const mark = { apId: 'ap-1', epoch: 'e', seq: 1 };
    await Promise.all([
      a?.apply(LOCK, { locked: false }, mark),
      b?.apply(LOCK, { locked: false }, mark),
      a?.apply(LOCK, { locked: false }, mark),
      b?.apply(LOCK, { locked: false }, mark),
    ]);
    assert.deepEqual(
      announced.map((e) => e.locked),
      [false],
    );
  });

  it('keeps the newest report whatever order the processes apply them in', async () => {
    const [a, b] = reports;
    // Seq 1..20 alternate locked/unlocked; handed out to the two processes in a scrambled order.
    const order = Array.from({ length: 20 }, (_, i) => i + 1).sort((x, y) => ((x * 7) % 20) - ((y * 7) % 20));
    await Promise.all(
      order.map((seq) =>
        (seq % 2 === 0 ? a : b)?.apply(
          LOCK,
          { locked: seq % 2 === 0, battery: 100 - seq },
          {
            apId: 'ap-1',
            epoch: 'e',
            seq,
          },
        ),
      ),
    );
    const final = await stores[0]?.locks.readStatus(LOCK);
    assert.equal(final?.mark?.seq, 20);
    assert.equal(final?.lock.locked, true, 'seq 20 says locked');
    assert.equal(final?.lock.battery, 80);
    // Every announced change is a real flip of the stored state: no two in a row say the same.
    for (let i = 1; i < announced.length; i++)
      assert.notEqual(announced[i]?.locked, announced[i - 1]?.locked, JSON.stringify(announced));
  });

  it('drops a report older than one the other process applied', async () => {
    const [a, b] = reports;
    await a?.apply(LOCK, { locked: false }, { apId: 'ap-1', epoch: 'e', seq: 9 });
    await b?.apply(LOCK, { locked: true }, { apId: 'ap-1', epoch: 'e', seq: 8 });
    assert.equal((await stores[1]?.locks.readStatus(LOCK))?.lock.locked, false);
    assert.equal(announced.length, 1);
  });
});
