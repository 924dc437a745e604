/**
 * The authorization matrix is only exhaustive if its table is the server's route list: this reads the
 * routes the running server registered (Fastify's own route tree) and its OpenAPI document, and fails
 * on a route the table lacks (a new endpoint must say what it acts on and whose credential it takes)
 * or a table row the server does not have.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { parseRouteTree } from '../support/route-tree.ts';
import { startServer, type TestServer } from '../support/server.ts';
import { ENDPOINTS } from './routes.ts';

export { parseRouteTree };

describe('the authorization matrix covers every route', () => {
  let t: TestServer;
  before(async () => {
    t = await startServer();
  });
  after(() => t.close());

  const table = new Set(ENDPOINTS.map((e) => `${e.method} ${e.route}`));

  it('reads the route tree (known routes are found where they are)', () => {
    const routes = parseRouteTree(t.server.http.printRoutes({ commonPrefix: false }));
    for (const known of [
      'GET /v1/locks/:lockId',
      'POST /public/partners/automation',
      'GET /dashboard/api/tasks/:id',
    ])
      assert.ok(routes.includes(known), `${known} in ${routes.join('\n')}`);
  });

  it('has a row for every route of the server, and no row the server lacks', () => {
    const routes = parseRouteTree(t.server.http.printRoutes({ commonPrefix: false }));
    // HEAD is Fastify's twin of each GET; the matrix sends it for every GET case.
    for (const head of routes.filter((r) => r.startsWith('HEAD ')))
      assert.ok(routes.includes(head.replace('HEAD', 'GET')), `${head} has a GET`);
    const served = new Set(routes.filter((r) => !r.startsWith('HEAD ')));
    assert.deepEqual(
      [...served].filter((r) => !table.has(r)).sort(),
      [],
      'routes missing from the table (test/authz/routes-*.ts)',
    );
    assert.deepEqual(
      [...table].filter((r) => !served.has(r)).sort(),
      [],
      'rows for routes the server does not have',
    );
  });

  it('has a row for every route of a --production server too (no sandbox routes there)', async () => {
    const prod = await startServer({ flags: ['--production'] });
    try {
      const routes = parseRouteTree(prod.server.http.printRoutes({ commonPrefix: false }));
      const served = routes.filter((r) => !r.startsWith('HEAD '));
      assert.deepEqual(
        served.filter((r) => !table.has(r)),
        [],
      );
      assert.deepEqual(
        served.filter((r) => r.includes('/_sim') || r.endsWith('/:id/app')),
        [],
      );
    } finally {
      await prod.close();
    }
  });

  it('has a row for every operation of the OpenAPI document', async () => {
    const doc = (await (await t.request('/openapi.json')).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    const documented = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.keys(ops).map((m) => `${m.toUpperCase()} ${path.replace(/\{([^}]+)\}/g, ':$1')}`),
    );
    assert.ok(documented.length >= 10, documented.join(', '));
    assert.deepEqual(
      documented.filter((r) => !table.has(r)),
      [],
    );
  });

  it('says, for each route outside the matrix, why', () => {
    for (const e of ENDPOINTS) {
      if (e.surface === 'sandbox') assert.ok(e.outside, `${e.method} ${e.route}`);
      else assert.equal(e.outside, undefined, `${e.method} ${e.route} is in the matrix`);
    }
  });
});
