import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { afterEach, describe, it } from 'node:test';
import { DEMO_EMAIL, DEMO_META_KEY } from '../../../src/app/demo.ts';
import { loadConfig } from '../../../src/config/config.ts';
import { createServer, StartupError } from '../../../src/main.ts';
import {
  cheapPasswords,
  LOCK_A,
  OWNER,
  OWNER_KEY,
  sendCommand,
  startServer,
  type TestServer,
} from '../../support/server.ts';
import { freshDataDir, json, lockStatus } from './helpers.ts';

/** Every sandbox route, and one that never existed, as [method, path, body]. */
const SIM_ROUTES: readonly (readonly [string, string, unknown])[] = [
  ['GET', '/_sim/clock', undefined],
  ['POST', '/_sim/clock', { advance_seconds: 60 }],
  ['POST', `/_sim/locks/${LOCK_A}`, { battery: 5 }],
  ['POST', `/_sim/accounts/${encodeURIComponent(OWNER)}`, { deleted: true }],
  ['POST', '/_sim/reset', undefined],
  ['GET', `/_sim/mailbox?to=${encodeURIComponent(OWNER)}`, undefined],
  ['GET', '/_sim/no-such-route', undefined],
  ['GET', '/_sim/', undefined],
  ['GET', '/_sim', undefined],
];

