/**
 * The authorization matrix, the other half: each account on its own objects with its own credential
 * gets what the documents promise (so every refusal in the matrix is about who asks, not about a
 * broken credential or request), sees only its own data (and what is shared with it), and changes
 * only its own rows; commands really move its lock and fire its own webhook only.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { cases, runAll } from './matrix.ts';
import { startWorld, type World } from './world.ts';

describe('authorization matrix: what each account may do', () => {
  let w: World;
  before(async () => {
    w = await startWorld();
  });
  after(() => w.close());

  it('carries out every request of an account on its own objects', async () => {
    const list = cases(w).filter((c) => c.allowed);
    assert.ok(list.length > 50, `${list.length} cases`);
    assert.equal(await runAll(w, list), list.length);
  });
});
