#!/usr/bin/env node
// The `lockcloud` command: runs the compiled CLI, dist/src/bin/cli.js (`npm run build`; `npm install`
// in a clone builds it through the `prepare` script, and the published package ships it built).
import { existsSync, readdirSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = new URL('../', import.meta.url);
const entry = new URL('dist/src/bin/cli.js', root);

/** The newest modification time under a directory, in ms (0 when it does not exist). */
function newest(dir) {
  let latest = 0;
  for (const item of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (item.isFile())
      latest = Math.max(latest, statSync(`${item.parentPath ?? item.path}/${item.name}`).mtimeMs);
  }
  return latest;
}

if (!existsSync(entry)) {
  process.stderr.write(
    `lockcloud: no build at ${fileURLToPath(new URL('dist/', root))}: run \`npm run build\` (npm install runs it)\n`,
  );
  process.exit(1);
}
// In a clone (the package has no src/), a build older than the sources would run old code unnoticed.
const sources = [new URL('src/', root), new URL('sdk/src/', root)].filter((dir) => existsSync(dir));
if (sources.some((dir) => newest(fileURLToPath(dir)) > statSync(entry).mtimeMs)) {
  process.stderr.write('lockcloud: warning: src/ is newer than the build in dist/: run `npm run build`\n');
}
await import(entry.href);
