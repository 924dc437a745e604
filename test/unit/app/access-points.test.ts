/**
 * Provisioning access points (the admin CLI's use cases) against a real SQLite store.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import {
  mosquittoPasswordHasher,
  verifyMosquittoHash,
} from '../../../src/adapters/devices/mqtt/mosquitto-password.ts';
import { openSqliteStore } from '../../../src/adapters/stores/sqlite/open.ts';
import { cryptoRandom, sha256Hasher } from '../../../src/adapters/system/crypto.ts';
import { AccessPoints } from '../../../src/app/access-points.ts';
import type { Store } from '../../../src/app/ports.ts';
import type { Account } from '../../../src/domain/account.ts';
import { type DomainErrorCode, isDomainError } from '../../../src/domain/errors.ts';
import { ManualClock } from '../../support/manual-clock.ts';

function refusal(code: DomainErrorCode, message: RegExp) {
  return (error: unknown): boolean => {
    assert.ok(isDomainError(error), `not a DomainError: ${String(error)}`);
    assert.equal(error.code, code);
    assert.match(error.message, message);
    return true;
  };
}

const account = (id: string, email: string, deletedAt: number | null = null): Account => ({
  id,
  email,
  passwordHash: null,
  verified: true,
  deletedAt,
  passwordChangedAt: null,
  createdAt: 0,
});

describe('AccessPoints (provisioning use cases)', () => {
  let dir: string;
  let store: Store;
  let clock: ManualClock;
  let aps: AccessPoints;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'lockcloud-access-points-'));
    store = await openSqliteStore(dir);
    clock = new ManualClock(7_000_000);
    aps = new AccessPoints({
      store,
      clock,
      random: cryptoRandom,
      secrets: sha256Hasher,
      brokerPasswords: mosquittoPasswordHasher(),
      username: (id) => `ap-${id}`,
    });
    await store.accounts.insert(account('acc-ann', 'ann@example.com'));
    await store.accounts.insert(account('acc-bob', 'bob@example.com'));
    await store.accounts.insert(account('acc-gone', 'gone@example.com', 1));
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('registers an access point: credentials answered once, stored only as hashes', async () => {
    const [ap, ...rest] = await aps.register(' Ann@Example.com ', 'Hall');
    assert.equal(rest.length, 0);
    assert.ok(ap);
    assert.match(ap.id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.equal(ap.username, `ap-${ap.id}`);
    assert.equal(ap.name, 'Hall');
    assert.equal(ap.accountEmail, 'ann@example.com');
    assert.match(ap.secret, /^lcd_[A-Za-z0-9_-]{32}$/, '192 random bits, base64url');

    const stored = await store.accessPoints.get(ap.id);
    assert.ok(stored);
    assert.equal(stored.accountId, 'acc-ann');
    assert.equal(stored.createdAt, 7_000_000);
    assert.equal(stored.online, false);
    assert.equal(stored.lastSeenAt, null);
    assert.equal(stored.secretHash, sha256Hasher.hash(ap.secret));
    const [broker] = await store.accessPoints.brokerHashes();
    assert.ok(broker?.brokerHash);
    assert.ok(verifyMosquittoHash(ap.secret, broker.brokerHash));
    const snapshot = JSON.stringify(await store.snapshot());
    assert.ok(!snapshot.includes(ap.secret), 'the secret is stored nowhere in clear');
  });

  it('registers several at once, numbered, each with its own secret', async () => {
    const registered = await aps.register('bob@example.com', 'Shop', 3);
    assert.deepEqual(
      registered.map((ap) => ap.name),
      ['Shop 1', 'Shop 2', 'Shop 3'],
    );
    assert.equal(new Set(registered.map((ap) => ap.secret)).size, 3);
    assert.equal(new Set(registered.map((ap) => ap.id)).size, 3);
    assert.equal((await store.accessPoints.listForAccount('acc-bob')).length, 3);
  });

  it('refuses a missing or deleted account, a bad name, a bad count', async () => {
    await assert.rejects(aps.register('nobody@example.com'), refusal('ACCOUNT_NOT_FOUND', /no account/));
    await assert.rejects(aps.register('gone@example.com'), refusal('ACCOUNT_NOT_FOUND', /deleted/));
    for (const name of ['', '   ', 'x'.repeat(101), 'a\nb']) {
      await assert.rejects(aps.register('ann@example.com', name), refusal('INVALID_INPUT', /name/));
    }
    for (const count of [0, -1, 1.5, 1001, Number.NaN]) {
      await assert.rejects(aps.register('ann@example.com', 'AP', count), refusal('INVALID_INPUT', /count/));
    }
    assert.deepEqual(await store.accessPoints.list(), []);
  });

  it("lists every access point with its account's e-mail, or one account's", async () => {
    const [a] = await aps.register('ann@example.com', 'A');
    clock.advance(1);
    const [b] = await aps.register('bob@example.com', 'B');
    assert.ok(a && b);
    await store.accessPoints.setOnline(b.id, true, 7_000_500);
    const all = await aps.list();
    assert.deepEqual(
      all.map((ap) => [ap.name, ap.accountEmail, ap.online, ap.lastSeenAt]),
      [
        ['A', 'ann@example.com', false, null],
        ['B', 'bob@example.com', true, 7_000_500],
      ],
    );
    assert.deepEqual(
      (await aps.list('BOB@example.com')).map((ap) => ap.id),
      [b.id],
    );
    assert.deepEqual(await aps.list('gone@example.com'), []);
    await assert.rejects(aps.list('nobody@example.com'), refusal('ACCOUNT_NOT_FOUND', /no account/));
    assert.ok(
      all.every((ap) => !('secretHash' in ap) && !('brokerHash' in ap)),
      'never the hashes',
    );
  });

  it('removes one (any case, spaces around); refuses an unknown id', async () => {
    const [a] = await aps.register('ann@example.com');
    assert.ok(a);
    await aps.remove(`  ${a.id.toUpperCase()} `);
    assert.equal(await store.accessPoints.get(a.id), undefined);
    await assert.rejects(aps.remove(a.id), refusal('INVALID_INPUT', /no access point has the id/));
    await assert.rejects(aps.remove(randomUUID()), refusal('INVALID_INPUT', /no access point/));
  });

  it("gives the broker users by id, and counts those without a broker hash (the seed's)", async () => {
    const registered = await aps.register('ann@example.com', 'AP', 2);
    await store.accessPoints.insert({
      id: randomUUID(),
      accountId: 'acc-bob',
      name: 'Seeded',
      secretHash: 'x',
      createdAt: 0,
      online: false,
      lastSeenAt: null,
    });
    const { users, missing } = await aps.brokerUsers();
    assert.equal(missing, 1);
    assert.deepEqual(
      users.map((u) => u.apId),
      registered.map((ap) => ap.id).sort(),
    );
    for (const user of users) {
      assert.equal(user.username, `ap-${user.apId}`);
      const secret = registered.find((ap) => ap.id === user.apId)?.secret ?? '';
      assert.ok(verifyMosquittoHash(secret, user.hash));
    }
  });
});
