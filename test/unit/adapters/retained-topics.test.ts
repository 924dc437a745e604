import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { RetainedTopics } from '../../../src/adapters/devices/mqtt/retained-topics.ts';

/** MQTT's matching of a topic against a filter, word by word: the reference the tree must agree with. */
function matches(filter: string, topic: string): boolean {
  const f = filter.split('/');
  const t = topic.split('/');
  for (let i = 0; i < f.length; i++) {
    if (f[i] === '#') return true;
    if (i >= t.length) return false;
    if (f[i] !== '+' && f[i] !== t[i]) return false;
  }
  return f.length === t.length;
}

// Few words, so that topics share levels and filters hit; '' is a level too ('a//b', '/a').
const word = fc.constantFrom('', 'lc', 'ap1', 'ap2', 'lock', 'd1', 'd2', 'state', 'status');
const topic = fc.array(word, { minLength: 1, maxLength: 5 }).map((words) => words.join('/'));
const filter = fc
  .tuple(fc.array(fc.oneof(word, fc.constant('+')), { minLength: 0, maxLength: 5 }), fc.boolean())
  .filter(([words, hash]) => words.length > 0 || hash)
  .map(([words, hash]) => [...words, ...(hash ? ['#'] : [])].join('/'));
const change = fc.record({ topic, keep: fc.boolean() });

describe("RetainedTopics (the embedded broker's retained messages)", () => {
  it('answers a filter exactly the retained topics MQTT matches, after any sets and clears', () => {
    fc.assert(
      fc.property(
        // How many leading levels group the topics: any grouping answers the same.
        fc.integer({ min: 1, max: 4 }),
        fc.array(change, { maxLength: 40 }),
        fc.array(filter, { minLength: 1, maxLength: 8 }),
        (depth, changes, filters) => {
          const tree = new RetainedTopics<string>(depth);
          const reference = new Map<string, string>();
          changes.forEach(({ topic, keep }, i) => {
            if (keep) {
              tree.set(topic, `${topic}#${i}`);
              reference.set(topic, `${topic}#${i}`);
            } else {
              tree.delete(topic);
              reference.delete(topic);
            }
          });
          assert.equal(tree.size, reference.size);
          for (const f of filters) {
            const expected = [...reference].filter(([t]) => matches(f, t)).map(([, packet]) => packet);
            assert.deepEqual([...tree.matching(f)].sort(), expected.sort(), f);
          }
        },
      ),
      { numRuns: 500 },
    );
  });

  it('keeps nothing of a topic once it is cleared', () => {
    const tree = new RetainedTopics<string>(2);
    tree.set('lc/ap1/lock/d1/state', 'a');
    tree.set('lc/ap1/status', 'b');
    tree.delete('lc/ap1/lock/d1/state');
    tree.delete('lc/ap1/status');
    tree.delete('lc/ap1/status');
    tree.delete('never/set');
    assert.equal(tree.size, 0);
    assert.deepEqual([...tree.matching('#')], []);
    // No empty group is left behind: the store is as new.
    assert.deepEqual(tree, new RetainedTopics<string>(2));
  });

  it("finds one access point's topics among a thousand access points'", () => {
    const tree = new RetainedTopics<string>(2);
    for (let ap = 0; ap < 1000; ap++)
      for (let lock = 0; lock < 10; lock++) tree.set(`lc/ap${ap}/lock/d${lock}/state`, `${ap}:${lock}`);
    assert.deepEqual(
      [...tree.matching('lc/ap7/lock/+/state')],
      Array.from({ length: 10 }, (_, lock) => `7:${lock}`),
    );
    assert.equal([...tree.matching('lc/+/lock/d3/state')].length, 1000);
    assert.deepEqual([...tree.matching('lc/ap7/lock/d3/state')], ['7:3']);
    assert.deepEqual([...tree.matching('lc/ap7/lock/+/cmd')], []);
  });
});
