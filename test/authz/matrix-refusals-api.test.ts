/**
 * The authorization matrix, refusals on the API surfaces (v1, v3 with the partner endpoint, /ext):
 * each account with every credential kind in every place, on every object of every account. Each
 * answer is the documented refusal exactly, carries no other account's data, and changes no stored
 * row of any account (no task, no lock moved, no share, key or webhook touched).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { cases, runAll } from './matrix.ts';
import { startWorld, type World } from './world.ts';

const API = new Set(['v1', 'v1-login', 'v3', 'partner', 'ext']);

describe('authorization matrix: refusals on v1, v3, partner and /ext', () => {
  let w: World;
  before(async () => {
    w = await startWorld();
  });
  after(() => w.close());

  it('refuses every request that is not the account on its own object with its own credential', async () => {
    const list = cases(w, (e) => API.has(e.surface)).filter((c) => !c.allowed);
    assert.ok(list.length > 1000, `${list.length} cases`);
    assert.equal(await runAll(w, list), list.length);
  });
});
