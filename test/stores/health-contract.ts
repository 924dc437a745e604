/**
 * The Store contract for a lock's health and an access point's own news (issue 22,
 * docs/device-protocol.md version 2): what a new lock starts with, what a status write and the
 * owner's settings keep, and what an access point's status says of itself. Each backend's test file
 * calls it beside storeContract().
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { Store } from '../../src/app/ports.ts';
import { aLock, anAccount, aStatus } from '../support/fixtures.ts';
import type { StoreFactory } from './store-contract.ts';

const LOCK = '00000000-0000-4000-8000-0000000000e1';
const AP = '00000000-0000-4000-8000-0000000000e2';

export function healthStoreContract(backend: string, factory: StoreFactory): void {
  describe(`Store contract, device health: ${backend}`, () => {
    let store: Store;
    beforeEach(async () => {
      store = await factory.open();
      await store.accounts.insert(anAccount('acc-1'));
    });
    afterEach(() => factory.cleanup(store));

    it('a lock stored without its health gets the defaults, its battery state from its level', async () => {
      const { deviceId, serial, nickname, ownerId, locked, responsive, integration, accessPoint } = aLock(
        LOCK,
        'acc-1',
      );
      // Without the health fields, as a seed's or a newly announced lock is stored.
      const core = {
        ...{ deviceId, serial, nickname, ownerId, locked, responsive, integration, accessPoint },
        battery: 15,
        appOpen: false,
        accessPointId: null,
        createdAt: 5,
      };
      await store.locks.insert(core);
      const stored = await store.locks.get(LOCK);
      assert.deepEqual(
        stored && {
          jammed: stored.jammed,
          door: stored.door,
          firmware: stored.firmware,
          lastSeenAt: stored.lastSeenAt,
          autoLockSeconds: stored.autoLockSeconds,
          batteryLow: stored.batteryLow,
          batteryCritical: stored.batteryCritical,
          batteryState: stored.batteryState,
          offlineSince: stored.offlineSince,
          offlineAnnounced: stored.offlineAnnounced,
        },
        {
          jammed: false,
          door: null,
          firmware: null,
          lastSeenAt: null,
          autoLockSeconds: 0,
          batteryLow: 20,
          batteryCritical: 10,
          batteryState: 'low',
          offlineSince: null,
          offlineAnnounced: false,
        },
      );
    });

    it('a status write keeps every health field; the owner settings are left as they were', async () => {
      await store.locks.insert(aLock(LOCK, 'acc-1'));
      await store.locks.update(LOCK, { autoLockSeconds: 30, batteryLow: 35, batteryCritical: 15 });
      const read = await store.locks.readStatus(LOCK);
      assert.ok(read);
      const status = aStatus({
        locked: false,
        battery: 12,
        responsive: false,
        appOpen: false,
        jammed: true,
        door: 'open',
        firmware: 'lock-fw 3.1.0',
        lastSeenAt: 1_700_000_000_123,
        batteryState: 'low',
        offlineSince: 1_700_000_000_456,
        offlineAnnounced: true,
      });
      assert.ok(await store.locks.writeStatusIf(LOCK, read.version, status, null));
      const after = await store.locks.get(LOCK);
      assert.ok(after);
      assert.deepEqual(after, {
        ...aLock(LOCK, 'acc-1'),
        ...status,
        autoLockSeconds: 30,
        batteryLow: 35,
        batteryCritical: 15,
      });
      // The door sensor gone (null) and the jam cleared are written as such, not kept.
      const again = await store.locks.readStatus(LOCK);
      assert.ok(again);
      const cleared = aStatus({ ...status, jammed: false, door: null });
      assert.ok(await store.locks.writeStatusIf(LOCK, again.version, cleared, null));
      assert.deepEqual(await store.locks.get(LOCK).then((l) => l && [l.jammed, l.door, l.firmware]), [
        false,
        null,
        'lock-fw 3.1.0',
      ]);
    });

    it("an access point's status says its firmware, signal and version; other messages only that it was seen", async () => {
      await store.accessPoints.insert({
        id: AP,
        accountId: 'acc-1',
        name: 'Hall',
        secretHash: 'h',
        createdAt: 1,
        online: false,
        lastSeenAt: null,
      });
      const fresh = await store.accessPoints.get(AP);
      assert.deepEqual(fresh && [fresh.firmware, fresh.signal, fresh.protocolVersion], [null, null, 1]);
      await store.accessPoints.setOnline(AP, true, 100, undefined, {
        firmware: 'ap-fw 2.0.1',
        signal: -61,
        protocolVersion: 2,
      });
      let ap = await store.accessPoints.get(AP);
      assert.deepEqual(ap && [ap.online, ap.lastSeenAt, ap.firmware, ap.signal, ap.protocolVersion], [
        true,
        100,
        'ap-fw 2.0.1',
        -61,
        2,
      ]);
      await store.accessPoints.seen(AP, 250);
      ap = await store.accessPoints.get(AP);
      assert.deepEqual(ap && [ap.online, ap.lastSeenAt, ap.firmware], [true, 250, 'ap-fw 2.0.1']);
      // A last will says nothing of the device: what the last status said stays.
      await store.accessPoints.setOnline(AP, false, 300);
      ap = await store.accessPoints.get(AP);
      assert.deepEqual(ap && [ap.online, ap.lastSeenAt, ap.signal, ap.protocolVersion], [false, 300, -61, 2]);
      // A device back on version 1 names no signal: the old one is not kept as if it were new.
      await store.accessPoints.setOnline(AP, true, 400, undefined, { firmware: '1.4.2', protocolVersion: 1 });
      ap = await store.accessPoints.get(AP);
      assert.deepEqual(ap && [ap.firmware, ap.signal, ap.protocolVersion], ['1.4.2', null, 1]);
      await store.accessPoints.seen('00000000-0000-4000-8000-0000000000ff', 500);
    });
  });
}
