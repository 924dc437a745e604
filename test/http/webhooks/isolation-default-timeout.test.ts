/** Isolation with the default delivery timeout (5 s). */
import { describe, it } from 'node:test';
import { isolationScenario } from './isolation.ts';

describe('a hanging receiver, default timeout', () => {
  it('4 deliveries hang: the API keeps its latency, the other account is served, all end failed after 5 s', async () => {
    await isolationScenario({ timeoutMs: undefined, changes: 4 });
  });
});
