/**
 * startLockcloud() (src/index.ts), the package's export for other people's test suites, from its
 * sources: seeds (object, file, the demo), the returned credentials, the sandbox controls and their
 * errors. Its options are fake-options.test.ts's, its life and end fake-lifecycle.test.ts's. The
 * packed package runs docs/fake.md's examples in test/package/pack.test.ts.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { SandboxError, type StartLockcloudOptions, startLockcloud } from '../../src/index.ts';
import {
  ANN,
  BOB,
  call,
  failed,
  KEY,
  LOCK,
  leftovers,
  OTHER_LOCK,
  outcome,
  SEED,
  SUCCEEDED,
  scratch,
  send,
  useScratch,
  withFake,
} from './support.ts';

describe('startLockcloud: a lockcloud sandbox in the test process', () => {
  useScratch();

  it('a seed object: its credentials come back, its key answers, a command goes through the simulated lock', async () => {
    await withFake({ seed: SEED }, async (lockcloud) => {
      assert.match(lockcloud.url, /^http:\/\/127\.0\.0\.1:\d+$/);
      assert.match(lockcloud.mqttUrl, /^mqtt:\/\/127\.0\.0\.1:\d+$/);
      assert.deepEqual(lockcloud.accounts, [
        { email: ANN, password: 'ann-password' },
        { email: BOB, password: null },
      ]);
      assert.deepEqual(lockcloud.apiKeys, [{ account: ANN, key: KEY }]);
      assert.equal(lockcloud.apiKey, KEY);
      assert.deepEqual(lockcloud.locks, [
        { device_id: LOCK, owner: ANN, nickname: 'Front door' },
        { device_id: OTHER_LOCK, owner: ANN, nickname: undefined },
      ]);
      const { status, body } = await call(lockcloud, 'GET', `/public/lock/${OTHER_LOCK}`);
      assert.deepEqual(
        { status, body },
        { status: 200, body: { locked: false, battery: 50, responsive: true } },
      );
      assert.deepEqual(await outcome(lockcloud, await send(lockcloud, LOCK, 'unlock')), SUCCEEDED);
      assert.equal(
        ((await call(lockcloud, 'GET', `/public/lock/${LOCK}`)).body as { locked: boolean }).locked,
        false,
      );
    });
  });

  it('a seed file, by its path (the format of `lockcloud serve --seed`)', async () => {
    const file = join(scratch, 'seed.json');
    writeFileSync(file, JSON.stringify(SEED));
    await withFake({ seed: file }, async (lockcloud) => {
      assert.equal(lockcloud.apiKey, KEY);
      const { status, body } = await call(lockcloud, 'GET', '/public/locks');
      assert.equal(status, 200);
      assert.deepEqual((body as { device_id: string }[]).map((l) => l.device_id).sort(), [LOCK, OTHER_LOCK]);
    });
  });

  it('no seed: the demo, whose returned key and password work (v3 and v1)', async () => {
    await withFake({}, async (lockcloud) => {
      assert.equal(lockcloud.accounts.length, 1);
      const [account] = lockcloud.accounts;
      assert.match(lockcloud.apiKey ?? '', /^lck_/);
      assert.equal(lockcloud.locks.length, 2);
      const { body } = await call(lockcloud, 'GET', '/public/locks');
      assert.deepEqual(
        (body as { device_id: string }[]).map((l) => l.device_id).sort(),
        lockcloud.locks.map((l) => l.device_id).sort(),
      );
      const login = await call(lockcloud, 'POST', '/v1/accounts/login', {
        email: account?.email,
        password: account?.password,
      });
      assert.equal(login.status, 200, JSON.stringify(login.body));
    });
  });

  it('the controls: addLock, a simulated lock of the account, listed and moved at once; reset removes it', async () => {
    await withFake({ seed: SEED }, async (lockcloud) => {
      const added = await lockcloud.sandbox.addLock({ owner: ANN, nickname: 'Shed', locked: false });
      assert.deepEqual(
        { owner: added.owner, nickname: added.nickname, locked: added.locked, battery: added.battery },
        { owner: ANN, nickname: 'Shed', locked: false, battery: 100 },
      );
      const listed = await call(lockcloud, 'GET', '/public/locks');
      assert.ok(
        (listed.body as { device_id: string }[]).some((l) => l.device_id === added.device_id),
        JSON.stringify(listed.body),
      );
      assert.deepEqual(await outcome(lockcloud, await send(lockcloud, added.device_id, 'lock')), SUCCEEDED);
      await assert.rejects(lockcloud.sandbox.addLock({ owner: 'nobody@example.com' }), {
        name: 'SandboxError',
        status: 404,
        error: 'NOT_FOUND',
      });
      await lockcloud.sandbox.reset();
      const after = await call(lockcloud, 'GET', '/public/locks');
      assert.ok(!(after.body as { device_id: string }[]).some((l) => l.device_id === added.device_id));
    });
  });

  it('the controls: failNext, setLock, advanceClock, changeAccount, mailbox and reset', async () => {
    await withFake({ seed: SEED }, async (lockcloud) => {
      const { sandbox } = lockcloud;
      const jammed = await sandbox.failNext(LOCK, 'JAMMED');
      assert.equal(jammed.fail_next, 'JAMMED');
      assert.deepEqual(await outcome(lockcloud, await send(lockcloud, LOCK, 'unlock')), failed('JAMMED'));

      const flat = await sandbox.setLock(LOCK, { battery: 5 });
      assert.deepEqual(
        { battery: flat.battery, locked: flat.locked, device_id: flat.device_id },
        { battery: 5, locked: true, device_id: LOCK },
      );
      const refused = await call(lockcloud, 'POST', `/public/lock/${LOCK}`, { command: 'unlock' });
      assert.deepEqual(
        { status: refused.status, body: refused.body },
        { status: 400, body: { error: 'LOW_BATTERY' } },
      );

      // A lock that takes ten minutes: the 15-second command timeout ends the task once the clock passes it.
      await sandbox.setLock(OTHER_LOCK, { latency_ms: 600_000 });
      const slow = await send(lockcloud, OTHER_LOCK, 'lock');
      const before = await sandbox.getClock();
      const moved = await sandbox.advanceClock(16);
      assert.ok(moved.epoch_ms - before.epoch_ms >= 16_000, `${before.now} -> ${moved.now}`);
      assert.equal(new Date(moved.now).getTime(), moved.epoch_ms);
      assert.deepEqual(await outcome(lockcloud, slow), failed('TIMEOUT'));

      const changed = await sandbox.changeAccount(ANN, { password: 'a-new-password' });
      assert.deepEqual(changed, { email: ANN, password_changed: true, deleted: false });
      const oldLogin = await call(lockcloud, 'POST', '/v1/accounts/login', {
        email: ANN,
        password: 'ann-password',
      });
      assert.notEqual(oldLogin.status, 200);

      const forgot = await fetch(`${lockcloud.url}/dashboard/forgot`, { method: 'GET' });
      assert.equal(forgot.status, 200, 'the dashboard is served');
      assert.deepEqual(await sandbox.mailbox(ANN), []);

      await sandbox.reset();
      const back = await call(lockcloud, 'GET', `/public/lock/${LOCK}`);
      assert.deepEqual(back.body, { locked: true, battery: 100, responsive: true });
      const login = await call(lockcloud, 'POST', '/v1/accounts/login', {
        email: ANN,
        password: 'ann-password',
      });
      assert.equal(login.status, 200, 'the seed password again after reset');
      assert.deepEqual(await outcome(lockcloud, await send(lockcloud, LOCK, 'unlock')), SUCCEEDED);
    });
  });

  it('a refused control rejects with SandboxError: the status, the code and the reason of /_sim', async () => {
    await withFake({ seed: SEED }, async ({ sandbox }) => {
      const unknown = '00000000-0000-4000-8000-0000000000ff';
      await assert.rejects(sandbox.setLock(unknown, { battery: 5 }), (error: unknown) => {
        assert.ok(error instanceof SandboxError);
        assert.deepEqual([error.status, error.error, error.name], [404, 'NOT_FOUND', 'SandboxError']);
        return true;
      });
      await assert.rejects(sandbox.setLock(LOCK, { battery: 101 }), (error: unknown) => {
        assert.ok(error instanceof SandboxError);
        assert.deepEqual([error.status, error.error], [400, 'BAD_PARAMS']);
        assert.match(error.message, /battery/);
        return true;
      });
      await assert.rejects(sandbox.advanceClock(-1), {
        name: 'SandboxError',
        status: 400,
        error: 'BAD_PARAMS',
      });
      await assert.rejects(sandbox.changeAccount('nobody@example.com', { deleted: true }), {
        status: 404,
        error: 'NOT_FOUND',
      });
      await assert.rejects(sandbox.failNext(LOCK, 'ON_FIRE' as 'JAMMED'), {
        status: 400,
        error: 'BAD_PARAMS',
      });
    });
  });

  it('a bad seed or option rejects with the reason, leaving no directory and nothing listening', async () => {
    const cases: [StartLockcloudOptions, RegExp][] = [
      [{ seed: { locks: [{ device_id: LOCK, owner: ANN, battery: 101 }] } }, /seed\.locks\[0\]\.battery/],
      [{ seed: { accounts: [{ email: ANN }], api_keys: [{ account: BOB, key: KEY }] } }, /no account bob@/],
      [{ seed: join(scratch, 'no-such-seed.json') }, /cannot read the seed file/],
      [{ commandTimeoutMs: -5 }, /command-timeout-ms|commandTimeoutMs/i],
      [
        { rateLimits: { endpoints: { 'GET /nowhere': { ip: { burst: 1, per_second: 1 } } } } },
        /GET \/nowhere/,
      ],
      [{ logLevel: 'loud' as 'info' }, /log/i],
      // What TypeScript would refuse, from JavaScript:
      [{ rateLimit: false } as StartLockcloudOptions, /unknown option rateLimit \(options: seed, rateLimits/],
      [{ passwordHashing: 'cheap' as 'fast' }, /passwordHashing: 'fast' or 'production'/],
      [{ rateLimits: 'off' as unknown as boolean }, /rateLimits: true, false or an object/],
      [{ seed: 42 as unknown as string }, /seed: a seed object or the path of a seed file/],
      [{ seed: null as unknown as string }, /seed: a seed object/],
    ];
    for (const [options, reason] of cases) {
      await assert.rejects(startLockcloud(options), reason, JSON.stringify(options));
      assert.deepEqual(leftovers(), [], `after ${JSON.stringify(options)}`);
    }
  });
});
