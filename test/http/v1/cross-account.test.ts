/**
 * No account reads or moves another account's lock through v1. The matrix is generated from the
 * seed: every account x every lock (and one that does not exist) x {GET, control}. The owner reads
 * and moves its lock; an account the lock is shared with sees it in its list but gets 403 30000;
 * any other account gets 400 11002, exactly as for a lock that does not exist.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Seed } from '../../../src/app/seed/schema.ts';
import { answer, getLock, startServer, type TestServer } from '../../support/server.ts';
import {
  control,
  expectAnswer,
  FLAGS,
  listLocks,
  login,
  NO_CONTENT,
  readLock,
  UNKNOWN_LOCK,
  V1,
} from './helpers.ts';

const id = (n: number) => `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;

const SEED = {
  accounts: ['ann', 'bob', 'cat', 'dan'].map((name) => ({
    email: `${name}@example.com`,
    password: `${name}-password`,
  })),
  api_keys: ['ann', 'bob', 'cat', 'dan'].map((name) => ({
    account: `${name}@example.com`,
    key: `${name}-api-key-000`,
  })),
  locks: [
    {
      device_id: id(0xa1),
      nickname: 'Ann front',
      owner: 'ann@example.com',
      shared_with: ['bob@example.com'],
    },
    { device_id: id(0xa2), nickname: 'Ann back', owner: 'ann@example.com' },
    {
      device_id: id(0xb1),
      nickname: 'Bob gate',
      owner: 'bob@example.com',
      shared_with: ['ann@example.com', 'cat@example.com'],
    },
    { device_id: id(0xc1), nickname: 'Cat shed', owner: 'cat@example.com' },
  ],
} satisfies Seed;

type Relation = 'owner' | 'shared' | 'none';

function relation(email: string, deviceId: string): Relation {
  const lock = SEED.locks.find((l) => l.device_id === deviceId);
  if (!lock) return 'none';
  if (lock.owner === email) return 'owner';
  return (lock.shared_with ?? []).includes(email) ? 'shared' : 'none';
}

const REFUSAL: Record<Exclude<Relation, 'owner'>, { status: number; body: unknown }> = {
  shared: V1.NOT_OWNER,
  none: V1.LOCK_NOT_FOUND,
};

const keyOf = (email: string) => `${email.split('@')[0]}-api-key-000`;
const ownerOf = (deviceId: string) => SEED.locks.find((l) => l.device_id === deviceId)?.owner ?? '';

describe('v1 across accounts: the generated matrix', () => {
  let t: TestServer;
  const tokens = new Map<string, string>();
  const emails = SEED.accounts.map((a) => a.email);
  const lockIds = [...SEED.locks.map((l) => l.device_id), UNKNOWN_LOCK];

  before(async () => {
    t = await startServer({ seed: SEED, flags: FLAGS });
    for (const a of SEED.accounts) tokens.set(a.email, await login(t, a.email, a.password));
  });
  after(() => t.close());

  /** The lock as its owner sees it in v3 (locked or not). */
  async function lockedForOwner(deviceId: string): Promise<boolean> {
    const { status, body } = await answer(await getLock(t, deviceId, keyOf(ownerOf(deviceId))));
    assert.equal(status, 200);
    return (body as { locked: boolean }).locked;
  }

  it('has every relation in it', () => {
    const seen = new Set(emails.flatMap((e) => lockIds.map((l) => relation(e, l))));
    assert.deepEqual([...seen].sort(), ['none', 'owner', 'shared']);
  });

  it('lists for each account exactly the locks it owns and those shared with it', async () => {
    for (const email of emails) {
      const { status, body } = await answer(await listLocks(t, tokens.get(email) ?? ''));
      assert.equal(status, 200, email);
      const listed = (body as { locks: { device_id: string }[] }).locks.map((l) => l.device_id).sort();
      const expected = SEED.locks
        .filter((l) => relation(email, l.device_id) !== 'none')
        .map((l) => l.device_id)
        .sort();
      assert.deepEqual(listed, expected, email);
    }
  });

  for (const { email } of SEED.accounts) {
    it(`${email}: GET and control of every lock answer as the relation says, and nothing else moves`, async () => {
      const token = tokens.get(email) ?? '';
      for (const deviceId of lockIds) {
        const rel = relation(email, deviceId);
        const what = `${email} -> ${deviceId} (${rel})`;
        if (rel === 'owner') {
          const lock = SEED.locks.find((l) => l.device_id === deviceId);
          await expectAnswer(
            await readLock(t, token, deviceId),
            {
              status: 200,
              body: { nickname: lock?.nickname, is_unlocked: false, api_enabled: true, battery: 100 },
            },
            `GET ${what}`,
          );
          await expectAnswer(await control(t, token, deviceId, 'unlock'), NO_CONTENT, `unlock ${what}`);
          assert.equal(await lockedForOwner(deviceId), false, what);
          await expectAnswer(await control(t, token, deviceId, 'lock'), NO_CONTENT, `lock ${what}`);
          assert.equal(await lockedForOwner(deviceId), true, what);
          continue;
        }
        await expectAnswer(await readLock(t, token, deviceId), REFUSAL[rel], `GET ${what}`);
        await expectAnswer(
          await readLock(t, token, deviceId.toUpperCase()),
          REFUSAL[rel],
          `GET ${what} upper`,
        );
        for (const type of ['unlock', 'lock']) {
          await expectAnswer(await control(t, token, deviceId, type), REFUSAL[rel], `${type} ${what}`);
        }
        if (deviceId !== UNKNOWN_LOCK)
          assert.equal(await lockedForOwner(deviceId), true, `${what} did not move`);
      }
    });
  }
});
