/**
 * The settings table as people read it: `lockcloud serve --help`, and the README's table (written
 * by `npm run docs:settings`, checked by test/unit/config/settings-table.test.ts). Both come from
 * SETTINGS, so neither can fall behind the parser.
 */
import type { Setting } from './setting.ts';
import { SETTINGS } from './settings.ts';

const rows = Object.values(SETTINGS) as Setting<unknown>[];

/** The flags a setting is given by, as written on a command line: `--port N`, `--sandbox`. */
function flagsOf(s: Setting<unknown>): string[] {
  if (s.flag !== undefined) return [s.arg === undefined ? s.flag : `${s.flag} ${s.arg}`];
  return Object.keys(s.switches ?? {});
}

function defaultOf(s: Setting<unknown>): string {
  return s.defaultShown ?? (s.default === undefined || s.default === '' ? 'none' : s.default);
}

/** Markdown to plain text: links keep their words, code loses its backticks. */
const plain = (markdown: string): string =>
  markdown.replace(/\[([^\]]+)\]\([^)]+\)/g, '$1').replaceAll('`', '');

/** Where the README's copy of the table starts and ends. */
export const README_BEGIN =
  '<!-- settings: written by `npm run docs:settings` from src/config/settings.ts -->';
export const README_END = '<!-- /settings -->';

/** The README's settings table, in Markdown. */
export function settingsTable(): string {
  const cell = (text: string): string => text.replaceAll('|', '\\|');
  const lines = ['| flag | environment | default | meaning |', '|---|---|---|---|'];
  for (const s of rows) {
    const flags = flagsOf(s);
    const flagCell = flags.length === 0 ? '(environment only)' : flags.map((f) => `\`${f}\``).join(' / ');
    lines.push(`| ${flagCell} | \`${s.envShown ?? s.env}\` | ${cell(defaultOf(s))} | ${cell(s.help)} |`);
  }
  return lines.join('\n');
}

/** `lockcloud serve --help`. */
export function settingsHelp(): string {
  const width = 30;
  const lines = [
    'Usage: lockcloud serve [options]',
    '',
    'Starts the lockcloud server. Every option can be given as an environment variable too; flags win.',
    '',
    'Options:',
  ];
  for (const s of rows) {
    const flags = flagsOf(s);
    const name = flags.length === 0 ? '(environment only)' : flags.join(', ');
    const head = `  ${name}`;
    const help = plain(s.help);
    lines.push(head.length < width ? `${head.padEnd(width)}${help}` : `${head}\n${' '.repeat(width)}${help}`);
    lines.push(`${' '.repeat(width)}env ${s.envShown ?? s.env}; default ${plain(defaultOf(s))}`);
  }
  lines.push(`${'  -h, --help'.padEnd(width)}this help`);
  // docs/deploy.md, "When the start fails".
  lines.push(
    '',
    'Exit codes:',
    '  0  stopped by SIGINT or SIGTERM, everything closed',
    '  1  an unexpected failure (the reason and its stack on stderr), or closing failed at shutdown',
    '  2  a start-up condition, told in one line: a bad setting or seed, a store, Redis or broker that',
    '     cannot be reached, a port already taken, ...',
  );
  return `${lines.join('\n')}\n`;
}
