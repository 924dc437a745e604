/**
 * The repository stands on its own: every file it cites is in it. A link in a Markdown file names a
 * file (and heading) that exists; a path the code, the tests, the scripts or the documents mention
 * (`docs/sandbox.md`, `src/http/error-pipeline.ts`, `test/cluster/`) exists; and nothing points
 * outside (a `../` path out of the repository, a contract file of another project by its name).
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, extname, join, normalize, relative } from 'node:path';
import { describe, it } from 'node:test';

const ROOT = '.';
const SKIP = new Set(['node_modules', '.git', 'data', 'dist', 'coverage']);
const TEXT = new Set(['.ts', '.mjs', '.js', '.md', '.json', '.sh', '.css', '.html', '.yml', '.yaml', '']);

/** Every text file of the repository, `/`-separated and relative to it. */
function files(dir = ROOT): string[] {
  return readdirSync(dir).flatMap((name) => {
    if (SKIP.has(name)) return [];
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return files(path);
    return TEXT.has(extname(name)) && name !== 'package-lock.json' ? [relative(ROOT, path)] : [];
  });
}

const ALL = files();
const self = relative(ROOT, 'test/docs/citations.test.ts');
const read = (file: string): string => readFileSync(file, 'utf8');
const lines = (file: string): [number, string][] =>
  read(file)
    .split('\n')
    .map((line, i) => [i + 1, line]);

/** GitHub's anchor for a heading: lower case, punctuation other than `-` and `_` dropped, spaces to `-`. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/`/g, '')
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    const heading = fenced ? null : /^#{1,6}\s+(.*)$/.exec(line);
    if (!heading?.[1]) continue;
    const base = slug(heading[1]);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

const exists = (path: string): boolean => existsSync(path);

/**
 * Whether a mentioned path is in the repository: a path with an extension must be a file (a glob,
 * `browser-*.test.ts`, must match one); one without may also be the start of files' paths, as a
 * folder (`test/cluster`), a file named without its extension (`bench/login-timing`) or a test filter
 * (`node scripts/run-tests.mjs test/reliability/crash`) names them. Build output is not held.
 */
function cited(mention: string): boolean {
  // Build output (`dist/`, `sdk/dist/`) is made by `npm run build`, never committed.
  if (mention.split('/').includes('dist')) return true;
  if (mention.includes('*')) {
    const escaped = mention.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
    const glob = new RegExp(
      `^${escaped.replace(/\*\*/g, '\0').replace(/\*/g, '[^/]*').replace(/\0/g, '.*')}$`,
    );
    return ALL.some((f) => glob.test(f));
  }
  if (exists(mention)) return true;
  return extname(mention) === '' && ALL.some((f) => f.startsWith(mention));
}

describe('citations: the repository cites only what it holds', () => {
  it('finds the files to look through', () => {
    for (const file of ['README.md', 'docs/decisions.md', 'docs/sandbox.md', 'src/main.ts']) {
      assert.ok(ALL.includes(file), file);
    }
  });

  it('every link in a Markdown file names a file, and a heading, that exist', () => {
    const broken: string[] = [];
    for (const file of ALL.filter((f) => f.endsWith('.md'))) {
      const text = read(file);
      let fenced = false;
      for (const [n, line] of lines(file)) {
        if (line.startsWith('```')) fenced = !fenced;
        if (fenced) continue;
        for (const [, target = ''] of line.matchAll(/\]\(([^)\s]+)\)/g)) {
          if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:
          const [path = '', anchor] = target.split('#');
          const resolved = path === '' ? file : normalize(join(dirname(file), path));
          if (resolved.startsWith('..') || !exists(resolved)) {
            broken.push(`${file}:${n}: ${target} (no ${resolved} in the repository)`);
            continue;
          }
          if (anchor !== undefined && resolved.endsWith('.md')) {
            const headings = resolved === file ? anchors(text) : anchors(read(resolved));
            if (!headings.has(anchor)) broken.push(`${file}:${n}: ${target} (no heading #${anchor})`);
          }
        }
      }
    }
    assert.deepEqual(broken, []);
  });

  it('every path the code, tests, scripts and documents mention exists', () => {
    const missing: string[] = [];
    const path = /(?<![\w./@-])((?:docs|src|test|scripts|bench|sdk|bin)\/[A-Za-z0-9_.*/-]*)/g;
    for (const file of ALL.filter((f) => f !== self)) {
      // Tests make up paths on purpose (a file in no tier, say): only their docs/ mentions count.
      const docsOnly = file.startsWith('test/');
      for (const [n, line] of lines(file)) {
        for (const [, found = ''] of line.matchAll(path)) {
          const mention = found.replace(/[.]+$/, '');
          if (docsOnly && !mention.startsWith('docs/')) continue;
          if (!cited(mention)) missing.push(`${file}:${n}: ${mention}`);
        }
      }
    }
    assert.deepEqual(missing, []);
  });

  it('nothing points outside the repository', () => {
    const outside: string[] = [];
    // A contract file of another project named as such (an upper-case name like the repository's
    // own README.md), or a path out of the repository into a neighbour of it.
    const named = /\b[A-Z][A-Z0-9_-]*\.md\b/g;
    const away = new RegExp(['\\.\\./shared', '/work/'].join('|'));
    for (const file of ALL.filter((f) => f !== self)) {
      for (const [n, line] of lines(file)) {
        for (const [name] of line.matchAll(named)) {
          if (!ALL.some((f) => f === name || f.endsWith(`/${name}`)))
            outside.push(`${file}:${n}: ${name} is not in the repository`);
        }
        if (away.test(line)) outside.push(`${file}:${n}: ${line.trim()}`);
      }
    }
    assert.deepEqual(outside, []);
  });
});
