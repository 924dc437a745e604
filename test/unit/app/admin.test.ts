/**
 * The admin use cases against a real SQLite store and a clock that moves only when told.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { openSqliteStore } from '../../../src/adapters/stores/sqlite/open.ts';
import { scryptHasher, sha256Hasher } from '../../../src/adapters/system/crypto.ts';
import { Admin } from '../../../src/app/admin.ts';
import { ApiKeyAuth } from '../../../src/app/auth.ts';
import type { Store } from '../../../src/app/ports.ts';
import { type DomainErrorCode, isDomainError } from '../../../src/domain/errors.ts';
import { initialHealth, type Lock } from '../../../src/domain/lock.ts';
import { ManualClock } from '../../support/manual-clock.ts';

const passwords = scryptHasher({ N: 1024, r: 8, p: 1 });
const DEVICE = '00000000-0000-4000-8000-00000000000a';

const lock = (deviceId: string, ownerId: string): Lock => ({
  ...initialHealth(90),
  deviceId,
  serial: 'S',
  nickname: 'N',
  ownerId,
  locked: true,
  battery: 80,
  responsive: true,
  integration: true,
  accessPoint: true,
  appOpen: false,
  accessPointId: null,
  createdAt: 0,
});

/** A rejection with this domain code whose message matches: the CLI shows only the message. */
function refusal(code: DomainErrorCode, message: RegExp) {
  return (error: unknown): boolean => {
    assert.ok(isDomainError(error), `not a DomainError: ${String(error)}`);
    assert.equal(error.code, code);
    assert.match(error.message, message);
    return true;
  };
}

