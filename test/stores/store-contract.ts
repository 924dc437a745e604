/**
 * The contract every Store backend must meet. Each backend's test file calls storeContract() with a
 * way to open a fresh, empty store; the same assertions then run against SQLite, PostgreSQL, ...
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { Store } from '../../src/app/ports.ts';
import type { Account } from '../../src/domain/account.ts';
import type { Delivery, DueMessage } from '../../src/domain/delivery.ts';
import { initialHealth, type Lock } from '../../src/domain/lock.ts';
import type { Task } from '../../src/domain/task.ts';

export interface StoreFactory {
  open(): Promise<Store>;
  /** Drop whatever open() created (files, databases). */
  cleanup(store: Store): Promise<void>;
}

const account = (id: string, email: string): Account => ({
  id,
  email,
  passwordHash: null,
  verified: true,
  deletedAt: null,
  passwordChangedAt: null,
  createdAt: 1_000,
});

const lock = (deviceId: string, ownerId: string, createdAt: number): Lock => ({
  ...initialHealth(90),
  deviceId,
  serial: `S-${deviceId.slice(-4)}`,
  nickname: `Lock ${deviceId.slice(-4)}`,
  ownerId,
  locked: true,
  battery: 90,
  responsive: true,
  integration: true,
  accessPoint: true,
  appOpen: false,
  accessPointId: null,
  createdAt,
});

const processing = (id: string, deviceId: string, createdAt = 5_000): Task & { status: 'processing' } => ({
  id,
  accountId: 'acc-1',
  deviceId,
  command: 'lock',
  status: 'processing',
  createdAt,
  deadline: createdAt + 15_000,
});

