/**
 * `npm run docs:settings`: writes the README's settings table from src/config/settings.ts (between
 * its two markers). `--check` only compares, and exits 1 when the README's copy differs.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { README_BEGIN, README_END, settingsTable } from '../src/config/docs.ts';

const README = new URL('../README.md', import.meta.url);
const text = readFileSync(README, 'utf8');
const begin = text.indexOf(README_BEGIN);
const end = text.indexOf(README_END);
if (begin < 0 || end < begin) {
  process.stderr.write(`README.md: no "${README_BEGIN}" ... "${README_END}" block\n`);
  process.exit(2);
}
const updated = `${text.slice(0, begin)}${README_BEGIN}\n${settingsTable()}\n${text.slice(end)}`;
if (process.argv.includes('--check')) {
  if (updated !== text) {
    process.stderr.write(
      'README.md: the settings table differs from src/config/settings.ts: npm run docs:settings\n',
    );
    process.exit(1);
  }
} else if (updated !== text) {
  writeFileSync(README, updated);
  process.stdout.write('README.md: settings table written\n');
}
