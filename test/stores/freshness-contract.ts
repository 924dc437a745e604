/**
 * The Store contract for reads after writes: what a caller reads right after a write is the write,
 * whether or not it read the same row before (a read cache in front of the store, as the server's
 * SQLite store has, must never answer from before it), and so is what another process (the admin
 * CLI beside a server, another server on PostgreSQL) has committed. These are the reads every
 * request makes first: an API key or token and its account, a lock. A revoked key, a deleted
 * account or a lock's new state must count from the next request on. Each backend's test file calls
 * it beside storeContract().
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { Store } from '../../src/app/ports.ts';
import { formatEventId } from '../../src/domain/event.ts';
import { aLock, anAccount, aStatus } from '../support/fixtures.ts';
import type { StoreFactory } from './store-contract.ts';

export interface SharedStoreFactory extends StoreFactory {
  /** Another connection to `store`'s data, as another process has (a file handle, a pool of its own). */
  another(store: Store): Promise<Store>;
}

const LOCK = '00000000-0000-4000-8000-0000000000f1';
const key = { id: 'k1', accountId: 'acc-1', hash: 'key-hash-1', prefix: 'lck_a', createdAt: 10 };
const token = { id: 't1', accountId: 'acc-1', hash: 'token-hash-1', issuedAt: 100 };

/**
 * Another process's commit reaches a server as I/O (the request that follows it), never within the
 * callback the server is running: the test lets the current callback end before reading.
 */
async function committedElsewhere(write: Promise<unknown>): Promise<void> {
  await write;
  await new Promise((resolve) => setImmediate(resolve));
}

