/**
 * The supported Node versions are said once and agree everywhere (README.md, Node versions):
 * package.json's `engines` is the range, the SDK declares the same, both READMEs state it, CI runs
 * scripts/other-nodes.sh, and README.md names that script's default versions.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';

const read = (file: string): string => readFileSync(file, 'utf8');
const enginesOf = (file: string): unknown =>
  (JSON.parse(read(file)) as { engines?: { node?: unknown } }).engines?.node;

const range = enginesOf('package.json');

describe('Node versions: engines, the READMEs and CI agree', () => {
  it('package.json declares a range', () => {
    assert.equal(typeof range, 'string');
  });

  it('the SDK declares the same range (tested on the same versions)', () => {
    assert.equal(enginesOf('sdk/package.json'), range);
  });

  it("package-lock.json's root package carries the same range", () => {
    const lock = JSON.parse(read('package-lock.json')) as {
      packages: Record<string, { engines?: { node?: unknown } }>;
    };
    assert.equal(lock.packages['']?.engines?.node, range);
  });

  it('README.md and sdk/README.md state it', () => {
    for (const file of ['README.md', 'sdk/README.md']) {
      assert.ok(
        read(file)
          .replace(/\n/g, ' ')
          .includes(`\`${String(range)}\``),
        `${file} states ${range}`,
      );
    }
  });

  it('CI runs the other versions, and README.md names the ones it runs by default', () => {
    assert.match(read('.ci/run'), /^bash scripts\/other-nodes\.sh$/m);
    const fallback = /\$\{LOCKCLOUD_CI_NODES-([^}]*)\}/.exec(read('scripts/other-nodes.sh'))?.[1];
    assert.ok(fallback, 'scripts/other-nodes.sh reads LOCKCLOUD_CI_NODES with a default');
    assert.ok(
      read('README.md').includes(`default \`${fallback}\``),
      `README.md names the default ${fallback}`,
    );
  });
});
