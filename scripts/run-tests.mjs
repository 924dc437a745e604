#!/usr/bin/env node
// Runs every test file under test/ with node's own runner (through tsx for TypeScript).
// Node 20's --test does not expand globs, so the files are listed here.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

function find(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return find(path);
    return name.endsWith('.test.ts') ? [path] : [];
  });
}

const filters = process.argv.slice(2);
const files = find('test')
  .filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)))
  .sort();
if (files.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}
const result = spawnSync(
  process.execPath,
  ['--import', 'tsx', '--test', '--test-concurrency=2', '--test-reporter=spec', ...files],
  { stdio: 'inherit' },
);
process.exit(result.status ?? 1);
