/**
 * startLockcloud()'s options reach the server it starts: rate limits, the password cost, the
 * command timeout and battery threshold, the log level.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { describe, it } from 'node:test';
import {
  ANN,
  call,
  failed,
  LOCK,
  OTHER_LOCK,
  outcome,
  SEED,
  scratch,
  send,
  storedHash,
  useScratch,
  withFake,
} from './support.ts';

describe("startLockcloud's options", () => {
  useScratch();

  it('rate limits: off by default; an object lays limits over the defaults; true is the server’s own', async () => {
    await withFake({ seed: SEED }, async (lockcloud) => {
      // Over the account's burst of 10 on GET /public/locks, and no RateLimit fields at all.
      for (let i = 0; i < 15; i++) {
        const { status, headers } = await call(lockcloud, 'GET', '/public/locks');
        assert.equal(status, 200, `request ${i + 1}`);
        assert.equal(headers.get('ratelimit-policy'), null);
      }
    });
    const tight = { endpoints: { 'GET /public/locks': { account: { burst: 1, per_second: 1 } } } };
    await withFake({ seed: SEED, rateLimits: tight }, async (lockcloud) => {
      assert.equal((await call(lockcloud, 'GET', '/public/locks')).status, 200);
      const second = await call(lockcloud, 'GET', '/public/locks');
      assert.deepEqual(
        { status: second.status, body: second.body },
        { status: 429, body: { error: 'THROTTLED' } },
      );
      // The limits follow the sandbox clock, and reset empties the buckets.
      await lockcloud.sandbox.advanceClock(1);
      assert.equal((await call(lockcloud, 'GET', '/public/locks')).status, 200);
    });
    await withFake({ seed: SEED, rateLimits: true }, async (lockcloud) => {
      const { headers } = await call(lockcloud, 'GET', '/public/locks');
      assert.equal(headers.get('ratelimit-policy'), '"endpoint";q=10;w=5');
    });
  });

  it('passwords are hashed at a test cost by default, at the server’s with passwordHashing: production', async () => {
    await withFake({ seed: SEED }, async () => {
      assert.match(storedHash(ANN), /^scrypt\$1024\$8\$1\$/);
    });
    await withFake({ seed: SEED, passwordHashing: 'production' }, async () => {
      assert.match(storedHash(ANN), /^scrypt\$131072\$8\$1\$/);
    });
  });

  it('commandTimeoutMs and lowBatteryThreshold reach the server', async () => {
    await withFake({ seed: SEED, commandTimeoutMs: 2000, lowBatteryThreshold: 60 }, async (lockcloud) => {
      const refused = await call(lockcloud, 'POST', `/public/lock/${OTHER_LOCK}`, { command: 'lock' });
      assert.deepEqual(refused.body, { error: 'LOW_BATTERY' }, 'battery 50 is under 60');
      await lockcloud.sandbox.setLock(LOCK, { latency_ms: 600_000 });
      const task = await send(lockcloud, LOCK, 'unlock');
      await lockcloud.sandbox.advanceClock(3);
      assert.deepEqual(await outcome(lockcloud, task), failed('TIMEOUT'));
    });
  });

  it('logLevel: the server’s log lines on stdout when asked for', async () => {
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        '--input-type=module',
        '-e',
        `import { startLockcloud } from './src/index.ts';
         const lockcloud = await startLockcloud({ logLevel: 'info' });
         await fetch(lockcloud.url + '/healthz');
         await lockcloud.close();`,
      ],
      { env: { ...process.env, TMPDIR: scratch }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    const code = await new Promise((resolve) => child.once('close', resolve));
    assert.equal(code, 0);
    const messages = stdout
      .trimEnd()
      .split('\n')
      .map((line) => (JSON.parse(line) as { msg: string }).msg);
    assert.ok(messages.includes('device link up'), messages.join(' | '));
  });
});
