import assert from 'node:assert/strict';
import { existsSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, it } from 'node:test';
import { scryptHasher } from '../../../src/adapters/system/crypto.ts';
import type { Seed } from '../../../src/app/seed/schema.ts';
import { parseSeed, SeedError, validateSeed } from '../../../src/app/seed/validate.ts';
import { loadConfig } from '../../../src/config/config.ts';
import { createServer, StartupError } from '../../../src/main.ts';
import {
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
import { freshDataDir, json, lockStatus, snapshotOf, withoutPasswordHashes } from './helpers.ts';

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
      await new Promise((r) => setTimeout(r, 5)); // a later start must not change the data
      const b = await start({ seed });
      assert.equal(a.server.report.kind, 'seeded');
      assert.equal(b.server.report.kind, 'seeded');
      const snapA = await snapshotOf(a);
      const snapB = await snapshotOf(b);
      assert.ok((snapA.accounts?.length ?? 0) > 0 && (snapA.locks?.length ?? 0) > 0);
      assert.deepEqual(withoutPasswordHashes(snapA), withoutPasswordHashes(snapB));
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
    const { store, passwords } = t.server.lockcloud.deps;
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
    });
    const { store } = t.server.lockcloud.deps;
    const abc = await store.accounts.findByEmail('abc@example.com');
    assert.ok(abc);
    assert.deepEqual(await store.webhooks.get(abc.id), {
      accountId: abc.id,
      method: 'POST',
      url: 'http://127.0.0.1:9999/hook/{device_id}/{state}',
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

describe('seed validation (validateSeed, parseSeed)', () => {
  const ok = (): Record<string, unknown> => ({
    accounts: [{ email: 'a@example.com' }, { email: 'b@example.com' }],
    api_keys: [{ account: 'a@example.com', key: 'key-of-a-0001' }],
    locks: [{ device_id: '00000000-0000-0000-0000-000000000001', owner: 'a@example.com' }],
    webhooks: [{ account: 'a@example.com', url: 'https://example.com/hook' }],
  });
  const lockWith = (fields: Record<string, unknown>): Record<string, unknown> => ({
    ...ok(),
    locks: [{ device_id: '00000000-0000-0000-0000-000000000001', owner: 'a@example.com', ...fields }],
  });

  /** The problems validateSeed reports for `input`; fails if it accepts it. */
  const problems = (input: unknown): readonly string[] => {
    try {
      validateSeed(input);
    } catch (error) {
      assert.ok(error instanceof SeedError, String(error));
      assert.ok(error.message.includes(error.problems[0] ?? '<none>'), 'the message lists the problems');
      return error.problems;
    }
    assert.fail(`accepted ${JSON.stringify(input)}`);
  };
  const assertProblem = (input: unknown, field: string, ...words: string[]): void => {
    const found = problems(input);
    const hit = found.find((p) => p.startsWith(`${field}:`) && words.every((w) => p.includes(w)));
    assert.ok(hit, `no problem for ${field} ${words.join(' ')} in ${JSON.stringify(found)}`);
  };

  it('accepts a good seed and the example of SANDBOX.md, and returns it', () => {
    const seed = ok();
    assert.equal(validateSeed(seed), seed);
    assert.deepEqual(validateSeed({}), {});
    const example = `{
      "accounts": [
        {"email": "abc@example.com", "password": "super-strong-password", "verified": true},
        {"email": "social@example.com", "password": null, "verified": true},
        {"email": "new@example.com", "password": "pw-123456", "verified": false}
      ],
      "api_keys": [{"account": "abc@example.com", "key": "test-api-key"}],
      "locks": [
        {"device_id": "00000000-0000-0000-0000-000000000001", "serial": "ABC1234567",
         "nickname": "Front door", "owner": "abc@example.com", "shared_with": ["social@example.com"],
         "locked": true, "battery": 100, "responsive": true, "integration": true,
         "access_point": true, "latency_ms": 0}
      ],
      "webhooks": [{"account": "abc@example.com", "method": "POST",
                    "url": "http://127.0.0.1:9999/hook/{device_id}/{state}"}]
    }`;
    assert.equal(parseSeed(example).locks?.[0]?.serial, 'ABC1234567');
  });

  it('names a field with a value out of range: seed.locks[0].battery', () => {
    assertProblem(lockWith({ battery: 101 }), 'seed.locks[0].battery');
    assertProblem(lockWith({ battery: -1 }), 'seed.locks[0].battery');
    assertProblem(lockWith({ battery: 50.5 }), 'seed.locks[0].battery');
    assertProblem(lockWith({ battery: '100' }), 'seed.locks[0].battery');
    assertProblem(lockWith({ latency_ms: -5 }), 'seed.locks[0].latency_ms');
    assertProblem(lockWith({ locked: 'yes' }), 'seed.locks[0].locked');
  });

  it('names an unknown field, at the top and inside an entry', () => {
    assertProblem({ ...ok(), devices: [] }, 'seed.devices', 'not a known field');
    assertProblem(lockWith({ colour: 'red' }), 'seed.locks[0].colour', 'not a known field');
    assertProblem(
      { ...ok(), accounts: [{ email: 'a@example.com', admin: true }] },
      'seed.accounts[0].admin',
      'not a known field',
    );
  });

  it('names a missing required field', () => {
    const found = problems({ ...ok(), locks: [{ device_id: '00000000-0000-0000-0000-000000000001' }] });
    assert.ok(
      found.some((p) => p.startsWith('seed.locks[0]') && p.includes('owner')),
      JSON.stringify(found),
    );
    const noEmail = problems({ accounts: [{ password: 'x-password' }] });
    assert.ok(
      noEmail.some((p) => p.startsWith('seed.accounts[0]') && p.includes('email')),
      JSON.stringify(noEmail),
    );
  });

  it('names an owner, a share, a key or a webhook whose account is not in seed.accounts', () => {
    assertProblem(lockWith({ owner: 'ghost@example.com' }), 'seed.locks[0].owner', 'ghost@example.com');
    assertProblem(
      lockWith({ shared_with: ['ghost@example.com'] }),
      'seed.locks[0].shared_with[0]',
      'ghost@example.com',
    );
    assertProblem(
      { ...ok(), api_keys: [{ account: 'ghost@example.com', key: 'some-key-123' }] },
      'seed.api_keys[0].account',
    );
    assertProblem(
      { ...ok(), webhooks: [{ account: 'ghost@example.com', url: 'https://x.example/h' }] },
      'seed.webhooks[0].account',
    );
  });

  it('names a duplicate device_id, also when it differs only in case', () => {
    const id = '0000000a-0000-0000-0000-000000000001';
    const dup = {
      ...ok(),
      locks: [
        { device_id: id, owner: 'a@example.com' },
        { device_id: id, owner: 'b@example.com' },
      ],
    };
    assertProblem(dup, 'seed.locks[1].device_id', 'twice');
    const cased = {
      ...ok(),
      locks: [
        { device_id: id, owner: 'a@example.com' },
        { device_id: id.toUpperCase(), owner: 'b@example.com' },
      ],
    };
    assertProblem(cased, 'seed.locks[1].device_id', 'twice');
  });

  it('names a duplicate e-mail (whatever its case), a duplicate key and a second webhook for one account', () => {
    assertProblem(
      { accounts: [{ email: 'a@example.com' }, { email: 'A@Example.com' }] },
      'seed.accounts[1].email',
      'twice',
    );
    assertProblem(
      {
        ...ok(),
        api_keys: [
          { account: 'a@example.com', key: 'same-key-0001' },
          { account: 'b@example.com', key: 'same-key-0001' },
        ],
      },
      'seed.api_keys[1].key',
    );
    assertProblem(
      {
        ...ok(),
        webhooks: [
          { account: 'a@example.com', url: 'https://x.example/1' },
          { account: 'A@example.com', url: 'https://x.example/2' },
        ],
      },
      'seed.webhooks[1].account',
    );
  });

  it('refuses sharing a lock with its owner', () => {
    assertProblem(lockWith({ shared_with: ['A@example.com'] }), 'seed.locks[0].shared_with[0]', 'owner');
  });

  it('names a device_id that is not a UUID, and other malformed values', () => {
    assertProblem(lockWith({ device_id: 'not-a-uuid' }), 'seed.locks[0].device_id');
    assertProblem(lockWith({ device_id: '00000000-0000-0000-0000-00000000000' }), 'seed.locks[0].device_id');
    assertProblem({ accounts: [{ email: 'not-an-email' }] }, 'seed.accounts[0].email');
    assertProblem(
      { ...ok(), api_keys: [{ account: 'a@example.com', key: 'short' }] },
      'seed.api_keys[0].key',
    );
    assertProblem(
      { ...ok(), api_keys: [{ account: 'a@example.com', key: 'has a space' }] },
      'seed.api_keys[0].key',
    );
    assertProblem(
      { ...ok(), webhooks: [{ account: 'a@example.com', url: 'ftp://x.example/h' }] },
      'seed.webhooks[0].url',
    );
    assertProblem(
      { ...ok(), webhooks: [{ account: 'a@example.com', url: 'https://x.example/h', method: 'PUT' }] },
      'seed.webhooks[0].method',
    );
  });

  it('reports every schema problem at once', () => {
    const found = problems({
      accounts: [{ email: 'a@example.com', password: 5 }],
      locks: [{ device_id: 'x', owner: 'a@example.com', battery: 200 }],
      extra: true,
    });
    for (const field of [
      'seed.accounts[0].password',
      'seed.locks[0].device_id',
      'seed.locks[0].battery',
      'seed.extra',
    ]) {
      assert.ok(
        found.some((p) => p.startsWith(`${field}:`)),
        `${field} missing from ${JSON.stringify(found)}`,
      );
    }
  });

  it('refuses a seed that is not an object, and parseSeed refuses text that is not JSON', () => {
    for (const input of [null, [], 'seed', 42]) assertProblem(input, 'seed');
    assert.throws(
      () => parseSeed('{"accounts": ['),
      (error: unknown) => error instanceof SeedError && /^seed: not valid JSON/.test(error.problems[0] ?? ''),
    );
    assert.throws(
      () =>
        parseSeed('{"locks":[{"device_id":"00000000-0000-0000-0000-000000000001","owner":"x@example.com"}]}'),
      (error: unknown) => error instanceof SeedError && error.message.includes('seed.locks[0].owner'),
    );
  });
});

describe('createServer with a bad seed file', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  const passwords = scryptHasher({ N: 1024, r: 8, p: 1 });

  const startWith = (seedText: string | undefined): { run: Promise<unknown>; dataDir: string } => {
    const dir = freshDataDir();
    dirs.push(dir);
    const dataDir = join(dir, 'data');
    const seedFile = join(dir, 'seed.json');
    if (seedText !== undefined) writeFileSync(seedFile, seedText);
    const config = loadConfig({}, [
      '--port',
      '0',
      '--data',
      dataDir,
      '--seed',
      seedFile,
      '--log-level',
      'silent',
    ]);
    return { run: createServer(config, { passwords }), dataDir };
  };

  it('refuses to start, naming the field, and leaves the data directory untouched', async () => {
    const seed = standardSeed();
    const bad = { ...seed, locks: [{ ...seed.locks?.[0], battery: 150 }] };
    const { run, dataDir } = startWith(JSON.stringify(bad));
    await assert.rejects(
      run,
      (error: unknown) => error instanceof SeedError && error.message.includes('seed.locks[0].battery'),
    );
    assert.ok(!existsSync(dataDir) || readdirSync(dataDir).length === 0, 'nothing was created');
  });

  it('refuses an owner that is not in the accounts and a duplicate device id', async () => {
    const seed = standardSeed();
    const locks = seed.locks ?? [];
    const bad = { ...seed, locks: [...locks, { device_id: LOCK_A, owner: 'ghost@example.com' }] };
    const { run } = startWith(JSON.stringify(bad));
    await assert.rejects(
      run,
      (error: unknown) =>
        error instanceof SeedError &&
        error.message.includes(`seed.locks[${locks.length}].device_id`) &&
        error.message.includes(`seed.locks[${locks.length}].owner`),
    );
  });

  it('refuses a seed file that is not JSON', async () => {
    const { run } = startWith('{ not json');
    await assert.rejects(
      run,
      (error: unknown) => error instanceof SeedError && error.message.includes('not valid JSON'),
    );
  });

  it('refuses a seed file that cannot be read with a StartupError naming it', async () => {
    const { run } = startWith(undefined);
    await assert.rejects(
      run,
      (error: unknown) => error instanceof StartupError && error.message.includes('seed.json'),
    );
  });

  it('starts with a good seed file through the same path', async () => {
    const { run } = startWith(
      JSON.stringify({ ...standardSeed(), locks: [{ device_id: LOCK_B, owner: 'owner@example.com' }] }),
    );
    const server = (await run) as Awaited<ReturnType<typeof createServer>>;
    try {
      assert.equal(server.report.kind, 'seeded');
    } finally {
      await server.close();
    }
  });
});