describe('start-up', () => {
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
  const dataDir = (): string => {
    const dir = freshDataDir();
    dirs.push(dir);
    return dir;
  };

  describe('sandbox mode without a seed', () => {
    it('creates the demo: an account, a working API key and two locks', async () => {
      const t = await start({ seed: null });
      const { report } = t.server;
      assert.equal(report.kind, 'demo');
      if (report.kind !== 'demo') return;
      assert.equal(report.demo.email, DEMO_EMAIL);
      assert.ok(report.demo.password.length >= 12);
      assert.ok(report.demo.apiKey.length >= 22, 'at least 128 random bits');

      const res = await t.request('/public/locks', { key: report.demo.apiKey });
      assert.equal(res.status, 200);
      const locks = (await res.json()) as { device_id: string; serial: string; nickname: string }[];
      assert.equal(locks.length, 2);
      assert.deepEqual(
        locks.map((l) => l.nickname),
        ['Front door', 'Garden gate'],
      );
      for (const lock of locks) {
        const status = await lockStatus(t, lock.device_id, report.demo.apiKey);
        assert.equal(status.responsive, true);
        assert.equal(typeof status.battery, 'number');
      }
      const account = await t.server.store.accounts.findByEmail(DEMO_EMAIL);
      assert.ok(account?.passwordHash);
      assert.equal(await cheapPasswords.verify(report.demo.password, account.passwordHash), true);
      // The key is printed once and stored only hashed.
      assert.ok(!JSON.stringify(await t.server.store.snapshot()).includes(report.demo.apiKey));
    });

    it('makes fresh credentials for every new data directory', async () => {
      const a = await start({ seed: null });
      const b = await start({ seed: null });
      assert.ok(a.server.report.kind === 'demo' && b.server.report.kind === 'demo');
      assert.notEqual(a.server.report.demo.apiKey, b.server.report.demo.apiKey);
      assert.equal((await a.request('/public/locks', { key: b.server.report.demo.apiKey })).status, 401);
    });

    it('keeps the demo on a restart instead of making another', async () => {
      const dir = dataDir();
      const first = await startServer({ seed: null, dataDir: dir });
      assert.ok(first.server.report.kind === 'demo');
      const key = first.server.report.demo.apiKey;
      await first.close();
      const t = await start({ seed: null, dataDir: dir });
      assert.deepEqual(t.server.report, { kind: 'existing', seedIgnored: false, demoData: true });
      const res = await t.request('/public/locks', { key });
      assert.equal(res.status, 200);
      assert.equal(((await res.json()) as unknown[]).length, 2);
    });

    it('makes the demo only once listening, and none when an account came first (a sign-up as it began)', async () => {
      const dir = dataDir();
      const server = await createServer(
        loadConfig({}, ['--data', dir, '--port', '0', '--mqtt-port', '0', '--log-level', 'silent']),
        { passwords: cheapPasswords },
      );
      try {
        // Created, not listening: nothing of the demo yet (issue 20).
        assert.deepEqual(server.report, { kind: 'empty' });
        assert.equal(await server.store.isEmpty(), true);
        await server.store.accounts.insert({
          id: '00000000-0000-4000-8000-00000000a11c',
          email: 'first@example.com',
          passwordHash: null,
          verified: true,
          deletedAt: null,
          passwordChangedAt: null,
          createdAt: 0,
        });
        await server.listen();
        assert.deepEqual(server.report, { kind: 'empty' });
        assert.equal(await server.store.accounts.findByEmail(DEMO_EMAIL), undefined);
        assert.notEqual(await server.store.getMeta(DEMO_META_KEY), 'true');
      } finally {
        await server.close();
      }
    });

    it('serves the sandbox routes', async () => {
      const t = await start();
      assert.equal((await t.request('/_sim/clock')).status, 200);
    });
  });

  it('is ready when GET /public/locks answers 401 without a key', async () => {
    const t = await start();
    const res = await t.request('/public/locks');
    assert.equal(res.status, 401);
    assert.deepEqual(await res.json(), { error: 'UNAUTHORIZED' });
  });

  describe('--production', () => {
    it('answers 404 {"error":"NOT_FOUND"} on every /_sim/ route, and changes nothing', async () => {
      const t = await start({ flags: ['--production'] });
      assert.equal(t.server.report.kind, 'seeded');
      for (const [method, path, body] of SIM_ROUTES) {
        const res = await t.request(path, body === undefined ? { method } : { method, json: body });
        assert.equal(res.status, 404, `${method} ${path}`);
        assert.equal(res.headers.get('content-type'), 'application/json; charset=utf-8');
        assert.deepEqual(await res.json(), { error: 'NOT_FOUND' }, `${method} ${path}`);
      }
      assert.deepEqual(await lockStatus(t, LOCK_A), { locked: true, battery: 100, responsive: true });
      assert.equal(
        (await t.request('/public/locks', { key: OWNER_KEY })).status,
        200,
        'the account was not deleted',
      );
    });

    it('still serves v3 over a seeded data directory', async () => {
      const t = await start({ flags: ['--production'] });
      const res = await sendCommand(t, LOCK_A, 'unlock');
      assert.equal(res.status, 200);
      assert.equal(typeof (await json(res)).task_id, 'string');
    });

    it('creates no demo on an empty data directory', async () => {
      const t = await start({ seed: null, flags: ['--production'] });
      assert.deepEqual(t.server.report, { kind: 'empty' });
      assert.equal(await t.server.store.isEmpty(), true);
      assert.equal(await t.server.store.accounts.findByEmail(DEMO_EMAIL), undefined);
      assert.equal((await t.request('/public/locks')).status, 401);
    });

    it('refuses to start on a data directory that holds the demo, with a StartupError, and leaves it intact', async () => {
      const dir = dataDir();
      const demo = await startServer({ seed: null, dataDir: dir });
      assert.ok(demo.server.report.kind === 'demo');
      const key = demo.server.report.demo.apiKey;
      await demo.close();

      await assert.rejects(
        startServer({ seed: null, dataDir: dir, flags: ['--production'] }),
        (error: unknown) =>
          error instanceof StartupError && /demo/.test(error.message) && error.message.includes(dir),
      );
      // Also when a seed file is given: the directory holds data, so the seed would be ignored anyway.
      await assert.rejects(
        startServer({ dataDir: dir, flags: ['--production'] }),
        (error: unknown) => error instanceof StartupError,
      );

      // The failed starts closed the store and left the demo as it was: sandbox mode still opens it.
      const again = await start({ seed: null, dataDir: dir });
      assert.deepEqual(again.server.report, { kind: 'existing', seedIgnored: false, demoData: true });
      assert.equal((await again.request('/public/locks', { key })).status, 200);
    });

    it('starts on a data directory seeded in sandbox mode (seeded data is not demo data)', async () => {
      const dir = dataDir();
      const seeded = await startServer({ dataDir: dir });
      await seeded.close();
      const t = await start({ seed: null, dataDir: dir, flags: ['--production'] });
      assert.deepEqual(t.server.report, { kind: 'existing', seedIgnored: false, demoData: false });
      assert.equal((await t.request('/public/locks', { key: OWNER_KEY })).status, 200);
      assert.equal((await t.request('/_sim/reset', { method: 'POST' })).status, 404);
    });
  });
});
