/**
 * The authorization matrix, refusals on the dashboard's pages (the locks page's forms, API Settings,
 * the account page): each account with every credential kind in every place and every CSRF token,
 * on every object of every account. Each answer is the documented refusal exactly (a redirect to log
 * in, 403 for a bad CSRF token, the account's own page with 404 for another's lock), carries no other
 * account's data, and changes no stored row of any account.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { cases, runAll } from './matrix.ts';
import { startWorld, type World } from './world.ts';

describe('authorization matrix: refusals on the dashboard pages', () => {
  let w: World;
  before(async () => {
    w = await startWorld();
  });
  after(() => w.close());

  it('refuses every request that is not the account on its own object with its own session', async () => {
    const list = cases(w, (e) => e.surface === 'dash-page').filter((c) => !c.allowed);
    assert.ok(list.length > 1000, `${list.length} cases`);
    assert.equal(await runAll(w, list), list.length);
  });
});
