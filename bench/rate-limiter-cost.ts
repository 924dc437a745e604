/**
 * The rate limiter's cost on the v3 read path, as a ratio measured in one run: the use cases behind
 * GET /public/lock/{id} (key lookup + lock read over a real SQLite file) with and without the
 * in-memory limiter, interleaved rounds, medians. No network: this isolates what the limiter adds.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startInProcess } from './lib/in-process.ts';
import { tempDir } from './lib/processes.ts';
import { fmtRate, fmtRatio, median, QUICK, report } from './lib/report.ts';

const KEY = 'bench-key-000001';
const LOCK = '00000000-0000-4000-8000-000000000001';
const ROUNDS = 5;
// Each round runs for a time, not a count: how many operations fit depends on the machine and the code.
const ROUND_MS = QUICK ? 500 : 1500;

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
  const server = await startInProcess(dir, seed, flags);
  return {
    server,
    cleanup: async () => {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const off = await start(['--no-rate-limit']);
// Budgets no loop can spend: every request takes the allowed path, which is what normal traffic pays.
const limitsFile = join(tempDir(), 'limits.json');
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
  const end = t + ROUND_MS;
  let n = 0;
  for (; performance.now() < end; n++) {
    // Served from the read cache, every await here settles as a microtask: without a turn of the
    // event loop now and then, the servers' MQTT keepalives starve and their links drop mid-bench.
    if (n % 1000 === 999) await new Promise((resolve) => setImmediate(resolve));
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
  return (n / (performance.now() - t)) * 1000;
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
await on.cleanup();
await off.cleanup();
report({
  name: 'rate-limiter-cost',
  title: "6. The rate limiter's cost on the read use cases, in process (bench/rate-limiter-cost.ts)",
  columns: ['read path (use cases, no network)', `ops/s (median of ${ROUNDS})`, 'ratio'],
  rows: [
    ['limiter off (baseline)', fmtRate(base), '1.00'],
    ['limiter on (memory store)', fmtRate(withLimiter), fmtRatio(withLimiter / base)],
  ],
  targets: [],
  notes: [
    `Key lookup and lock read over a real SQLite file, ${ROUND_MS} ms a round, rounds interleaved: what the limiter adds without HTTP.`,
  ],
});
process.exit(0);