export function freshnessStoreContract(
  backend: string,
  factory: SharedStoreFactory,
  /**
   * Whether two connections may hold write transactions at once from one thread. SQLite's other
   * connection in a test shares the thread, where a second writer would wait out the busy timeout
   * on a lock the first cannot release; there the writers take turns (as the file lock makes
   * separate processes do anyway).
   */
  { concurrentWriters = false }: { concurrentWriters?: boolean } = {},
): void {
  describe(`Store contract, reads after writes: ${backend}`, () => {
    let store: Store;
    beforeEach(async () => {
      store = await factory.open();
      await store.accounts.insert(anAccount('acc-1', { email: 'one@example.com' }));
      await store.accounts.insert(anAccount('acc-2', { email: 'two@example.com' }));
      await store.apiKeys.insert(key);
      await store.tokens.insert(token);
      await store.locks.insert(aLock(LOCK, 'acc-1'));
    });
    afterEach(() => factory.cleanup(store));

    it('reads an API key anew after its use, its account changing and its removal', async () => {
      assert.equal((await store.apiKeys.findByHash(key.hash))?.key.lastUsedAt, null);
      await store.apiKeys.touch(key.id, 500);
      assert.equal((await store.apiKeys.findByHash(key.hash))?.key.lastUsedAt, 500);
      await store.accounts.update('acc-1', { passwordChangedAt: 600 });
      assert.equal((await store.apiKeys.findByHash(key.hash))?.account.passwordChangedAt, 600);
      await store.accounts.update('acc-1', { deletedAt: 700 });
      assert.equal((await store.apiKeys.findByHash(key.hash))?.account.deletedAt, 700);
      assert.equal(await store.apiKeys.remove('acc-1', key.id), true);
      assert.equal(await store.apiKeys.findByHash(key.hash), undefined);
    });

    it('finds a key or a lock made after a read that did not find it', async () => {
      const next = { ...key, id: 'k2', hash: 'key-hash-2' };
      assert.equal(await store.apiKeys.findByHash(next.hash), undefined);
      await store.apiKeys.insert(next);
      assert.equal((await store.apiKeys.findByHash(next.hash))?.key.id, 'k2');
      const other = '00000000-0000-4000-8000-0000000000f2';
      assert.equal(await store.locks.get(other), undefined);
      await store.locks.insert(aLock(other, 'acc-2'));
      assert.equal((await store.locks.get(other))?.ownerId, 'acc-2');
    });

    it('reads a login token anew after its account changes and after it is purged', async () => {
      assert.equal((await store.tokens.findByHash(token.hash))?.account.deletedAt, null);
      await store.accounts.update('acc-1', { deletedAt: 700 });
      assert.equal((await store.tokens.findByHash(token.hash))?.account.deletedAt, 700);
      assert.equal(await store.tokens.purgeIssuedBefore(200), 1);
      assert.equal(await store.tokens.findByHash(token.hash), undefined);
    });

    it('reads a lock anew after a settings change, a status written, a status lost and a release', async () => {
      assert.equal((await store.locks.get(LOCK))?.nickname, 'Door');
      await store.locks.update(LOCK, { nickname: 'Front door', integration: false });
      assert.deepEqual(
        await store.locks.get(LOCK),
        aLock(LOCK, 'acc-1', { nickname: 'Front door', integration: false }),
      );
      const read = await store.locks.readStatus(LOCK);
      assert.ok(read);
      const status = aStatus({ locked: false, battery: 40, responsive: true, appOpen: true });
      assert.ok(await store.locks.writeStatusIf(LOCK, read.version, status, null));
      assert.deepEqual(
        await store.locks.get(LOCK),
        aLock(LOCK, 'acc-1', { nickname: 'Front door', integration: false, ...status }),
      );
      const lost = aStatus({ locked: true, battery: 1, responsive: false, appOpen: false });
      assert.equal(await store.locks.writeStatusIf(LOCK, read.version, lost, null), undefined);
      assert.equal((await store.locks.get(LOCK))?.battery, 40);
      assert.deepEqual(await store.locks.releaseAccount('acc-1'), [LOCK]);
      assert.equal(await store.locks.get(LOCK), undefined);
    });

    it('reads everything anew after a restore (the sandbox reset)', async () => {
      const snapshot = await store.snapshot();
      await store.apiKeys.remove('acc-1', key.id);
      await store.locks.update(LOCK, { battery: 7 });
      assert.equal(await store.apiKeys.findByHash(key.hash), undefined);
      assert.equal((await store.locks.get(LOCK))?.battery, 7);
      await store.restore(snapshot);
      assert.equal((await store.apiKeys.findByHash(key.hash))?.key.id, key.id);
      assert.equal((await store.locks.get(LOCK))?.battery, 90);
      assert.equal((await store.tokens.findByHash(token.hash))?.token.id, token.id);
    });

    it('never brings back what a write replaced while a read of it was under way', async () => {
      // Requests run side by side: a status read and a report, a key check and its removal. Each
      // read is the first since the row last changed: it goes to the database (past any cache).
      await Promise.all([store.locks.get(LOCK), store.locks.update(LOCK, { battery: 33 })]);
      assert.equal((await store.locks.get(LOCK))?.battery, 33);
      const read = await store.locks.readStatus(LOCK);
      assert.ok(read);
      await store.locks.update(LOCK, { nickname: 'Back door' });
      const status = aStatus({ locked: false, battery: 20, responsive: true, appOpen: false });
      await Promise.all([store.locks.get(LOCK), store.locks.writeStatusIf(LOCK, read.version, status, null)]);
      assert.equal((await store.locks.get(LOCK))?.battery, 20);
      await Promise.all([store.apiKeys.findByHash(key.hash), store.apiKeys.remove('acc-1', key.id)]);
      assert.equal(await store.apiKeys.findByHash(key.hash), undefined);
      await Promise.all([
        store.tokens.findByHash(token.hash),
        store.accounts.update('acc-1', { deletedAt: 900 }),
      ]);
      assert.equal((await store.tokens.findByHash(token.hash))?.account.deletedAt, 900);
    });

    it('sees at the next read what another process committed', async () => {
      const other = await factory.another(store);
      try {
        assert.equal((await store.apiKeys.findByHash(key.hash))?.account.deletedAt, null);
        assert.equal((await store.tokens.findByHash(token.hash))?.account.deletedAt, null);
        assert.equal((await store.locks.get(LOCK))?.battery, 90);
        // The admin CLI deletes the account: the server's next request answers 401.
        await committedElsewhere(other.accounts.update('acc-1', { deletedAt: 5 }));
        assert.equal((await store.apiKeys.findByHash(key.hash))?.account.deletedAt, 5);
        assert.equal((await store.tokens.findByHash(token.hash))?.account.deletedAt, 5);
        await committedElsewhere(other.apiKeys.remove('acc-1', key.id));
        assert.equal(await store.apiKeys.findByHash(key.hash), undefined);
        // Another server stored a report for the lock.
        await committedElsewhere(other.locks.update(LOCK, { battery: 12, locked: false }));
        assert.deepEqual(await store.locks.get(LOCK), aLock(LOCK, 'acc-1', { battery: 12, locked: false }));
        await committedElsewhere(other.apiKeys.insert({ ...key, id: 'k3', hash: 'key-hash-3' }));
        assert.equal((await store.apiKeys.findByHash('key-hash-3'))?.key.id, 'k3');
      } finally {
        await other.close();
      }
    });

    it('reads an OAuth access token anew after its consent changes, here or in another process', async () => {
      await store.oauthApps.insert({
        id: 'lca_f',
        accountId: 'acc-2',
        name: 'Fresh app',
        redirectUris: ['https://a.example/cb'],
        kind: 'public',
        secretHash: null,
        secretPrefix: null,
        createdAt: 1,
        updatedAt: 1,
      });
      const consent = {
        accountId: 'acc-1',
        appId: 'lca_f',
        scopes: ['locks:read'] as const,
        lockIds: null,
        grantId: 'grant-f',
        grantedAt: 2,
        lastUsedAt: null,
      };
      await store.oauthApps.putConsent(consent);
      await store.oauthRecords.upsert('AccessToken', 'tok-f', {
        payload: '{}',
        grantId: 'grant-f',
        uid: null,
        accountId: 'acc-1',
        clientId: 'lca_f',
        scope: 'locks:read',
        expiresAt: 10_000,
        consumedAt: null,
      });
      assert.equal((await store.oauthRecords.findBearer('tok-f'))?.lockIds, null);
      // Narrowed here, then used: each read sees it.
      await store.oauthApps.putConsent({ ...consent, lockIds: [LOCK] });
      assert.deepEqual((await store.oauthRecords.findBearer('tok-f'))?.lockIds, [LOCK]);
      await store.oauthApps.touchConsent('grant-f', 7);
      assert.equal((await store.oauthRecords.findBearer('tok-f'))?.lastUsedAt, 7);
      const other = await factory.another(store);
      try {
        // The app renamed, then the token revoked, by another process.
        await committedElsewhere(
          other.oauthApps.update('acc-2', 'lca_f', {
            name: 'Renamed',
            redirectUris: ['https://a.example/cb'],
            updatedAt: 3,
          }),
        );
        assert.equal((await store.oauthRecords.findBearer('tok-f'))?.app.name, 'Renamed');
        await committedElsewhere(other.oauthRecords.revokeGrant('grant-f', 'AccessToken'));
        assert.equal(await store.oauthRecords.findBearer('tok-f'), undefined);
      } finally {
        await other.close();
      }
    });

    it("reads the event log in commit order: a follower never skips another process's event", async () => {
      const other = await factory.another(store);
      try {
        const start = await store.events.head();
        let n = 0;
        const write = async (on: Store, ms: number): Promise<string> => {
          n++;
          const id = formatEventId(ms, n, n.toString(16).padStart(10, '0'));
          await on.events.append([
            {
              id,
              occurredAt: ms,
              type: 'lock.locked',
              accountId: 'acc-1',
              deviceId: LOCK,
              actor: { kind: 'device' },
              method: 'manual',
              taskId: null,
              data: {},
            },
          ]);
          return id;
        };
        // Two writers whose ids interleave out of commit order (the other's clock runs behind),
        // and a follower reading what is new as they go, as the live stream does.
        const written: string[] = [];
        const seen: string[] = [];
        let last = start;
        const follow = async (): Promise<void> => {
          for (const { seq, event } of await store.events.since(last, 1_000)) {
            seen.push(event.id);
            last = seq;
          }
        };
        for (let round = 0; round < 40; round++) {
          if (concurrentWriters) {
            const [a, b] = await Promise.all([
              write(store, 50_000 + round),
              write(other, 10_000 + round),
              follow(),
            ]);
            written.push(a, b);
          } else {
            written.push(await write(store, 50_000 + round));
            await follow();
            written.push(await write(other, 10_000 + round));
          }
        }
        await follow();
        assert.deepEqual([...seen].sort(), [...written].sort());
        assert.equal(new Set(seen).size, seen.length);
      } finally {
        await other.close();
      }
    });
  });
}
