/**
 * The authorization matrix, refusals on the dashboard's JSON endpoints (session cookie, X-CSRF-Token)
 * and on the routes that belong to no account (log-in and sign-up pages, health, documents, and
 * the OAuth endpoints, which take an app's credentials): each
 * account with every credential kind in every place, on every object of every account. Each answer
 * is the documented refusal exactly (public routes: the same for every credential), carries no other
 * account's data, and changes no stored row of any account.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { cases, runAll } from './matrix.ts';
import { startWorld, type World } from './world.ts';

const SURFACES = new Set(['dash-api', 'dash-public', 'public', 'oauth']);

describe('authorization matrix: refusals on the dashboard API and the public routes', () => {
  let w: World;
  before(async () => {
    w = await startWorld();
  });
  after(() => w.close());

  it('refuses every request that is not the account on its own object with its own session', async () => {
    const list = cases(w, (e) => SURFACES.has(e.surface)).filter((c) => !c.allowed);
    assert.ok(list.length > 500, `${list.length} cases`);
    assert.equal(await runAll(w, list), list.length);
  });
});
