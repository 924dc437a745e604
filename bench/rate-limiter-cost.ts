/**
 * The rate limiter's cost on the v3 read path, as a ratio measured in one run: the use cases behind
 * GET /public/lock/{id} (key lookup + lock read over a real SQLite file) with and without the
 * in-memory limiter, interleaved rounds, medians. No network: this isolates what the limiter adds.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { scryptHasher } from '../src/adapters/system/crypto.ts';
import { loadConfig } from '../src/config/config.ts';
import { createServer } from '../src/main.ts';

const KEY = 'bench-key-000001';
const LOCK = '00000000-0000-4000-8000-000000000001';
const ROUNDS = 5;
const PER_ROUND = 20_000;

async function start(flags: string[]) {
  const dir = mkdtempSync(join(tmpdir(), 'lockcloud-bench-'));
  const seed = join(dir, 'seed.json');
  writeFileSync(
    seed,
    JSON.stringify({
      accounts: [{ email: 'a@example.com' }],
      api_keys: [{ account: 'a@example.com', key: KEY }],
      locks: [{ device_id: LOCK, owner: 'a@example.com' }],
    }),
  );
  const server = await createServer(
    loadConfig({}, ['--data', dir, '--seed', seed, '--log-level', 'silent', '--port', '0', ...flags]),
    { passwords: scryptHasher({ N: 1024, r: 8, p: 1 }) },
  );
  return {
    server,
    cleanup: async () => {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;

const off = await start(['--no-rate-limit']);
// Budgets no loop can spend: every request takes the allowed path, which is what normal traffic pays.
const limitsFile = join(mkdtempSync(join(tmpdir(), 'lockcloud-bench-')), 'limits.json');
writeFileSync(
  limitsFile,
  JSON.stringify({
    endpoints: {
      'GET /public/lock/{device_id}': {
        account: { burst: 1_000_000, per_second: 1_000_000 },
        ip: { burst: 1_000_000, per_second: 1_000_000 },
      },
    },
  }),
);
const on = await start(['--rate-limits', limitsFile]);
const limits = on.server.lockcloud.rateLimits;
if (!limits) throw new Error('the limiter is not on');

async function round(withLimiter: boolean): Promise<number> {
  const lc = (withLimiter ? on : off).server.lockcloud;
  const t = performance.now();
  for (let i = 0; i < PER_ROUND; i++) {
    const principal = await lc.auth.fromHeader(KEY);
    if (withLimiter) {
      const byAddress = await limits?.checkAddress('GET /public/lock/{device_id}', '127.0.0.1');
      if (byAddress)
        await limits?.checkAccount(
          'GET /public/lock/{device_id}',
          principal.accountId,
          '127.0.0.1',
          byAddress,
        );
    }
    await lc.locks.getOwned(principal.accountId, LOCK);
  }
  return (PER_ROUND / (performance.now() - t)) * 1000;
}

await round(false);
await round(true);
const offRates: number[] = [];
const onRates: number[] = [];
for (let r = 0; r < ROUNDS; r++) {
  offRates.push(await round(false));
  onRates.push(await round(true));
}
const base = median(offRates);
const withLimiter = median(onRates);
console.log('| read path (use cases, no network) | ops/s (median of 5) | ratio |');
console.log('|---|---|---|');
console.log(`| limiter off (baseline) | ${base.toFixed(0)} | 1.00 |`);
console.log(`| limiter on (memory store) | ${withLimiter.toFixed(0)} | ${(withLimiter / base).toFixed(2)} |`);
await on.cleanup();
await off.cleanup();
