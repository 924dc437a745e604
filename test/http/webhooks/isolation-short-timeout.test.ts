/** Isolation with a short delivery timeout (--webhook-timeout-ms 2000) and two waves of hanging deliveries. */
import { describe, it } from 'node:test';
import { isolationScenario } from './isolation.ts';

describe('a hanging receiver, --webhook-timeout-ms 2000', () => {
  it('8 deliveries hang (4 at a time): the API keeps its latency, the other account is served, all end failed', async () => {
    await isolationScenario({ timeoutMs: 2_000, changes: 8 });
  });
});
