#!/usr/bin/env node
// `npm run bench`: every benchmark under bench/, each printing a table of ratios against a baseline
// measured in the same run. The full suite (HTTP read path vs bare node:http, command round trips,
// webhooks, scale) is its own issue; what exists so far runs here.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';

for (const file of readdirSync('bench')
  .filter((f) => f.endsWith('.ts'))
  .sort()) {
  console.log(`\n## ${file}\n`);
  const result = spawnSync(process.execPath, ['--import', 'tsx', `bench/${file}`], { stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
}