describe('Admin (use cases)', () => {
  let dir: string;
  let store: Store;
  let clock: ManualClock;
  let admin: Admin;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'lockcloud-admin-'));
    store = await openSqliteStore(dir);
    clock = new ManualClock(5_000_000);
    let n = 0;
    admin = new Admin({
      store,
      passwords,
      secrets: sha256Hasher,
      clock,
      random: { uuid: () => `acc-${++n}`, secret: () => 'x' },
    });
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  describe('createAccount', () => {
    it('stores a normalized e-mail and a verifiable password hash, never the password', async () => {
      const created = await admin.createAccount('  Ann@Example.COM ', {
        password: 'password-1',
        verified: true,
      });
      assert.deepEqual(created, {
        id: 'acc-1',
        email: 'ann@example.com',
        verified: true,
        hasPassword: true,
        deletedAt: null,
        createdAt: 5_000_000,
        locksOwned: 0,
      });
      const stored = await store.accounts.findByEmail('ann@example.com');
      assert.ok(stored?.passwordHash);
      assert.match(stored.passwordHash, /^scrypt\$/);
      assert.equal(await passwords.verify('password-1', stored.passwordHash), true);
      assert.equal(stored.passwordChangedAt, null);
      assert.equal(stored.verified, true);
    });

    it('creates a social-login account (no password), unverified when asked', async () => {
      await admin.createAccount('bob@example.com', { password: null, verified: false });
      const stored = await store.accounts.findByEmail('bob@example.com');
      assert.equal(stored?.passwordHash, null);
      assert.equal(stored?.verified, false);
    });

    it('refuses what is not an e-mail address, naming it', async () => {
      await assert.rejects(
        admin.createAccount('not-an-email', { password: 'password-0', verified: true }),
        refusal('INVALID_INPUT', /"not-an-email" is not an e-mail address/),
      );
      assert.deepEqual(await store.accounts.list(), []);
    });

    it('refuses an e-mail that exists in any case, and the address of a deleted account', async () => {
      await admin.createAccount('ann@example.com', { password: 'password-0', verified: true });
      await assert.rejects(
        admin.createAccount('ANN@example.com', { password: null, verified: true }),
        refusal('CONFLICT', /account with the e-mail ann@example\.com already exists$/),
      );
      await admin.deleteAccount('ann@example.com');
      await assert.rejects(
        admin.createAccount('ann@example.com', { password: 'password-0', verified: true }),
        refusal('CONFLICT', /already exists \(deleted/),
      );
    });

    it('refuses an empty password', async () => {
      await assert.rejects(
        admin.createAccount('ann@example.com', { password: '', verified: true }),
        refusal('INVALID_INPUT', /password must not be empty/),
      );
    });

    it("holds a password to the dashboard's rule: 8 to 200 characters", async () => {
      for (const [password, rule] of [
        ['x', /the password must be at least 8 characters/],
        ['seven77', /at least 8/],
        ['y'.repeat(201), /the password must be at most 200 characters/],
      ] as const)
        await assert.rejects(
          admin.createAccount('ann@example.com', { password, verified: true }),
          refusal('INVALID_INPUT', rule),
        );
      assert.deepEqual(await store.accounts.list(), []);
      await admin.createAccount('ann@example.com', { password: 'eight888', verified: true });
      await admin.createAccount('bob@example.com', { password: 'z'.repeat(200), verified: true });
    });
  });

  describe('setPassword', () => {
    it('replaces the hash and records the change time, so earlier tokens expire', async () => {
      await admin.createAccount('ann@example.com', { password: 'old-password', verified: true });
      clock.advance(60_000);
      await admin.setPassword('Ann@example.com', 'new-password');
      const stored = await store.accounts.findByEmail('ann@example.com');
      assert.ok(stored?.passwordHash);
      assert.equal(await passwords.verify('new-password', stored.passwordHash), true);
      assert.equal(await passwords.verify('old-password', stored.passwordHash), false);
      assert.equal(stored.passwordChangedAt, 5_060_000);
    });

    it('gives a social-login account a password', async () => {
      await admin.createAccount('bob@example.com', { password: null, verified: true });
      await admin.setPassword('bob@example.com', 'password-0');
      const stored = await store.accounts.findByEmail('bob@example.com');
      assert.equal(await passwords.verify('password-0', stored?.passwordHash ?? ''), true);
    });

    it('refuses an unknown or deleted account and an empty password', async () => {
      await assert.rejects(
        admin.setPassword('nobody@example.com', 'password-0'),
        refusal('ACCOUNT_NOT_FOUND', /no account has the e-mail nobody@example\.com/),
      );
      await admin.createAccount('ann@example.com', { password: 'password-0', verified: true });
      await assert.rejects(
        admin.setPassword('ann@example.com', ''),
        refusal('INVALID_INPUT', /must not be empty/),
      );
      await assert.rejects(
        admin.setPassword('ann@example.com', 'short'),
        refusal('INVALID_INPUT', /the password must be at least 8 characters/),
      );
      await admin.deleteAccount('ann@example.com');
      await assert.rejects(
        admin.setPassword('ann@example.com', 'password-2'),
        refusal('ACCOUNT_NOT_FOUND', /ann@example\.com is deleted/),
      );
    });
  });

  describe('verify', () => {
    it('marks the address verified once; a second time is reported as no change', async () => {
      await admin.createAccount('ann@example.com', { password: 'password-0', verified: false });
      assert.equal(await admin.verify('ann@example.com'), true);
      assert.equal((await store.accounts.findByEmail('ann@example.com'))?.verified, true);
      assert.equal(await admin.verify('ann@example.com'), false);
      await assert.rejects(admin.verify('nobody@example.com'), refusal('ACCOUNT_NOT_FOUND', /nobody/));
    });
  });

  describe('deleteAccount', () => {
    it('sets deletedAt once, after which its API keys are refused', async () => {
      const { id } = await admin.createAccount('ann@example.com', { password: 'password-0', verified: true });
      await store.apiKeys.insert({
        id: 'k1',
        accountId: id,
        hash: sha256Hasher.hash('key-1'),
        prefix: 'key-1',
        createdAt: 0,
      });
      const auth = new ApiKeyAuth(store.apiKeys, sha256Hasher, clock);
      assert.equal((await auth.fromKey('key-1')).accountId, id);

      clock.advance(1_000);
      assert.equal(await admin.deleteAccount('ANN@example.com'), true);
      assert.equal((await store.accounts.findByEmail('ann@example.com'))?.deletedAt, 5_001_000);
      await assert.rejects(auth.fromKey('key-1'), refusal('UNAUTHENTICATED', /UNAUTHENTICATED/));

      clock.advance(1_000);
      assert.equal(await admin.deleteAccount('ann@example.com'), false);
      assert.equal((await store.accounts.findByEmail('ann@example.com'))?.deletedAt, 5_001_000);
      await assert.rejects(admin.deleteAccount('nobody@example.com'), refusal('ACCOUNT_NOT_FOUND', /nobody/));
    });
  });

  describe('shareLock', () => {
    // A share is an accepted view grant (issue 23); its id and time are the store's own.
    const shares = async () =>
      ((await store.snapshot()).grants ?? []).map(({ device_id, account_id, role, state }) => ({
        device_id,
        account_id,
        role,
        state,
      }));

    it('shares an existing lock with another account (whatever the case of the id), twice harmlessly', async () => {
      const owner = await admin.createAccount('owner@example.com', {
        password: 'password-0',
        verified: true,
      });
      const guest = await admin.createAccount('guest@example.com', { password: null, verified: true });
      await store.locks.insert(lock(DEVICE, owner.id));
      await admin.shareLock(DEVICE.toUpperCase(), 'Guest@example.com');
      await admin.shareLock(DEVICE, 'guest@example.com');
      assert.deepEqual(await shares(), [
        { device_id: DEVICE, account_id: guest.id, role: 'view', state: 'accepted' },
      ]);
    });

    it('refuses an unknown lock, an unknown or deleted account, and the owner', async () => {
      const owner = await admin.createAccount('owner@example.com', {
        password: 'password-0',
        verified: true,
      });
      await admin.createAccount('gone@example.com', { password: 'password-0', verified: true });
      await admin.deleteAccount('gone@example.com');
      await store.locks.insert(lock(DEVICE, owner.id));
      await assert.rejects(
        admin.shareLock('00000000-0000-4000-8000-0000000000ff', 'owner@example.com'),
        refusal('LOCK_NOT_FOUND', /no lock has the device id 00000000-0000-4000-8000-0000000000ff/),
      );
      await assert.rejects(
        admin.shareLock(DEVICE, 'nobody@example.com'),
        refusal('ACCOUNT_NOT_FOUND', /nobody@example\.com/),
      );
      await assert.rejects(
        admin.shareLock(DEVICE, 'gone@example.com'),
        refusal('ACCOUNT_NOT_FOUND', /deleted/),
      );
      await assert.rejects(
        admin.shareLock(DEVICE, 'owner@example.com'),
        refusal('CONFLICT', /owner@example\.com owns lock/),
      );
      assert.deepEqual(await shares(), []);
    });
  });

  describe('listAccounts', () => {
    it('lists every account by e-mail with its state and the number of locks it owns, without hashes', async () => {
      const zed = await admin.createAccount('zed@example.com', { password: 'password-0', verified: true });
      await admin.createAccount('amy@example.com', { password: null, verified: false });
      await admin.createAccount('max@example.com', { password: 'password-0', verified: true });
      await store.locks.insert(lock(DEVICE, zed.id));
      await store.locks.insert(lock('00000000-0000-4000-8000-00000000000b', zed.id));
      clock.advance(1);
      await admin.deleteAccount('max@example.com');

      const listed = await admin.listAccounts();
      assert.deepEqual(
        listed.map(({ email, verified, hasPassword, deletedAt, locksOwned }) => ({
          email,
          verified,
          hasPassword,
          deletedAt,
          locksOwned,
        })),
        [
          { email: 'amy@example.com', verified: false, hasPassword: false, deletedAt: null, locksOwned: 0 },
          {
            email: 'max@example.com',
            verified: true,
            hasPassword: true,
            deletedAt: 5_000_001,
            locksOwned: 0,
          },
          { email: 'zed@example.com', verified: true, hasPassword: true, deletedAt: null, locksOwned: 2 },
        ],
      );
      assert.doesNotMatch(JSON.stringify(listed), /scrypt/);
    });
  });

  describe('blocks', () => {
    it('lists the blocks still in force and lifts one', async () => {
      const now = clock.now();
      await store.blocks.block({ ip: '203.0.113.7', blockedAt: now - 1_000, until: now + 1_800_000 });
      await store.blocks.block({ ip: '203.0.113.8', blockedAt: now - 3_600_000, until: now - 1 });
      assert.deepEqual(
        (await admin.listBlocks()).map((b) => b.ip),
        ['203.0.113.7'],
      );
      assert.equal(await admin.unblock(' 203.0.113.7 '), true);
      assert.equal(await admin.unblock('203.0.113.7'), false);
      assert.deepEqual(await admin.listBlocks(), []);
    });
  });
});
