/**
 * What several server processes on one store rely on (issue 8): the compare-and-set of a lock's
 * status with its last report's mark, ending the tasks of locks whose access point went away, and
 * telling a webhook delivery another process is sending from one a dead process left. Run against
 * every backend by its test file, like storeContract().
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { Store } from '../../src/app/ports.ts';
import type { Delivery } from '../../src/domain/delivery.ts';
import { aLock, anAccount, aStatus } from '../support/fixtures.ts';
import type { StoreFactory } from './store-contract.ts';

const LOCK = '00000000-0000-4000-8000-0000000000a1';
const OTHER = '00000000-0000-4000-8000-0000000000a2';

const delivery = (id: string, seq: number): Delivery => ({
  id,
  accountId: 'acc-1',
  deviceId: LOCK,
  event: 'lock.state_changed',
  url: 'https://hooks.example.com/x',
  host: 'hooks.example.com',
  method: 'POST',
  body: '{}',
  locked: true,
  retries: false,
  seq,
  createdAt: 1_000,
  status: 'pending',
  attempts: 0,
  nextAttemptAt: 1_000,
  lastAttemptAt: null,
  responseStatus: null,
  error: null,
  latencyMs: null,
  endpointId: null,
  eventId: null,
});

export function clusterStoreContract(backend: string, factory: StoreFactory): void {
  describe(`Store contract for several processes: ${backend}`, () => {
    let store: Store;
    beforeEach(async () => {
      store = await factory.open();
      await store.accounts.insert(anAccount('acc-1', { email: 'one@example.com', createdAt: 1_000 }));
      for (const deviceId of [LOCK, OTHER])
        await store.locks.insert(
          aLock(deviceId, 'acc-1', { serial: 'S-1', nickname: 'Front door', createdAt: 1_000 }),
        );
    });
    afterEach(() => factory.cleanup(store));

    it('writes a status only over the version it read, with the report mark', async () => {
      const first = await store.locks.readStatus(LOCK);
      assert.ok(first);
      assert.equal(first.mark, null);
      const status = aStatus({ locked: false, battery: 80, responsive: true, appOpen: false });
      const mark = { apId: 'ap-1', epoch: 'e1', seq: 7 };
      assert.ok(await store.locks.writeStatusIf(LOCK, first.version, status, mark));
      // A second writer that read the same version loses, and changes nothing.
      const lost = aStatus({ locked: true, battery: 10, responsive: false, appOpen: true });
      assert.equal(await store.locks.writeStatusIf(LOCK, first.version, lost, null), undefined);
      const now = await store.locks.readStatus(LOCK);
      assert.ok(now);
      assert.equal(now.version, first.version + 1);
      assert.deepEqual(now.mark, mark);
      assert.deepEqual(
        { locked: now.lock.locked, battery: now.lock.battery, responsive: now.lock.responsive },
        { locked: false, battery: 80, responsive: true },
      );
      assert.equal(await store.locks.readStatus('00000000-0000-4000-8000-00000000dead'), undefined);
    });

    it('moves the status version on any status update, not on a settings one', async () => {
      const before = await store.locks.readStatus(LOCK);
      assert.ok(before);
      await store.locks.update(LOCK, { nickname: 'Back door', integration: false });
      assert.equal((await store.locks.readStatus(LOCK))?.version, before.version);
      await store.locks.update(LOCK, { battery: 50 });
      const after = await store.locks.readStatus(LOCK);
      assert.equal(after?.version, before.version + 1);
      const status = aStatus({ locked: true, battery: 1, responsive: true, appOpen: false });
      assert.equal(await store.locks.writeStatusIf(LOCK, before.version, status, null), undefined);
    });

    it('ends the processing tasks of the given locks only', async () => {
      const task = (id: string, deviceId: string) => ({
        id,
        accountId: 'acc-1',
        deviceId,
        command: 'unlock' as const,
        status: 'processing' as const,
        createdAt: 5_000,
        deadline: 20_000,
      });
      await store.tasks.createProcessing(task('t-1', LOCK));
      await store.tasks.createProcessing(task('t-2', OTHER));
      assert.deepEqual(await store.tasks.terminateProcessingOf([], 6_000, 'DEVICE_UNREACHABLE'), []);
      const ended = await store.tasks.terminateProcessingOf([LOCK], 6_000, 'DEVICE_UNREACHABLE');
      assert.deepEqual(
        ended.map((t) => [t.id, t.status === 'terminated' && !t.outcome.successful && t.outcome.error]),
        [['t-1', 'DEVICE_UNREACHABLE']],
      );
      assert.equal((await store.tasks.get('t-2'))?.status, 'processing');
      assert.deepEqual(await store.tasks.terminateProcessingOf([LOCK], 7_000, 'DEVICE_UNREACHABLE'), []);
    });

    it('fails only deliveries claimed before the cut-off when told one', async () => {
      await store.deliveries.insert(delivery('msg_old', 1));
      await store.deliveries.insert({ ...delivery('msg_new', 2), deviceId: OTHER });
      assert.equal((await store.deliveries.claim('msg_old', 10_000))?.id, 'msg_old');
      assert.equal(await store.deliveries.claim('msg_old', 10_001), undefined, 'claimed twice');
      assert.equal((await store.deliveries.claim('msg_new', 70_000))?.id, 'msg_new');
      // Another process, at 75 s, with a 60 s cut-off: only the delivery taken at 10 s is abandoned.
      assert.equal(await store.deliveries.failInterrupted(75_000, 15_000), 1);
      assert.equal((await store.deliveries.get('acc-1', 'msg_old'))?.status, 'failed');
      assert.equal((await store.deliveries.get('acc-1', 'msg_new'))?.status, 'sending');
      // Alone at start-up: every delivery left sending was this process's.
      assert.equal(await store.deliveries.failInterrupted(75_000), 1);
      assert.equal((await store.deliveries.get('acc-1', 'msg_new'))?.status, 'failed');
    });
  });
}
