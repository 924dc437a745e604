/**
 * The SDK package's shape: its own package.json with no dependencies, sources that import nothing
 * but each other (no server code, no node: modules), and a JSDoc @example on every export.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';

const SRC = 'sdk/src';
const files = readdirSync(SRC).filter((f) => f.endsWith('.ts'));

describe('sdk: the package', () => {
  it('package.json: @lockcloud/sdk, an ES module exporting src/index.ts, no dependencies', () => {
    const pkg = JSON.parse(readFileSync('sdk/package.json', 'utf8')) as Record<string, unknown>;
    assert.equal(pkg.name, '@lockcloud/sdk');
    assert.equal(pkg.type, 'module');
    assert.deepEqual(pkg.exports, { '.': './src/index.ts' });
    for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies']) {
      assert.equal(pkg[field], undefined, field);
    }
  });

  it('sources import only each other', () => {
    for (const file of files) {
      const text = readFileSync(join(SRC, file), 'utf8');
      for (const [, from] of text.matchAll(/^(?:import|export)[^'"]*?from '([^']+)'/gm)) {
        assert.match(from ?? '', /^\.\/[a-z0-9-]+\.ts$/, `${file} imports ${from}`);
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
});
