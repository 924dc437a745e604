#!/usr/bin/env node
/**
 * `npm run build`, also run by `prepare` (so by `npm install` in a clone, and by `npm pack`): a clean
 * dist/ compiled by tsc with tsconfig.build.json from src/ and sdk/src/ (`lockcloud locks` is built
 * on the SDK's sources), then:
 *
 * - one declaration file kept, the package entry's (dist/src/index.d.ts). tsc rewrites the `.ts`
 *   specifiers of the sources in the JavaScript only (rewriteRelativeImportExtensions), not in
 *   declarations: every other .d.ts would import `./x.ts` files that are not there. The entry's
 *   declarations import no other file of ours (src/index.ts declares its public types itself), and
 *   this script fails the build if they ever do.
 * - every file of src/ that is not TypeScript (the dashboard's assets) copied beside the JavaScript
 *   that serves it.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../', import.meta.url));
const dist = join(root, 'dist');
const ENTRY_TYPES = join(dist, 'src', 'index.d.ts');

function files(dir) {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((item) => item.isFile())
    .map((item) => join(item.parentPath ?? item.path, item.name));
}

// A file deleted from src/ must not live on in dist/ (and in the package).
rmSync(dist, { recursive: true, force: true });

const tsc = join(dirname(createRequire(import.meta.url).resolve('typescript/package.json')), 'bin', 'tsc');
const compiled = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], {
  cwd: root,
  stdio: 'inherit',
});
if (compiled.status !== 0) {
  process.stderr.write('build: tsc failed\n');
  process.exit(compiled.status ?? 1);
}

for (const file of files(dist)) {
  if (file.endsWith('.d.ts') && file !== ENTRY_TYPES) rmSync(file);
}
const entryTypes = readFileSync(ENTRY_TYPES, 'utf8');
const relativeImport = /(?:from\s*|import\s*\(\s*)['"](\.[^'"]*)['"]/.exec(entryTypes);
if (relativeImport) {
  process.stderr.write(
    `build: ${relative(root, ENTRY_TYPES)} imports ${relativeImport[1]}, which the package does not ship: ` +
      'declare the public types in src/index.ts itself\n',
  );
  process.exit(1);
}

const src = join(root, 'src');
for (const file of files(src)) {
  if (file.endsWith('.ts')) continue;
  const target = join(dist, 'src', relative(src, file));
  mkdirSync(dirname(target), { recursive: true });
  copyFileSync(file, target);
}
