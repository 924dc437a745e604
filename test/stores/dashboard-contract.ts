/**
 * The Store contract for what the dashboard added: sessions, one-time codes, listing and deleting API
 * keys, lock shares and releasing a deleted account's locks; and that a snapshot carries them.
 * Each backend's test file calls it beside storeContract().
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { Store } from '../../src/app/ports.ts';
import type { Account } from '../../src/domain/account.ts';
import type { OneTimeCode } from '../../src/domain/one-time-code.ts';
import type { StoreFactory } from './store-contract.ts';

const account = (id: string, email: string): Account => ({
  id,
  email,
  passwordHash: null,
  verified: true,
  deletedAt: null,
  passwordChangedAt: null,
  createdAt: 1_000,
});

const code = (id: string, purpose: OneTimeCode['purpose'] = 'signup'): OneTimeCode => ({
  id,
  accountId: 'acc-1',
  purpose,
  hash: `hash-${id}`,
  createdAt: 100,
  expiresAt: 700,
  attempts: 0,
  usedAt: null,
});

export function dashboardStoreContract(backend: string, factory: StoreFactory): void {
  describe(`Store contract, dashboard: ${backend}`, () => {
    let store: Store;
    beforeEach(async () => {
      store = await factory.open();
      await store.accounts.insert(account('acc-1', 'one@example.com'));
      await store.accounts.insert(account('acc-2', 'two@example.com'));
    });
    afterEach(() => factory.cleanup(store));

    it('finds a session and its account by hash, unlocks API Settings, removes and purges', async () => {
      const session = { id: 's1', accountId: 'acc-1', createdAt: 10, expiresAt: 100, apiUnlockedUntil: null };
      await store.sessions.insert({ ...session, hash: 'h1' });
      await store.sessions.insert({ ...session, id: 's2', hash: 'h2', expiresAt: 50 });
      await store.sessions.insert({ ...session, id: 's3', accountId: 'acc-2', hash: 'h3' });
      assert.deepEqual((await store.sessions.findByHash('h1'))?.session, session);
      assert.equal((await store.sessions.findByHash('h1'))?.account.email, 'one@example.com');
      assert.equal(await store.sessions.findByHash('nope'), undefined);
      await store.sessions.setApiUnlockedUntil('s1', 99);
      assert.equal((await store.sessions.findByHash('h1'))?.session.apiUnlockedUntil, 99);
      assert.equal(await store.sessions.purgeExpiredBefore(60), 1);
      assert.equal(await store.sessions.findByHash('h2'), undefined);
      assert.equal(await store.sessions.removeForAccount('acc-1'), 1);
      await store.sessions.remove('s3');
      assert.equal(await store.sessions.findByHash('h3'), undefined);
    });

    it('keeps one code per account and purpose, bounds attempts atomically, uses a code once', async () => {
      await store.codes.replace(code('c1'));
      await store.codes.replace(code('c2'));
      await store.codes.replace(code('c3', 'reset'));
      assert.equal((await store.codes.find('acc-1', 'signup'))?.id, 'c2');
      assert.deepEqual(await store.codes.find('acc-1', 'reset'), code('c3', 'reset'));
      assert.equal(await store.codes.find('acc-2', 'signup'), undefined);
      const tries = await Promise.all([1, 2, 3].map(() => store.codes.countAttempt('c2', 2)));
      assert.deepEqual(
        tries.filter((ok) => ok),
        [true, true],
      );
      assert.equal((await store.codes.find('acc-1', 'signup'))?.attempts, 2);
      assert.equal(await store.codes.use('c2', 150), true);
      assert.equal(await store.codes.use('c2', 160), false);
      assert.equal((await store.codes.find('acc-1', 'signup'))?.usedAt, 150);
      assert.equal(await store.codes.purgeExpiredBefore(800), 2);
    });

    it("lists an account's keys oldest first and deletes only its own", async () => {
      await store.apiKeys.insert({
        id: 'k2',
        accountId: 'acc-1',
        hash: 'h2',
        prefix: 'lck_b',
        createdAt: 20,
      });
      await store.apiKeys.insert({
        id: 'k1',
        accountId: 'acc-1',
        hash: 'h1',
        prefix: 'lck_a',
        createdAt: 10,
      });
      await store.apiKeys.insert({ id: 'k3', accountId: 'acc-2', hash: 'h3', prefix: 'lck_c', createdAt: 5 });
      assert.deepEqual(
        (await store.apiKeys.listForAccount('acc-1')).map((k) => [k.id, k.prefix, k.lastUsedAt]),
        [
          ['k1', 'lck_a', null],
          ['k2', 'lck_b', null],
        ],
      );
      assert.equal(await store.apiKeys.remove('acc-1', 'k3'), false, "another account's key");
      assert.equal(await store.apiKeys.remove('acc-1', 'k1'), true);
      assert.equal(await store.apiKeys.findByHash('h1'), undefined);
      assert.notEqual(await store.apiKeys.findByHash('h3'), undefined);
    });

    it('lists and ends shares, and releases a deleted account: its locks and shares go', async () => {
      const lock = (deviceId: string, ownerId: string) => ({
        deviceId,
        serial: 'S',
        nickname: 'N',
        ownerId,
        locked: true,
        battery: 90,
        responsive: true,
        integration: true,
        accessPoint: true,
        appOpen: false,
        createdAt: 1,
      });
      // Fields a backend adds to Lock later are filled by update(); insert takes what it knows.
      await store.locks.insert(lock('dev-1', 'acc-1') as never);
      await store.locks.insert(lock('dev-2', 'acc-2') as never);
      await store.locks.share('dev-1', 'acc-2');
      await store.locks.share('dev-2', 'acc-1');
      assert.deepEqual(await store.locks.sharesOf('dev-1'), [
        { accountId: 'acc-2', email: 'two@example.com' },
      ]);
      assert.equal(await store.locks.unshare('dev-1', 'acc-1'), false);
      assert.deepEqual(await store.locks.releaseAccount('acc-1'), ['dev-1']);
      assert.equal(await store.locks.get('dev-1'), undefined);
      assert.deepEqual(await store.locks.sharesOf('dev-2'), []);
      assert.deepEqual(
        (await store.locks.listVisibleTo('acc-2')).map((l) => l.deviceId),
        ['dev-2'],
      );
    });

    it('carries sessions and codes in a snapshot, so a sandbox reset restores them', async () => {
      await store.sessions.insert({
        id: 's1',
        accountId: 'acc-1',
        createdAt: 1,
        expiresAt: 9,
        apiUnlockedUntil: null,
        hash: 'h',
      });
      await store.codes.replace(code('c1'));
      const snapshot = await store.snapshot();
      await store.sessions.remove('s1');
      await store.codes.replace(code('c9'));
      await store.restore(snapshot);
      assert.equal((await store.sessions.findByHash('h'))?.session.id, 's1');
      assert.equal((await store.codes.find('acc-1', 'signup'))?.id, 'c1');
    });
  });
}
