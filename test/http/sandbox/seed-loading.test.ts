/** Loading a seed into a fresh data directory: determinism, hashing, defaults, and existing data. */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { afterEach, describe, it } from 'node:test';
import type { Seed } from '../../../src/app/seed/schema.ts';
import {
  cheapPasswords,
  LOCK_A,
  LOCK_B,
  OTHER_KEY,
  OTHER_LOCK,
  OWNER_KEY,
  sendCommand,
  standardSeed,
  startServer,
  type TestServer,
} from '../../support/server.ts';
import {
  freshDataDir,
  json,
  lockStatus,
  snapshotOf,
  withoutDeviceSecrets,
  withoutPasswordHashes,
} from './helpers.ts';

const UPPER_LOCK = 'ABCDEF01-2345-4678-9ABC-DEF012345678';

/** Every kind of entry the seed format has, with defaults left out where they can be. */
function richSeed(): Seed {
  return {
    accounts: [
      { email: 'abc@example.com', password: 'super-strong-password', verified: true },
      { email: 'Social@Example.com', password: null, verified: true },
      { email: 'new@example.com', password: 'pw-123456', verified: false },
      { email: 'bare@example.com' },
    ],
    api_keys: [
      { account: 'ABC@example.com', key: 'test-api-key' },
      { account: 'bare@example.com', key: 'bare-api-key-1' },
    ],
    locks: [
      {
        device_id: '00000000-0000-0000-0000-000000000001',
        serial: 'ABC1234567',
        nickname: 'Front door',
        owner: 'abc@example.com',
        shared_with: ['social@example.com'],
        locked: true,
        battery: 100,
        responsive: true,
        integration: true,
        access_point: true,
        latency_ms: 0,
      },
      { device_id: UPPER_LOCK, owner: 'abc@example.com' },
      { device_id: '00000000-0000-0000-0000-000000000003', owner: 'abc@example.com', access_point: false },
      {
        device_id: '00000000-0000-0000-0000-000000000004',
        owner: 'bare@example.com',
        locked: false,
        battery: 9,
      },
    ],
    webhooks: [
      { account: 'abc@example.com', method: 'POST', url: 'http://127.0.0.1:9999/hook/{device_id}/{state}' },
    ],
  };
}

/** Answers a v3 client sees, for comparing two servers. */
async function apiView(t: TestServer, keys: readonly string[]): Promise<unknown> {
  const view: Record<string, unknown> = {};
  for (const key of keys) {
    const locks = (await (await t.request('/public/locks', { key })).json()) as { device_id: string }[];
    view[key] = { locks, status: await Promise.all(locks.map((l) => lockStatus(t, l.device_id, key))) };
  }
  return view;
}

