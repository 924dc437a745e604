/**
 * The request-duration histogram kept outside prom-client's Histogram: its exposition must be the
 * one a prom-client Histogram gives for the same observations, line for line.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Histogram, Registry } from 'prom-client';
import { RequestDurations } from '../../../src/adapters/metrics/request-durations.ts';

const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15, 30];
const NAME = 'http_request_duration_seconds';
const HELP = 'HTTP requests by method, route pattern and status code, and how long they took';

type Observation = readonly [method: string, route: string, status: number, seconds: number];

function both(): {
  ours: RequestDurations;
  theirs: Histogram<string>;
  text: () => Promise<[string, string]>;
} {
  const oursRegistry = new Registry();
  const theirsRegistry = new Registry();
  const ours = new RequestDurations(NAME, HELP, BUCKETS);
  oursRegistry.registerMetric(ours.asMetric());
  const theirs = new Histogram({
    name: NAME,
    help: HELP,
    labelNames: ['method', 'route', 'status_code'],
    buckets: BUCKETS,
    registers: [theirsRegistry],
  });
  return {
    ours,
    theirs,
    text: async () => [await oursRegistry.metrics(), await theirsRegistry.metrics()],
  };
}

function observe(
  ours: RequestDurations,
  theirs: Histogram<string>,
  observations: readonly Observation[],
): void {
  for (const [method, route, status, seconds] of observations) {
    ours.observe(method, route, status, seconds);
    theirs.observe({ method, route, status_code: String(status) }, seconds);
  }
}

describe('RequestDurations', () => {
  it("exposes what prom-client's Histogram exposes for the same requests", async () => {
    const { ours, theirs, text } = both();
    // Interleaved series, values on a bound, between bounds, past the last one, and zero.
    const observations: Observation[] = [
      ['GET', '/public/lock/:device_id', 200, 0.0004],
      ['POST', '/public/lock/:device_id', 202, 0.005],
      ['GET', '/public/locks', 200, 0.0051],
      ['GET', '/public/lock/:device_id', 200, 0.01],
      ['GET', '/public/lock/:device_id', 401, 0.2],
      ['GET', '/v1/locks', 200, 31],
      ['POST', '/public/lock/:device_id', 202, 0],
      ['GET', '/public/lock/:device_id', 200, 2.5],
      ['HEAD', '/healthz', 200, 1e-6],
    ];
    for (let i = 0; i < 40; i++)
      observations.push(['GET', i % 3 === 0 ? '/ext/events' : '/public/locks', 200 + (i % 2) * 229, i / 37]);
    observe(ours, theirs, observations);
    const [mine, expected] = await text();
    assert.equal(mine, expected);
    assert.match(mine, /http_request_duration_seconds_bucket\{le="0.005",method="GET"/);
  });

  it('exposes nothing but its help and type before the first request, and after a reset', async () => {
    const { ours, theirs, text } = both();
    let [mine, expected] = await text();
    assert.equal(mine, expected);
    observe(ours, theirs, [['GET', '/x', 200, 0.1]]);
    ours.reset();
    theirs.reset();
    [mine, expected] = await text();
    assert.equal(mine, expected);
    observe(ours, theirs, [['PUT', '/y', 204, 0.3]]);
    [mine, expected] = await text();
    assert.equal(mine, expected);
  });
});
