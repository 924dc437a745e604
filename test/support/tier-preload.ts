/**
 * Loaded by scripts/run-tests.mjs into every test process (`--import`): holds the test file the
 * process runs to its tier (test/tiers.ts, test/support/tier-guard.ts), and to the Node version
 * LOCKCLOUD_TEST_NODE names when it is set.
 */
import { relative, sep } from 'node:path';
import { tierOf } from '../tiers.ts';
import { guardTier, violations } from './tier-guard.ts';

// scripts/other-nodes.sh runs the tiers under another Node and names it here: a test process on any
// other Node (a runner that started its files with the machine's) stops before its tests run.
const node = process.env.LOCKCLOUD_TEST_NODE;
if (node !== undefined && node !== process.version) {
  process.stderr.write(
    `LOCKCLOUD_TEST_NODE is ${node}, but this test process runs node ${process.version}\n`,
  );
  process.exit(1);
}

const entry = process.argv[1];
const file = entry === undefined ? undefined : relative(process.cwd(), entry).split(sep).join('/');
const tier = file === undefined ? undefined : tierOf(file);
if (file !== undefined && tier !== undefined) {
  guardTier(tier, file);
  process.on('exit', () => {
    if (violations.length === 0) return;
    // Also when a test caught the error: the file fails.
    process.exitCode = 1;
    process.stderr.write(`${violations.map((v) => v.message).join('\n')}\n`);
  });
}
