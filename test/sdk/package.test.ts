/**
 * The SDK package's shape, from its sources: its package.json (publishable, an `exports` map with
 * types, the built files only, no dependencies, the version the User-Agent sends), sources that
 * import nothing but each other (no server code, no node: modules) with `.js` specifiers, a JSDoc
 * @example on every export, and exactly the public names out of index.ts. The built and installed
 * package is test/sdk/pack.test.ts's.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { VERSION } from '../../sdk/src/version.ts';
import { PUBLIC_TYPES, PUBLIC_VALUES } from './public-api.ts';

const SRC = 'sdk/src';
const files = readdirSync(SRC).filter((f) => f.endsWith('.ts'));
const pkg = JSON.parse(readFileSync('sdk/package.json', 'utf8')) as Record<string, unknown>;

describe('sdk: the package', () => {
  it('package.json: @lockcloud/sdk, publishable, an ES module whose exports map gives types and JS from dist/', () => {
    assert.equal(pkg.name, '@lockcloud/sdk');
    assert.equal(pkg.type, 'module');
    assert.equal(pkg.private, undefined, 'a private package cannot be published');
    assert.deepEqual(pkg.exports, {
      '.': { types: './dist/index.d.ts', default: './dist/index.js' },
      './package.json': './package.json',
    });
    assert.equal(pkg.main, './dist/index.js');
    assert.equal(pkg.types, './dist/index.d.ts');
    assert.deepEqual(pkg.files, ['dist']);
    assert.equal(pkg.sideEffects, false);
    assert.deepEqual(pkg.publishConfig, { access: 'public' });
    assert.match(String((pkg.scripts as Record<string, string>).prepack), /build/);
    for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies']) {
      assert.equal(pkg[field], undefined, field);
    }
  });

  it('the version the User-Agent sends is package.json’s', () => {
    assert.equal(VERSION, pkg.version);
  });

  it('sources import only each other, with .js specifiers (the compiler keeps them in the .d.ts)', () => {
    for (const file of files) {
      const text = readFileSync(join(SRC, file), 'utf8');
      for (const [, from] of text.matchAll(/^(?:import|export)[^'"]*?from '([^']+)'/gm)) {
        assert.match(from ?? '', /^\.\/[a-z0-9-]+\.js$/, `${file} imports ${from}`);
      }
      assert.doesNotMatch(text, /\bimport\(|\brequire\(/, `${file}: dynamic import or require`);
    }
  });

  it('every export carries a JSDoc @example', () => {
    const missing: string[] = [];
    for (const file of files) {
      const lines = readFileSync(join(SRC, file), 'utf8').split('\n');
      lines.forEach((line, i) => {
        const declared =
          /^export (?:declare |abstract |async )*(?:class|function|interface|type|const) (\w+)/.exec(line);
        const member = /^ {2}(?:static |async |get )*([a-zA-Z]\w*)\(.*\)[^;]*\{$/.exec(line);
        const name = declared?.[1] ?? (member && member[1] !== 'constructor' ? member[1] : undefined);
        if (name === undefined) return;
        let j = i - 1;
        while (j >= 0 && lines[j]?.trim() !== '*/' && !lines[j]?.trim().endsWith('*/')) j--;
        const end = j;
        while (j >= 0 && !lines[j]?.trim().startsWith('/**')) j--;
        const doc = lines.slice(j, end + 1).join('\n');
        const adjacent = end === i - 1;
        if (!adjacent || !doc.includes('@example')) missing.push(`${file}:${i + 1} ${name}`);
      });
    }
    assert.deepEqual(missing, []);
  });

  it('index.ts names exactly the public surface, one by one; nothing else is exported', async () => {
    const index = readFileSync(join(SRC, 'index.ts'), 'utf8');
    assert.doesNotMatch(index, /^export \*/m, 'no export *: every public name is a decision');
    assert.doesNotMatch(index, /^export (?:declare |async )*(?:class|function|interface|type|const) \w/m);
    const values: string[] = [];
    const types: string[] = [];
    for (const [, typeOnly, names] of index.matchAll(/^export (type )?\{([^}]*)\} from/gm)) {
      for (const raw of (names ?? '').split(',').map((n) => n.trim())) {
        if (raw === '') continue;
        const isType = typeOnly !== undefined || raw.startsWith('type ');
        (isType ? types : values).push(raw.replace(/^type /, ''));
      }
    }
    assert.deepEqual(values.sort(), [...PUBLIC_VALUES].sort());
    assert.deepEqual(types.sort(), [...PUBLIC_TYPES].sort());
    const runtime = Object.keys(await import('../../sdk/src/index.ts')).sort();
    assert.deepEqual(runtime, [...PUBLIC_VALUES].sort());
  });
});
