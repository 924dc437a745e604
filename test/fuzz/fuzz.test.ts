/**
 * Issue 11, fuzzing: generated requests for every endpoint of v1, v3, the extension API, the sandbox,
 * the dashboard and the ops routes (the route table is read from the server, so a new route is fuzzed
 * at once), valid credentials part of the time. No answer may be a 5xx (v1's documented lock outcomes
 * aside), none may be missing, each is in its surface's documented shape, and the server still serves
 * afterwards. The long form is `npm run fuzz` (docs/fuzzing.md); a failure here prints the seed and
 * path that replay it: `npm run fuzz -- --seed S --path P`.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { FuzzTarget } from './harness.ts';
import { takesIdempotencyKey } from './requests.ts';
import { parseRouteTree, surfaceOf } from './routes.ts';
import { type FuzzReport, runFuzz } from './run.ts';

/** Fixed, so that CI runs the same requests each time; the long form picks a new seed each run. */
const SEED = 20_261_121;
const COUNT = Number(process.env.FUZZ_COUNT ?? 1500);

function failuresText(report: FuzzReport): string {
  return report.failures
    .map(
      (f) =>
        `${f.problems.join('; ')}\n  ${f.request}\n  answer: ${f.answer}\n  replay: npm run fuzz -- --seed ${f.seed} --path ${f.path}`,
    )
    .join('\n');
}

describe('fuzzing every endpoint', () => {
  let target: FuzzTarget;
  before(async () => {
    target = await FuzzTarget.start();
  });
  after(() => target.close());

  it('reads the whole route table from the server, documented or not', () => {
    const names = new Set(target.endpoints.map((e) => e.name));
    for (const name of [
      'POST /v1/accounts/login',
      'POST /v1/locks/:lockId/control',
      'GET /public/lock/:device_id',
      'POST /public/partners/automation',
      'PUT /ext/webhook',
      'POST /ext/webhook/deliveries/:id/resend',
      'POST /ext/webhook-endpoints',
      'PATCH /ext/webhook-endpoints/:id',
      'DELETE /ext/webhook-endpoints/:id',
      'POST /ext/webhook-endpoints/:id/rotate-secret',
      'GET /ext/webhook-endpoints/:id/deliveries',
      'POST /ext/webhook-endpoints/:id/deliveries/:delivery_id/resend',
      'GET /ext/keys',
      'POST /ext/keys',
      'DELETE /ext/keys/:id',
      'POST /_sim/locks/:device_id',
      'POST /_sim/locks',
      'GET /_sim/mailbox',
      'POST /dashboard/api/locks/:id/commands',
      'GET /dashboard/api/deliveries',
      'GET /dashboard/api-settings/secret/:handle',
      'GET /dashboard/locks/:id/activity',
      'GET /dashboard/account/activity',
      'GET /dashboard/apps/secret/:handle',
      'POST /dashboard/apps/:id',
      'POST /dashboard/apps/authorized/:id/revoke',
      'POST /dashboard/login',
      'GET /healthz',
    ])
      assert.ok(names.has(name), `${name} is fuzzed`);
    // Every documented operation is joined with its document entry (its schemas drive the bodies).
    for (const [path, operations] of Object.entries(target.doc.paths))
      for (const [method, operation] of Object.entries(operations))
        assert.ok(
          target.endpoints.some((e) => e.operation === operation),
          `${method.toUpperCase()} ${path} is fuzzed with its document entry`,
        );
    for (const e of target.endpoints) assert.equal(e.surface, surfaceOf(e.path), e.name);
    // The Idempotency-Key is learnt from the document: the command endpoints get it fuzzed most.
    assert.deepEqual(
      target.endpoints
        .filter(takesIdempotencyKey)
        .map((e) => e.name)
        .sort(),
      [
        'POST /ext/locks/:device_id/commands',
        'POST /public/lock/:device_id',
        'POST /public/partners/automation',
      ],
    );
  });

  it('parses nested route trees into full paths', () => {
    const tree = [
      '└── / (GET)',
      '    ├── v1/locks (GET, HEAD)',
      '    │   └── /:lockId (GET)',
      '    └── x',
    ].join('\n');
    assert.deepEqual(parseRouteTree(tree), [
      ['/', ['GET']],
      ['/v1/locks', ['GET', 'HEAD']],
      ['/v1/locks/:lockId', ['GET']],
    ]);
  });

  it(`answers ${COUNT} generated requests without a 5xx, a hang or an answer out of shape`, async () => {
    const report = await runFuzz(target, { count: COUNT, seed: SEED });
    assert.equal(report.failures.length, 0, failuresText(report));
    assert.ok(report.requests >= COUNT);
    // The generator reaches the handlers, not only the refusals: valid credentials succeed.
    assert.ok((report.byStatus.get('200') ?? 0) > COUNT / 20, JSON.stringify([...report.byStatus]));
    assert.ok(report.byEndpoint.size > 40, `${report.byEndpoint.size} endpoints reached`);
  });

  it('v3 from one busy address: the 429s and the block (403) are in shape too', async () => {
    const report = await runFuzz(target, {
      count: 300,
      seed: SEED + 1000,
      only: { endpoints: (name) => / \/public\//.test(name), from: '127.0.0.3' },
    });
    assert.equal(report.failures.length, 0, failuresText(report));
    assert.ok(report.byStatus.has('429'), JSON.stringify([...report.byStatus]));
    assert.ok(report.byStatus.has('403'), JSON.stringify([...report.byStatus]));
  });

  it('/ext from one busy address: its 429s and the block (403) are in shape too', async () => {
    const report = await runFuzz(target, {
      count: 300,
      seed: SEED + 2000,
      only: { endpoints: (name) => / \/ext\//.test(name), from: '127.0.0.4' },
    });
    assert.equal(report.failures.length, 0, failuresText(report));
    assert.ok(report.byStatus.has('429'), JSON.stringify([...report.byStatus]));
    assert.ok(report.byStatus.has('403'), JSON.stringify([...report.byStatus]));
  });

  it('still serves afterwards: health, and the seeded credentials after a sandbox reset', async () => {
    assert.deepEqual(await target.stillAlive(), []);
  });
});