describe('seed loading', () => {
  const servers: TestServer[] = [];
  const dirs: string[] = [];
  afterEach(async () => {
    for (const t of servers.splice(0)) await t.close();
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  const start = async (...args: Parameters<typeof startServer>): Promise<TestServer> => {
    const t = await startServer(...args);
    servers.push(t);
    return t;
  };

  it('the same seed in two fresh data directories gives identical stored data', async () => {
    for (const seed of [standardSeed(), richSeed()]) {
      const a = await start({ seed });
      // A later start (after the first server's whole start) must not change the data.
      const b = await start({ seed });
      assert.equal(a.server.report.kind, 'seeded');
      assert.equal(b.server.report.kind, 'seeded');
      const snapA = await snapshotOf(a);
      const snapB = await snapshotOf(b);
      assert.ok((snapA.accounts?.length ?? 0) > 0 && (snapA.locks?.length ?? 0) > 0);
      assert.deepEqual(
        withoutDeviceSecrets(withoutPasswordHashes(snapA)),
        withoutDeviceSecrets(withoutPasswordHashes(snapB)),
      );
    }
  });

  it('the same seed in two fresh data directories gives identical API answers', async () => {
    const a = await start();
    const b = await start();
    assert.deepEqual(await apiView(a, [OWNER_KEY, OTHER_KEY]), await apiView(b, [OWNER_KEY, OTHER_KEY]));
    const c = await start({ seed: richSeed() });
    const d = await start({ seed: richSeed() });
    assert.deepEqual(
      await apiView(c, ['test-api-key', 'bare-api-key-1']),
      await apiView(d, ['test-api-key', 'bare-api-key-1']),
    );
  });

  it('stores no password or key in clear, and the password hashes verify', async () => {
    const t = await start({ seed: richSeed() });
    const text = JSON.stringify(await snapshotOf(t));
    for (const secret of ['super-strong-password', 'pw-123456', 'test-api-key', 'bare-api-key-1']) {
      assert.ok(!text.includes(secret), `${secret} stored in clear`);
    }
    const { store } = t.server;
    const passwords = cheapPasswords;
    const abc = await store.accounts.findByEmail('abc@example.com');
    assert.ok(abc?.passwordHash);
    assert.equal(await passwords.verify('super-strong-password', abc.passwordHash), true);
    assert.equal(
      (await store.accounts.findByEmail('social@example.com'))?.passwordHash,
      null,
      'social login: no password',
    );
    assert.equal((await store.accounts.findByEmail('new@example.com'))?.verified, false);
    assert.equal(
      (await store.accounts.findByEmail('bare@example.com'))?.verified,
      true,
      'verified by default',
    );
    assert.equal(
      (await store.accounts.findByEmail('bare@example.com'))?.passwordHash,
      null,
      'no password by default',
    );
  });

  it('keeps the ids, keys and states of the file, with the documented defaults', async () => {
    const t = await start({ seed: richSeed() });
    const res = await t.request('/public/locks', { key: 'test-api-key' });
    assert.deepEqual(await res.json(), [
      { device_id: '00000000-0000-0000-0000-000000000001', serial: 'ABC1234567', nickname: 'Front door' },
      { device_id: UPPER_LOCK.toLowerCase(), serial: 'DEF012345678'.slice(-10), nickname: 'Lock F012345678' },
      {
        device_id: '00000000-0000-0000-0000-000000000003',
        serial: '0000000003',
        nickname: 'Lock 0000000003',
      },
    ]);
    assert.deepEqual(await lockStatus(t, UPPER_LOCK.toLowerCase(), 'test-api-key'), {
      locked: true,
      battery: 100,
      responsive: true,
    });
    assert.deepEqual(await lockStatus(t, '00000000-0000-0000-0000-000000000004', 'bare-api-key-1'), {
      locked: false,
      battery: 9,
      responsive: true,
    });
    // access_point: false is a lock not paired with an access point.
    assert.equal(
      (await lockStatus(t, '00000000-0000-0000-0000-000000000003', 'test-api-key')).responsive,
      false,
    );
    const refused = await sendCommand(t, '00000000-0000-0000-0000-000000000003', 'sync', 'test-api-key');
    assert.deepEqual(await refused.json(), { error: 'CLOUD_INTEGRATION_NOT_ENABLED' });
    const sim = await json(await t.request(`/_sim/locks/${UPPER_LOCK}`, { method: 'POST', json: {} }));
    assert.deepEqual(sim, {
      device_id: UPPER_LOCK.toLowerCase(),
      locked: true,
      battery: 100,
      responsive: true,
      integration: true,
      access_point: true,
      app_open: false,
      latency_ms: 0,
      fail_next: null,
      jammed: false,
      door: 'closed',
      firmware: 'lockcloud-sim-lock/2',
      auto_lock_seconds: 0,
      protocol_version: 2,
    });
    const { store } = t.server;
    const abc = await store.accounts.findByEmail('abc@example.com');
    assert.ok(abc);
    assert.deepEqual(await store.webhooks.get(abc.id), {
      accountId: abc.id,
      method: 'POST',
      url: 'http://127.0.0.1:9999/hook/{device_id}/{state}',
      retries: false,
    });
  });

  it('a data directory that already holds data ignores a seed', async () => {
    const dataDir = freshDataDir();
    dirs.push(dataDir);
    const first = await startServer({ dataDir });
    const before = await snapshotOf(first);
    await first.close();

    const other: Seed = {
      accounts: [{ email: 'intruder@example.com', password: 'intruder-password' }],
      api_keys: [{ account: 'intruder@example.com', key: 'intruder-api-key' }],
    };
    const t = await start({ dataDir, seed: other });
    assert.deepEqual(t.server.report, { kind: 'existing', seedIgnored: true, demoData: false });
    assert.deepEqual(await snapshotOf(t), before);
    assert.equal((await t.request('/public/locks', { key: 'intruder-api-key' })).status, 401);
    assert.equal((await t.request('/public/locks', { key: OWNER_KEY })).status, 200);
  });

  it('a restart without a seed keeps the data and reports it as existing', async () => {
    const dataDir = freshDataDir();
    dirs.push(dataDir);
    const first = await startServer({ dataDir });
    await first.close();
    const t = await start({ dataDir, seed: null });
    assert.deepEqual(t.server.report, { kind: 'existing', seedIgnored: false, demoData: false });
    assert.deepEqual(await lockStatus(t, LOCK_B), { locked: false, battery: 55, responsive: true });
    assert.equal((await t.request(`/public/lock/${OTHER_LOCK}`, { key: OTHER_KEY })).status, 200);
    assert.equal((await t.request(`/public/lock/${LOCK_A}`, { key: OWNER_KEY })).status, 200);
  });
});
