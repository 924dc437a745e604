#!/usr/bin/env node
// Runs the test files under test/ with node's own runner (through tsx for TypeScript): one process
// per file, two at a time, one tier after another. Node 20's --test does not expand globs, so the files are listed here.
//
//   node scripts/run-tests.mjs                   every tier, unit first (npm test)
//   node scripts/run-tests.mjs --tier unit       one tier (npm run test:unit, test:integration, test:system)
//   node scripts/run-tests.mjs test/http/v3 ...  the files whose path holds one of these words
//
// Each file's tier is in test/tiers.ts; a file in none stops the run before anything starts, and
// test/support/tier-preload.ts holds every file to its tier. When integration or system tests are
// to run, scripts/test-setup.sh first starts what they need and is down (the machine's Redis,
// Mosquitto and PostgreSQL) and installs what is missing (Chromium, for system tests);
// LOCKCLOUD_TEST_SETUP=off skips it.
import { spawnSync } from 'node:child_process';
import { tsImport } from 'tsx/esm/api';

const { TIERS, testFiles, tierOf } = await tsImport('../test/tiers.ts', import.meta.url);

const args = process.argv.slice(2);
let tier;
const filters = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--tier') tier = args[++i];
  else filters.push(args[i]);
}
if (tier !== undefined && !TIERS.includes(tier)) {
  console.error(`--tier: one of ${TIERS.join(', ')}, not ${tier ?? '(nothing)'}`);
  process.exit(2);
}

const all = testFiles();
const untiered = all.filter((f) => tierOf(f) === undefined);
if (untiered.length > 0) {
  console.error(`in no tier (give each one in test/tiers.ts):\n  ${untiered.join('\n  ')}`);
  process.exit(1);
}
const rank = (f) => TIERS.indexOf(tierOf(f));
const files = all
  .filter((f) => tier === undefined || tierOf(f) === tier)
  .filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)))
  .sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : 1));
if (files.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}

const needs = TIERS[Math.max(...files.map(rank))];
if (needs !== 'unit' && process.env.LOCKCLOUD_TEST_SETUP !== 'off') {
  const setup = spawnSync('bash', ['scripts/test-setup.sh', needs], { stdio: 'inherit' });
  if (setup.status !== 0) {
    console.error('scripts/test-setup.sh failed: the tests need what it could not provide (above)');
    process.exit(setup.status ?? 1);
  }
}

// Tier by tier, unit first, each tier's wall time printed after it: a unit failure shows in seconds,
// and the clean-clone time of each tier is in every CI log.
let failed = 0;
for (const t of TIERS) {
  const ofTier = files.filter((f) => tierOf(f) === t);
  if (ofTier.length === 0) continue;
  const started = performance.now();
  const result = spawnSync(
    process.execPath,
    [
      '--import',
      'tsx',
      '--import',
      './test/support/tier-preload.ts',
      '--test',
      '--test-concurrency=2',
      // The runner holds each file to the timeout (no file takes two minutes here): a hang fails
      // its file after 15 minutes instead of holding the run until CI's limit. And a file whose
      // tests are all done exits even when something it started still runs: a server process a
      // failed start left kept a CI run waiting for good (2026-12-02).
      '--test-timeout=900000',
      '--test-force-exit',
      '--test-reporter=spec',
      ...ofTier,
    ],
    { stdio: 'inherit' },
  );
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  const status = result.status ?? 1;
  console.log(
    `== tier ${t}: ${ofTier.length} files, ${seconds} s, ${status === 0 ? 'passed' : `failed (exit ${status})`}`,
  );
  if (status !== 0) failed = status;
}
process.exit(failed);