const message = (id: string, accountId: string, deviceId: string, host: string, seq: number): Delivery => ({
  id,
  accountId,
  deviceId,
  event: 'lock.state_changed',
  url: `http://${host}/hook`,
  host,
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

export function storeContract(backend: string, factory: StoreFactory): void {
  describe(`Store contract: ${backend}`, () => {
    let store: Store;
    beforeEach(async () => {
      store = await factory.open();
      await store.accounts.insert(account('acc-1', 'one@example.com'));
      await store.accounts.insert(account('acc-2', 'two@example.com'));
    });
    afterEach(() => factory.cleanup(store));

    it('finds accounts by e-mail and id, and updates them', async () => {
      assert.equal((await store.accounts.findByEmail('one@example.com'))?.id, 'acc-1');
      assert.equal(await store.accounts.findByEmail('nobody@example.com'), undefined);
      await store.accounts.update('acc-1', {
        passwordHash: 'h',
        deletedAt: 7,
        passwordChangedAt: 6,
        verified: false,
      });
      assert.deepEqual(await store.accounts.findById('acc-1'), {
        ...account('acc-1', 'one@example.com'),
        passwordHash: 'h',
        deletedAt: 7,
        passwordChangedAt: 6,
        verified: false,
      });
    });

    it('refuses a second account with the same e-mail', async () => {
      await assert.rejects(store.accounts.insert(account('acc-3', 'one@example.com')));
    });

    it('finds an API key and its account by hash only, and records its use', async () => {
      await store.apiKeys.insert({
        id: 'k1',
        accountId: 'acc-1',
        hash: 'hash-1',
        prefix: 'lck_abc',
        createdAt: 10,
      });
      const found = await store.apiKeys.findByHash('hash-1');
      assert.equal(found?.account.email, 'one@example.com');
      assert.deepEqual(found?.key, {
        id: 'k1',
        accountId: 'acc-1',
        prefix: 'lck_abc',
        createdAt: 10,
        lastUsedAt: null,
        limits: { scopes: null, lockIds: null, expiresAt: null },
        name: null,
        lastUsedIp: null,
      });
      assert.equal(await store.apiKeys.findByHash('hash-2'), undefined);
      await store.apiKeys.touch('k1', 99);
      assert.equal((await store.apiKeys.findByHash('hash-1'))?.key.lastUsedAt, 99);
    });

    it("lists an owner's locks in creation order and applies partial updates", async () => {
      await store.locks.insert(lock('dev-b', 'acc-1', 2));
      await store.locks.insert(lock('dev-a', 'acc-1', 1));
      await store.locks.insert(lock('dev-c', 'acc-2', 3));
      assert.deepEqual(
        (await store.locks.listOwnedBy('acc-1')).map((l) => l.deviceId),
        ['dev-a', 'dev-b'],
      );
      await store.locks.update('dev-a', { locked: false, battery: 3, appOpen: true });
      assert.deepEqual(await store.locks.get('dev-a'), {
        ...lock('dev-a', 'acc-1', 1),
        locked: false,
        battery: 3,
        appOpen: true,
      });
      await store.locks.share('dev-a', 'acc-2');
      await store.locks.share('dev-a', 'acc-2'); // sharing twice is harmless
      assert.equal(await store.locks.get('nope'), undefined);
    });

    it('lists every account by e-mail, deleted ones too, and counts the locks each owns', async () => {
      await store.accounts.insert(account('acc-0', 'zero@example.com'));
      await store.accounts.update('acc-2', { deletedAt: 9 });
      assert.deepEqual(
        (await store.accounts.list()).map((a) => [a.id, a.deletedAt]),
        [
          ['acc-1', null],
          ['acc-2', 9],
          ['acc-0', null],
        ],
      );
      assert.deepEqual(await store.locks.countByOwner(), new Map());
      await store.locks.insert(lock('dev-a', 'acc-1', 1));
      await store.locks.insert(lock('dev-b', 'acc-1', 2));
      await store.locks.insert(lock('dev-c', 'acc-2', 3));
      await store.locks.share('dev-c', 'acc-1'); // a share is not ownership
      assert.deepEqual(
        await store.locks.countByOwner(),
        new Map([
          ['acc-1', 2],
          ['acc-2', 1],
        ]),
      );
    });

    it('allows one processing task per lock, reporting the one that runs', async () => {
      assert.deepEqual(await store.tasks.createProcessing(processing('t1', 'dev-a')), {
        created: true,
        task: processing('t1', 'dev-a'),
      });
      const second = await store.tasks.createProcessing(processing('t2', 'dev-a', 6_000));
      assert.equal(second.created, false);
      assert.equal(second.created === false && 'running' in second && second.running.id, 't1');
      assert.deepEqual(await store.tasks.createProcessing(processing('t3', 'dev-b')), {
        created: true,
        task: processing('t3', 'dev-b'),
      });
      assert.equal(await store.tasks.get('t2'), undefined);
    });

    it('terminates a task exactly once, freeing its lock', async () => {
      await store.tasks.createProcessing(processing('t1', 'dev-a'));
      const ended = await store.tasks.terminate('t1', { successful: false, error: 'JAMMED' }, 7_000);
      assert.deepEqual(ended, {
        ...processing('t1', 'dev-a'),
        status: 'terminated',
        outcome: { successful: false, error: 'JAMMED' },
        endedAt: 7_000,
      });
      assert.equal(await store.tasks.terminate('t1', { successful: true }, 8_000), undefined);
      assert.deepEqual(await store.tasks.get('t1'), ended);
      assert.deepEqual(await store.tasks.createProcessing(processing('t2', 'dev-a')), {
        created: true,
        task: processing('t2', 'dev-a'),
      });
    });

    it('ends overdue or all processing tasks, and purges old ended ones', async () => {
      await store.tasks.createProcessing(processing('early', 'dev-a', 1_000));
      await store.tasks.createProcessing(processing('late', 'dev-b', 50_000));
      const overdue = await store.tasks.terminateOverdue(20_000, 'TIMEOUT');
      assert.deepEqual(
        overdue.map((t) => t.id),
        ['early'],
      );
      const rest = await store.tasks.terminateAllProcessing(21_000, 'TIMEOUT');
      assert.deepEqual(
        rest.map((t) => t.id),
        ['late'],
      );
      assert.equal(await store.tasks.purgeEndedBefore(20_500), 1);
      assert.equal(await store.tasks.get('early'), undefined);
      assert.equal((await store.tasks.get('late'))?.status, 'terminated');
    });

    it('keeps one webhook per account', async () => {
      await store.webhooks.set({
        accountId: 'acc-1',
        url: 'http://a.example/1',
        method: 'GET',
        retries: false,
      });
      await store.webhooks.set({
        accountId: 'acc-1',
        url: 'http://a.example/2',
        method: 'POST',
        retries: true,
      });
      assert.deepEqual(await store.webhooks.get('acc-1'), {
        accountId: 'acc-1',
        url: 'http://a.example/2',
        method: 'POST',
        retries: true,
      });
      assert.equal(await store.webhooks.get('acc-2'), undefined);
    });

    it('finds due webhook messages, first per lock and oldest first, leaving out what the dispatcher names', async () => {
      const none = { accounts: [], hosts: [], accountHosts: [] };
      await store.deliveries.insert(message('m1', 'acc-1', 'lock-1', 'a.example:81', 1));
      await store.deliveries.insert(message('m2', 'acc-1', 'lock-1', 'a.example:81', 2));
      await store.deliveries.insert(message('m3', 'acc-1', 'lock-2', 'b.example', 3));
      await store.deliveries.insert(message('m4', 'acc-2', 'lock-3', 'a.example:81', 4));
      await store.deliveries.insert({
        ...message('m5', 'acc-2', 'lock-4', 'c.example', 5),
        nextAttemptAt: 9_000,
      });
      const ids = (rows: readonly DueMessage[]) => rows.map((d) => d.id);
      // m2 waits behind m1 (the same lock); m5 is not due yet.
      assert.deepEqual(ids(await store.deliveries.due(1_000, 10, none)), ['m1', 'm3', 'm4']);
      assert.deepEqual(ids(await store.deliveries.due(1_000, 2, none)), ['m1', 'm3']);
      assert.deepEqual(ids(await store.deliveries.due(9_000, 10, none)), ['m1', 'm3', 'm4', 'm5']);
      assert.deepEqual(ids(await store.deliveries.due(1_000, 10, { ...none, accounts: ['acc-1'] })), ['m4']);
      assert.deepEqual(ids(await store.deliveries.due(1_000, 10, { ...none, hosts: ['a.example:81'] })), [
        'm3',
      ]);
      assert.deepEqual(
        ids(await store.deliveries.due(1_000, 10, { ...none, accountHosts: [['acc-1', 'a.example:81']] })),
        ['m3', 'm4'],
      );
      assert.deepEqual(
        ids(
          await store.deliveries.due(9_000, 10, {
            accounts: ['acc-1'],
            hosts: ['c.example'],
            accountHosts: [['acc-2', 'a.example:81']],
          }),
        ),
        [],
      );
      // Being sent, m1 still holds m2 back.
      const taken = await store.deliveries.claim('m1', 1_000);
      assert.deepEqual(taken, { ...message('m1', 'acc-1', 'lock-1', 'a.example:81', 1), status: 'sending' });
      assert.equal(await store.deliveries.claim('m1', 1_001), undefined, 'taken once');
      assert.deepEqual(ids(await store.deliveries.due(1_000, 10, none)), ['m3', 'm4']);

      assert.equal(await store.deliveries.countOpen('acc-1', 100), 3, 'pending and sending');
      assert.equal(await store.deliveries.countOpen('acc-1', 2), 2, 'counted no further than asked');
      await store.deliveries.record('m3', {
        status: 'delivered',
        attempts: 1,
        nextAttemptAt: null,
        lastAttemptAt: 1_000,
        responseStatus: 200,
        error: null,
        latencyMs: 1,
      });
      assert.equal(await store.deliveries.countOpen('acc-1', 100), 2, 'an ended message is not open');
      assert.equal(await store.deliveries.countOpen('acc-2', 100), 2);
      assert.equal(await store.deliveries.countOpen('nobody', 100), 0);
    });

    it('saves simulated devices and meta values', async () => {
      const device = {
        deviceId: 'dev-a',
        apId: '00000000-0000-4000-8000-0000000000a1',
        serial: 'SERIAL-A',
        nickname: 'Dev A',
        locked: true,
        battery: 50,
        responsive: true,
        accessPoint: false,
        appOpen: false,
        latencyMs: 10,
        failNext: 'JAMMED' as const,
        jammed: true,
        door: null,
        firmware: 'fw-9',
        autoLockSeconds: 45,
      };
      await store.simDevices.save(device);
      await store.simDevices.save({ ...device, battery: 40 });
      assert.deepEqual(await store.simDevices.list(), [{ ...device, battery: 40 }]);
      assert.equal(await store.getMeta('x'), undefined);
      await store.setMeta('x', '1');
      await store.setMeta('x', '2');
      assert.equal(await store.getMeta('x'), '2');
    });

    it('lists owned and shared locks together, and tells a share from no relation', async () => {
      await store.locks.insert(lock('dev-1', 'acc-1', 1));
      await store.locks.insert(lock('dev-2', 'acc-2', 2));
      await store.locks.insert(lock('dev-3', 'acc-2', 3));
      await store.locks.share('dev-3', 'acc-1');
      assert.deepEqual(
        (await store.locks.listVisibleTo('acc-1')).map((l) => l.deviceId),
        ['dev-1', 'dev-3'],
      );
      assert.equal(await store.locks.isSharedWith('dev-3', 'acc-1'), true);
      assert.equal(await store.locks.isSharedWith('dev-2', 'acc-1'), false);
      assert.equal(await store.locks.isSharedWith('dev-1', 'acc-1'), false, 'owning is not sharing');
    });

    it('finds login tokens and their account by hash, and purges old ones', async () => {
      await store.tokens.insert({ id: 't-old', accountId: 'acc-1', hash: 'h-old', issuedAt: 100 });
      await store.tokens.insert({ id: 't-new', accountId: 'acc-1', hash: 'h-new', issuedAt: 900 });
      const found = await store.tokens.findByHash('h-new');
      assert.deepEqual(found?.token, { id: 't-new', accountId: 'acc-1', issuedAt: 900 });
      assert.equal(found?.account.email, 'one@example.com');
      assert.equal(await store.tokens.findByHash('h-none'), undefined);
      await assert.rejects(
        store.tokens.insert({ id: 't-dup', accountId: 'acc-2', hash: 'h-new', issuedAt: 1 }),
      );
      assert.equal(await store.tokens.purgeIssuedBefore(500), 1);
      assert.equal(await store.tokens.findByHash('h-old'), undefined);
      assert.notEqual(await store.tokens.findByHash('h-new'), undefined);
    });

    it('restores a snapshot exactly, and knows when it is empty', async () => {
      assert.equal(await store.isEmpty(), false);
      await store.locks.insert(lock('dev-a', 'acc-1', 1));
      const snapshot = await store.snapshot();
      await store.locks.update('dev-a', { locked: false });
      await store.tasks.createProcessing(processing('t1', 'dev-a'));
      await store.accounts.insert(account('acc-9', 'nine@example.com'));
      await store.restore(snapshot);
      assert.deepEqual(await store.snapshot(), snapshot);
      assert.equal((await store.locks.get('dev-a'))?.locked, true);
      assert.equal(await store.tasks.get('t1'), undefined);
      await store.restore({});
      assert.equal(await store.isEmpty(), true);
    });

    it('restores a snapshot larger than one statement can bind (32,766 values on SQLite)', async () => {
      await store.deliveries.insert({
        id: 'd-0',
        accountId: 'acc-1',
        deviceId: 'dev-a',
        event: 'lock.state_changed',
        url: 'http://a.example/1',
        host: 'a.example',
        method: 'POST',
        body: '{"locked":true}',
        locked: true,
        retries: false,
        seq: 0,
        createdAt: 1_767_225_600_000,
        status: 'delivered',
        attempts: 1,
        nextAttemptAt: null,
        lastAttemptAt: 1_767_225_600_500,
        responseStatus: 200,
        error: null,
        latencyMs: 12,
        endpointId: null,
        eventId: null,
      });
      const snapshot = await store.snapshot();
      const [row] = snapshot.webhook_deliveries ?? [];
      const rows = Array.from({ length: 2_000 }, (_, i) => ({ ...row, id: `d-${i}`, seq: i }));
      await store.restore({ ...snapshot, webhook_deliveries: rows });
      assert.equal((await store.deliveries.listForAccount('acc-1', 5_000)).length, 2_000);
      assert.deepEqual((await store.snapshot()).webhook_deliveries, rows);
    });
  });
}
